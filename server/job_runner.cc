#include "server/job_runner.h"

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/job_state.h"

namespace kseek {

absl::StatusOr<kernelseek::v1::Job> QueueJobRunner::Run(const std::string& user, const std::string& team,
                                                         kernelseek::v1::JobSpec spec,
                                                         const std::function<bool()>& cancelled) {
  // A job no connected worker can run would wait in the queue until one
  // connects; an agent is better told at once (verify and bench need a GPU),
  // so the queue's refusal of it is the answer.
  absl::StatusOr<std::string> id =
      queue_->Submit(user, team, std::move(spec), SubmitOptions{.wait_for_worker = false});
  if (!id.ok()) return id.status();
  // Woken by changes of this job only; the timeout bounds how late a stop
  // (`cancelled`) is noticed.
  absl::Mutex mu;
  bool changed = false;
  absl::StatusOr<ChangeNotifier::Subscription> subscription = queue_->SubscribeJob(*id, [&mu, &changed] {
    absl::MutexLock lock(&mu);
    changed = true;
  });
  if (!subscription.ok()) return subscription.status();
  const absl::Time deadline = absl::Now() + max_wait_;
  while (true) {
    {
      absl::MutexLock lock(&mu);
      changed = false;
    }
    absl::StatusOr<kernelseek::v1::Job> job = queue_->GetJob(*id);
    if (!job.ok()) return job.status();
    if (IsFinishedState(job->state())) {
      return *std::move(job);
    }
    if (cancelled()) return absl::CancelledError(absl::StrCat("stopped while job ", *id, " was running"));
    // Going down is no outcome of the job: the session resumes the tool call
    // after the restart, so it must not record "did not finish".
    if (queue_->shutting_down()) {
      return absl::CancelledError(absl::StrCat("the server is shutting down; job ", *id, " stays queued"));
    }
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(absl::StrCat("job ", *id, " did not finish within ",
                                                      absl::FormatDuration(max_wait_), "; it stays queued"));
    }
    absl::MutexLock lock(&mu);
    mu.AwaitWithTimeout(absl::Condition(&changed), absl::Seconds(1));
  }
}

}  // namespace kseek
