// Runs one external program (nvcc, cuobjdump, nvidia-smi, kseek-runner) without
// a shell, with a wall-clock limit and bounded output capture.
//
// RunSubprocess is thread-safe: every pipe it creates is close-on-exec, so a
// child spawned by one thread never inherits another call's pipe ends, and it
// installs no signal handlers. The child runs in its own process group, so a
// time limit kills the program and everything it started, and it gets SIGKILL
// when the calling thread's process dies (PR_SET_PDEATHSIG), so a killed
// worker leaves no nvcc or runner behind.
#ifndef KERNELSEEK_COMMON_SUBPROCESS_H_
#define KERNELSEEK_COMMON_SUBPROCESS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace kseek {

// Kernel resource limits (setrlimit) set in the child before exec; 0 leaves a
// limit as inherited. They bound what one hostile program can take.
struct ResourceLimits {
  uint64_t address_space_bytes = 0;  // RLIMIT_AS: unusable for CUDA programs,
                                     // which reserve the GPU's address space
  uint64_t data_bytes = 0;           // RLIMIT_DATA: private writable memory
  uint64_t cpu_seconds = 0;          // RLIMIT_CPU
  uint64_t file_size_bytes = 0;      // RLIMIT_FSIZE: largest file it may write
  uint64_t processes = 0;            // RLIMIT_NPROC
  uint64_t open_files = 0;           // RLIMIT_NOFILE
};

struct SubprocessSpec {
  // argv[0] is the program: a path if it contains '/', else searched in PATH.
  std::vector<std::string> argv;
  // Empty: the caller's working directory.
  std::string working_dir;
  // Added to (or overriding) the caller's environment.
  std::vector<std::pair<std::string, std::string>> extra_env;
  // False: the child's environment is extra_env alone, so that none of the
  // caller's variables (a worker's token among them) reaches it.
  bool inherit_environment = true;
  // Written to the child's stdin, which is then closed; empty: /dev/null.
  // At most kMaxStdinBytes, so that one write into the pipe never blocks.
  std::string stdin_text;
  ResourceLimits limits;
  // >= 0: the child drops to this user and group (no supplementary groups)
  // before exec; needs root. A sandbox runs its programs as such a user.
  int64_t run_as_uid = -1;
  int64_t run_as_gid = -1;
  // No core file, whatever the inherited limit.
  bool core_dumps = false;
  // On expiry the whole process group gets SIGKILL.
  absl::Duration time_limit = absl::InfiniteDuration();
  // Cap on captured bytes of stdout and of stderr, each. Output past the cap
  // is still read (so the child never blocks on a full pipe) and discarded.
  size_t max_output_bytes = 1 << 20;
  // Called on the calling thread with each complete stderr line (without the
  // newline) as it arrives, e.g. to show a long job's progress. Optional.
  std::function<void(absl::string_view line)> on_stderr_line;
};

struct SubprocessResult {
  // Valid when term_signal == 0.
  int exit_code = -1;
  // Signal that ended the process, 0 if it exited. SIGKILL after a timeout.
  int term_signal = 0;
  bool timed_out = false;
  // Killed because the calling thread's CancelScope flag was set.
  bool cancelled = false;
  std::string stdout_text;
  std::string stderr_text;
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  double wall_seconds = 0;

  // Exited by itself with code 0.
  bool Succeeded() const { return !timed_out && !cancelled && term_signal == 0 && exit_code == 0; }
  // "exit code 1", "killed by signal 9 (Killed)", "timed out after 5s".
  std::string Describe() const;
};

// Runs spec.argv to completion (or to the time limit). Errors only when the
// program could not be started: NOT_FOUND when argv[0] does not exist,
// FAILED_PRECONDITION when it is not executable or the working directory is
// missing, INVALID_ARGUMENT for an empty argv, INTERNAL for pipe/spawn failures.
// A program that starts and then fails is a SubprocessResult, not an error.
absl::StatusOr<SubprocessResult> RunSubprocess(const SubprocessSpec& spec);

inline constexpr size_t kMaxStdinBytes = 4096;

// While a CancelScope lives on a thread, RunSubprocess calls on that thread
// kill their child's whole process group within milliseconds of *flag
// becoming true (SubprocessResult::cancelled). The worker sets one around
// each job, so that a job it drops (cancelled, or its lease lost) frees the
// GPU at once. Scopes nest; the flag must outlive the scope.
class CancelScope {
 public:
  explicit CancelScope(const std::atomic<bool>* flag);
  ~CancelScope();
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;

 private:
  const std::atomic<bool>* previous_;
};

// The last `n` bytes of a program's output, for an error message: where a
// program says why it failed.
std::string OutputTail(const std::string& text, size_t n);

// Joins argv for display, quoting arguments that contain shell-special
// characters, so the line can be pasted into a shell.
std::string FormatCommandLine(const std::vector<std::string>& argv);

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_SUBPROCESS_H_
