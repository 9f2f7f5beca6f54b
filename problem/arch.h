// The GPU architectures KernelSeek knows: the values a job's
// CompileOptions.arch may take, what the server checks a job against and what
// a worker matches its nvcc and GPU to. A fixed table; thread-safe.
#ifndef KERNELSEEK_PROBLEM_ARCH_H_
#define KERNELSEEK_PROBLEM_ARCH_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace kseek {

// One architecture a job may ask for.
struct KnownArch {
  absl::string_view name;     // "sm_90a": the value of CompileOptions.arch
  absl::string_view base;     // "sm_90": the name nvcc --list-gpu-code prints
  absl::string_view compute;  // "compute_90a": the virtual arch for -gencode
};

// Oldest first. The `a` variants (arch-specific features such as wgmma,
// tcgen05) are listed after their base.
const std::vector<KnownArch>& KnownArchs();

// Null when `name` is not in KnownArchs().
const KnownArch* FindKnownArch(absl::string_view name);

// "sm_75, sm_80, ...": for error messages.
std::string KnownArchNames();

}  // namespace kseek

#endif  // KERNELSEEK_PROBLEM_ARCH_H_
