// Sandbox: runs the programs a job starts on hostile input (nvcc and
// cuobjdump on a user's source, kseek-runner and ncu on a user's shared
// object) inside bubblewrap, so that they see their job's folder (writable),
// the toolchain (read-only) and, for GPU jobs, the GPU's device nodes, and
// nothing else of the host: no /etc beyond the loader's cache, no worker
// token, no other job's folder, no network (a namespace of their own with
// loopback alone), no host processes; with limits on memory, CPU time, file
// size and processes, and as an unprivileged user when the worker is root.
//
// bubblewrap rather than namespaces set up here: it is the small, audited
// setuid-free tool Flatpak runs every application in, it does the mount
// and namespace dance (pivot_root, /proc for the new pid namespace, dropping
// capabilities, PR_SET_NO_NEW_PRIVS) that is easy to get subtly wrong, and
// Debian ships it.
//
// Immutable after construction; thread-safe.
#ifndef KERNELSEEK_WORKER_SANDBOX_H_
#define KERNELSEEK_WORKER_SANDBOX_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/subprocess.h"

namespace kseek {

struct SandboxConfig {
  // bubblewrap; empty: no sandbox (only with the worker's --no-sandbox, for
  // development on a machine without it).
  std::string bwrap_path;
  // Read-only in every sandbox, each at its own path, where it exists: the
  // system's programs and libraries, and whatever the tools live in.
  std::vector<std::string> read_only_paths;
  // Read-only in GPU sandboxes only: the driver's libraries, /sys.
  std::vector<std::string> gpu_read_only_paths;
  // The device nodes a GPU job gets (/dev/nvidia*), each at its own path.
  std::vector<std::string> gpu_devices;
  // The user and group sandboxed programs run as when the worker is root
  // (nobody); -1: the worker's own.
  int64_t uid = -1;
  int64_t gid = -1;
  ResourceLimits compile_limits;
  ResourceLimits gpu_limits;
};

enum class SandboxKind {
  kCompile,  // nvcc, cuobjdump: no devices beyond /dev/null
  kGpu,      // kseek-runner, ncu: the GPU's device nodes
};

class Sandbox {
 public:
  // The defaults for this machine: /usr, /bin, /lib*, the loader's cache,
  // the folders of `tools` (resolved through symlinks), the directories on
  // LD_LIBRARY_PATH and /usr/local/nvidia for GPU jobs, /dev/nvidia*, and
  // nobody when running as root. `bwrap_path` empty: sandbox off.
  // `gpu_index` >= 0: of the GPUs' own nodes only /dev/nvidiaN (the shared
  // nvidiactl and nvidia-uvm nodes stay).
  static SandboxConfig DefaultConfig(const std::string& bwrap_path, const std::vector<std::string>& tools,
                                     int gpu_index = -1);

  // Checks that bubblewrap starts a sandbox here (FAILED_PRECONDITION with
  // its message when it cannot, e.g. where user namespaces are disabled).
  static absl::StatusOr<Sandbox> Create(SandboxConfig config);
  // A sandbox that only applies the limits and the clean environment.
  static Sandbox Disabled();

  bool enabled() const { return !config_.bwrap_path.empty(); }
  int64_t uid() const { return config_.uid; }
  int64_t gid() const { return config_.gid; }

  // Rewrites `spec` to run inside a sandbox of `kind` in which the folders
  // `writable` (the job's) can be written and `read_only` ones (e.g. the
  // problem's manifests) read, each at its own path. The environment becomes
  // spec's extra_env plus PATH, LC_ALL=C, HOME and TMPDIR (the first writable
  // folder); the limits become the kind's.
  void Apply(SandboxKind kind, const std::vector<std::string>& writable, const std::vector<std::string>& read_only,
             SubprocessSpec* spec) const;

  // Hands `dir` (a job folder just made, mode 0700) to the sandbox's user so
  // its programs can write there. No-op when the sandbox keeps the worker's
  // user.
  absl::Status HandOver(const std::string& dir) const;

 private:
  explicit Sandbox(SandboxConfig config) : config_(std::move(config)) {}

  SandboxConfig config_;
};

}  // namespace kseek

#endif  // KERNELSEEK_WORKER_SANDBOX_H_
