// NvccCommand: turns a user's CompileOptions into an nvcc argv, refusing
// anything that could reach nvcc as a flag of its own.
//
// The user chooses only what CompileOptions holds; the worker adds fixed flags
// (gencode for the one arch, -Xptxas -v, -std=c++17, the output file). What
// the user may choose is problem/compile_policy.h's, checked first, the same
// check the server made. Immutable after construction; thread-safe.
#ifndef KERNELSEEK_WORKER_NVCC_COMMAND_H_
#define KERNELSEEK_WORKER_NVCC_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "problem/arch.h"
#include "problem/compile_policy.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

class NvccCommand {
 public:
  // `supported_archs`: the worker's `compile` capability (what its nvcc can
  // build for); an arch must be both known and in this list.
  NvccCommand(std::string nvcc_path, std::vector<std::string> supported_archs);

  // ValidateCompileOptions against this worker's supported archs.
  absl::Status Validate(const kernelseek::v1::CompileOptions& options) const;

  // nvcc argv that compiles `source_path` to a cubin at `cubin_path` and
  // prints ptxas's resource report on stderr.
  absl::StatusOr<std::vector<std::string>> CubinArgv(const kernelseek::v1::CompileOptions& options,
                                                     const std::string& source_path,
                                                     const std::string& cubin_path) const;

  // nvcc argv that builds `source_path` into a shared object at `so_path` for
  // kseek-runner to dlopen (-shared -Xcompiler -fPIC), with the same checks.
  absl::StatusOr<std::vector<std::string>> SharedObjectArgv(
      const kernelseek::v1::CompileOptions& options, const std::string& source_path,
      const std::string& so_path) const;

  const std::string& nvcc_path() const { return nvcc_path_; }

 private:
  // The flags both outputs share, after validation.
  std::vector<std::string> CommonFlags(const kernelseek::v1::CompileOptions& options) const;

  std::string nvcc_path_;
  std::vector<std::string> supported_archs_;
};

}  // namespace kseek

#endif  // KERNELSEEK_WORKER_NVCC_COMMAND_H_
