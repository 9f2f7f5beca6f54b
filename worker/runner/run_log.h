// RunLog: the per-scenario results of one runner invocation as they come in,
// so that whoever ends the run (normally the main thread, or the watchdog
// thread when a kernel never returns) prints one complete JSON document with
// every planned scenario in it. Thread-safe.
#ifndef KERNELSEEK_WORKER_RUNNER_RUN_LOG_H_
#define KERNELSEEK_WORKER_RUNNER_RUN_LOG_H_

#include <mutex>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "worker/runner/run_report.h"

namespace kseek::runner {

class RunLog {
 public:
  // `planned` holds every selected scenario, each kNotRun until finished.
  RunLog(RunInfo info, std::vector<ScenarioResult> planned);

  void Begin(size_t index);
  void Finish(size_t index, ScenarioResult result);
  // Marks the current scenario failed with `reason`, every unfinished one
  // not run, prints the document on stdout and exits with `exit_code`.
  // For the watchdog: the main thread may be stuck in a CUDA call.
  [[noreturn]] void FailCurrentPrintAndExit(const std::string& reason, int exit_code);
  // Marks every unfinished scenario not run with `reason`.
  void AbandonRemaining(const std::string& reason);

  std::string Document() const;
  bool AllPassed() const;

 private:
  mutable std::mutex mu_;
  const RunInfo info_;
  std::vector<ScenarioResult> results_ ABSL_GUARDED_BY(mu_);
  std::vector<bool> finished_ ABSL_GUARDED_BY(mu_);
  size_t current_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace kseek::runner

#endif  // KERNELSEEK_WORKER_RUNNER_RUN_LOG_H_
