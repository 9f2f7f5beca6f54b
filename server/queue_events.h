// QueueEvents: what the job queue reports as it happens, for metrics. The
// queue calls it with its own lock held, so an implementation must be quick
// and must not call back into the queue. ServerMetrics implements it; tests
// may record the calls. Implementations must be thread-safe.
#ifndef KERNELSEEK_SERVER_QUEUE_EVENTS_H_
#define KERNELSEEK_SERVER_QUEUE_EVENTS_H_

#include <optional>

#include "absl/time/time.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

class QueueEvents {
 public:
  virtual ~QueueEvents() = default;
  // A worker missed its sync deadline and lost its lease.
  virtual void LeaseExpired() = 0;
  // A job ended (succeeded, failed or cancelled) `queued_to_finished` after
  // it was submitted; `run_time` is how long its last lease ran, when it had
  // one whose start this server saw.
  virtual void JobFinished(kernelseek::v1::JobKind kind, kernelseek::v1::JobState state,
                           absl::Duration queued_to_finished, std::optional<absl::Duration> run_time) = 0;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_QUEUE_EVENTS_H_
