// NvccCommand: turns a user's CompileOptions into an nvcc argv, refusing
// anything that could reach nvcc as a flag of its own.
//
// The user chooses only what CompileOptions holds; the worker adds fixed flags
// (gencode for the one arch, -Xptxas -v, -std=c++17, the output file). Every
// user string is checked against a narrow pattern first, so a define or arch
// cannot carry `-o /etc/x`, `--run`, `-ccbin` or a comma (nvcc splits list
// options such as -D at commas). Immutable after construction; thread-safe.
#ifndef KERNELSEEK_WORKER_NVCC_COMMAND_H_
#define KERNELSEEK_WORKER_NVCC_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

// One architecture this worker is willing to build for.
struct KnownArch {
  absl::string_view name;     // "sm_90a": the value of CompileOptions.arch
  absl::string_view base;     // "sm_90": the name nvcc --list-gpu-code prints
  absl::string_view compute;  // "compute_90a": the virtual arch for -gencode
};

// The fixed table of architectures a user may ask for, oldest first. The `a`
// variants (arch-specific features such as wgmma, tcgen05) are listed after
// their base.
const std::vector<KnownArch>& KnownArchs();

// Null when `name` is not in KnownArchs().
const KnownArch* FindKnownArch(absl::string_view name);

// Limits on what CompileOptions may hold.
inline constexpr int kDefaultOptLevel = 3;
inline constexpr int kMinMaxRegisters = 16;
inline constexpr int kMaxMaxRegisters = 255;
inline constexpr int kMaxDefines = 64;
inline constexpr size_t kMaxDefineBytes = 256;

class NvccCommand {
 public:
  // `supported_archs`: the worker's `compile` capability (what its nvcc can
  // build for); an arch must be both known and in this list.
  NvccCommand(std::string nvcc_path, std::vector<std::string> supported_archs);

  // INVALID_ARGUMENT naming the bad value when `options` asks for an unknown
  // or unsupported arch, an opt_level outside 0..3, a malformed define or a
  // max_registers outside 16..255 (0 = unset).
  //
  // opt_level: proto3 cannot tell an unset field from 0, and the proto says 0
  // means the default, so 0 selects -O3 and -O0 cannot be requested.
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
