// Compiler: runs one compile job (nvcc -cubin with ptxas's resource report,
// then cuobjdump --dump-sass) in a private temp dir and returns its
// CompileResult.
//
// A compile error or a timeout is a result (success=false, with diagnostics),
// not an error Status; Status errors are for bad requests (INVALID_ARGUMENT)
// and a broken worker (FAILED_PRECONDITION: nvcc missing, temp dir unusable).
// nvcc and cuobjdump run in the configured Sandbox, seeing only the job's
// folder and the toolchain. With a CompileCache, a build whose key (source,
// command line, nvcc version, arch) was built before is taken from it instead.
// Immutable after construction (but for nvcc's version, read once); Compile
// may run on several threads at once, each call in its own temp dir.
#ifndef KERNELSEEK_WORKER_COMPILER_H_
#define KERNELSEEK_WORKER_COMPILER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/kernelseek.pb.h"
#include "worker/compile_cache.h"
#include "worker/nvcc_command.h"
#include "worker/sandbox.h"

namespace kseek {

struct CompilerConfig {
  std::string nvcc_path = "/usr/local/cuda/bin/nvcc";
  // Empty: no SASS summary (the log says so).
  std::string cuobjdump_path;
  // Architectures this worker's nvcc supports: its `compile` capability.
  std::vector<std::string> supported_archs;
  // Parent of the per-job temp dirs.
  std::string temp_dir = "/tmp";
  // Wall-clock limit for nvcc, and separately for cuobjdump.
  absl::Duration time_limit = absl::Seconds(120);
  size_t max_source_bytes = 1 << 20;
  // Cap on the log and on each captured output stream.
  size_t max_output_bytes = 1 << 20;
  // Where nvcc and cuobjdump run: they read a user's source. Not owned; null
  // means Sandbox::Disabled() (limits and a clean environment only).
  const Sandbox* sandbox = nullptr;
  // Builds already made, by key (see CompileCache); a successful build is
  // kept there and a build of the same key is taken from it, its result's
  // `cache` saying so. Not owned; null: every job compiles.
  CompileCache* cache = nullptr;
};

// The file name the source is written as: the base name of `source_name`
// with anything but [A-Za-z0-9_.-] replaced by '_', no leading '.' or '-',
// ending in ".cu" ("kernel.cu" when nothing usable is left).
std::string SanitizeSourceName(absl::string_view source_name);

class Compiler {
 public:
  explicit Compiler(CompilerConfig config);

  absl::StatusOr<kernelseek::v1::CompileResult> Compile(const kernelseek::v1::JobSpec& spec) const;

  // Builds the spec's source into a shared object at `so_path` (outside the
  // temp dir, owned by the caller) for kseek-runner to load, with the same
  // checks, resource report and SASS summary as Compile. Any job kind.
  absl::StatusOr<kernelseek::v1::CompileResult> BuildSharedObject(const kernelseek::v1::JobSpec& spec,
                                                                  const std::string& so_path) const;

 private:
  // A cubin in the temp dir when `so_path` is empty, else the shared object.
  absl::StatusOr<kernelseek::v1::CompileResult> Build(const kernelseek::v1::JobSpec& spec,
                                                      const std::string& so_path) const;

  // `nvcc --version`, whole, for the cache key; read once, on the first
  // cached build. Empty when nvcc did not answer (the build is then not cached).
  const std::string& NvccVersion() const;

  CompilerConfig config_;
  NvccCommand nvcc_;
  mutable absl::once_flag nvcc_version_once_;
  mutable std::string nvcc_version_;  // written once, under nvcc_version_once_
  Sandbox unsandboxed_ = Sandbox::Disabled();
  const Sandbox* sandbox_;  // config_.sandbox, or unsandboxed_
};

}  // namespace kseek

#endif  // KERNELSEEK_WORKER_COMPILER_H_
