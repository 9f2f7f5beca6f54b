// JobRunner: runs one job to its end for a session's agent tools (compile,
// verify, bench) and hands back the finished job. QueueJobRunner submits to
// the server's JobQueue as the session's user, so the job is an ordinary job
// (listed, stored, leased to a real worker); tests substitute canned results.
#ifndef KERNELSEEK_SERVER_JOB_RUNNER_H_
#define KERNELSEEK_SERVER_JOB_RUNNER_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/kernelseek.pb.h"
#include "server/job_queue.h"

namespace kseek {

class JobRunner {
 public:
  virtual ~JobRunner() = default;

  // Submits `spec` as `user` of `team` and waits for the job to finish (SUCCEEDED or
  // FAILED). Errors: INVALID_ARGUMENT for a spec the queue refuses;
  // FAILED_PRECONDITION when no connected worker could run it (nothing is
  // queued then; JobQueue::Submit says why); DEADLINE_EXCEEDED when it did not finish in time; CANCELLED once
  // `cancelled()` returns true.
  virtual absl::StatusOr<kernelseek::v1::Job> Run(const std::string& user, const std::string& team,
                                                  kernelseek::v1::JobSpec spec,
                                                  const std::function<bool()>& cancelled) = 0;
};

// Runs jobs through a JobQueue. Thread-safe (the queue is); owns nothing.
class QueueJobRunner final : public JobRunner {
 public:
  QueueJobRunner(JobQueue* queue, absl::Duration max_wait) : queue_(queue), max_wait_(max_wait) {}

  absl::StatusOr<kernelseek::v1::Job> Run(const std::string& user, const std::string& team,
                                          kernelseek::v1::JobSpec spec,
                                          const std::function<bool()>& cancelled) override;

 private:
  JobQueue* const queue_;
  const absl::Duration max_wait_;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_JOB_RUNNER_H_
