// ProgressDisplay: what `kseek compile`, `verify` and `bench` show on stderr
// while a job runs.
//
// On a terminal it keeps one line, redrawn in place with "\r" once a second
// so the elapsed time moves ("job 17  12s  [###.....] 9/72  verifying on
// gpu-1"). Anywhere else (a log file, a CI pipe) it writes one line per
// change of status, so the log shows the job's history without clutter. Writes only to the stream
// given; does not own it. Thread-safe: Update runs on the thread reading the
// watch stream while a ticker thread redraws.
#ifndef KERNELSEEK_CLIENT_PROGRESS_DISPLAY_H_
#define KERNELSEEK_CLIENT_PROGRESS_DISPLAY_H_

#include <ostream>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "common/clock.h"

namespace kseek {

class ProgressDisplay {
 public:
  // Elapsed time counts from construction, as read from `clock`.
  ProgressDisplay(std::ostream* out, bool is_terminal, const Clock* clock, std::string job_id);
  ~ProgressDisplay();  // Stops the ticker; does not finish the line.

  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  // On a terminal, starts redrawing once a second. No-op otherwise.
  void StartTicker();
  // Sets the status text, e.g. "queued"; shown at once if it changed.
  void Update(const std::string& status);
  // Redraws the terminal line with the current elapsed time.
  void Redraw();
  // Stops the ticker and leaves a final line, e.g. "job 17: finished after 3s".
  void Finish(const std::string& status);

 private:
  std::string LineLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StopTicker();

  std::ostream* const out_;
  const bool is_terminal_;
  const Clock* const clock_;
  const std::string job_id_;
  const absl::Time start_;

  absl::Mutex mu_;
  std::string status_ ABSL_GUARDED_BY(mu_);
  bool finished_ ABSL_GUARDED_BY(mu_) = false;

  absl::Notification stop_ticker_;
  std::thread ticker_;
};

}  // namespace kseek

#endif  // KERNELSEEK_CLIENT_PROGRESS_DISPLAY_H_
