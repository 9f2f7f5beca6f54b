// Turns what a user typed for `kseek compile` into the JobSpec to submit.
//
// Checks what the CLI can check before any network call (arch spelling,
// option ranges, -D syntax, the file being readable) so a typo is a usage
// error naming the bad value. The server still validates everything itself.
#ifndef KERNELSEEK_CLIENT_COMPILE_REQUEST_H_
#define KERNELSEEK_CLIENT_COMPILE_REQUEST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

struct CompileRequest {
  std::string path;        // CUDA source file to read
  std::string arch;        // e.g. "sm_90a"
  int64_t opt_level = -1;  // -1: the worker's default (-O3)
  bool line_info = false;
  std::vector<std::string> defines;  // NAME or NAME=VALUE
  int64_t max_registers = 0;         // 0: unset
};

// Reads request.path and builds a JOB_KIND_COMPILE spec whose source_name is
// the file's base name. INVALID_ARGUMENT for a bad option, NOT_FOUND or
// PERMISSION_DENIED (with the path and the OS's reason) for an unreadable file.
absl::StatusOr<kernelseek::v1::JobSpec> MakeCompileSpec(const CompileRequest& request);

}  // namespace kseek

#endif  // KERNELSEEK_CLIENT_COMPILE_REQUEST_H_
