// The compile-flag policy: which CompileOptions a job may carry. The server
// checks a job with it before queueing (against every known arch), and the
// worker again before it builds an nvcc command (against the archs its nvcc
// supports), so both refuse the same options with the same message.
//
// Every user string is checked against a narrow pattern, so that a define or
// an arch cannot carry `-o /etc/x`, `--run`, `-ccbin` or a comma (nvcc splits
// list options such as -D at commas). Plain functions; thread-safe.
#ifndef KERNELSEEK_PROBLEM_COMPILE_POLICY_H_
#define KERNELSEEK_PROBLEM_COMPILE_POLICY_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/problem.pb.h"

namespace kseek {

// Limits on what CompileOptions may hold.
inline constexpr int kDefaultOptLevel = 3;
inline constexpr int kMinMaxRegisters = 16;
inline constexpr int kMaxMaxRegisters = 255;
inline constexpr int kMaxDefines = 64;
inline constexpr size_t kMaxDefineBytes = 256;

// INVALID_ARGUMENT naming the bad value when `options` asks for an unknown
// arch or one not in `supported_archs`, an opt_level outside 0..3, a malformed
// define or a max_registers outside 16..255 (0 = unset).
//
// opt_level: proto3 cannot tell an unset field from 0, and the proto says 0
// means the default, so 0 selects -O3 and -O0 cannot be requested.
absl::Status ValidateCompileOptions(const kernelseek::v1::CompileOptions& options,
                                    const std::vector<std::string>& supported_archs);

// As above with every KnownArchs() arch supported: what can be checked before
// it is known which worker takes the job.
absl::Status ValidateCompileOptions(const kernelseek::v1::CompileOptions& options);

}  // namespace kseek

#endif  // KERNELSEEK_PROBLEM_COMPILE_POLICY_H_
