// ServerMetrics: the server's Prometheus metrics in one object. The job queue
// reports events through QueueEvents, LLM clients through LlmCall (see
// MeteredLlmClient); gauges (queue depth, workers, sessions) are read from
// the sources given to SetSources at each scrape, so the domain code keeps
// no metric state. Prometheus types stay inside metrics.cc. Thread-safe.
#ifndef KERNELSEEK_SERVER_METRICS_H_
#define KERNELSEEK_SERVER_METRICS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/job_queue.h"
#include "server/queue_events.h"

namespace kseek {

// Where the gauges come from; each is called at every scrape (from the
// exposer's thread), so it must be thread-safe. An unset one is not exported.
struct MetricSources {
  std::function<QueueDepth()> queue_depth;
  std::function<int64_t()> workers_connected;
  std::function<int64_t()> sessions_running;
};

class ServerMetrics final : public QueueEvents {
 public:
  ServerMetrics();
  ~ServerMetrics() override;
  ServerMetrics(const ServerMetrics&) = delete;
  ServerMetrics& operator=(const ServerMetrics&) = delete;

  // Before Serve or the first Text.
  void SetSources(MetricSources sources);

  void LeaseExpired() override;
  void JobFinished(kernelseek::v1::JobKind kind, kernelseek::v1::JobState state, absl::Duration queued_to_finished,
                   std::optional<absl::Duration> run_time) override;
  // One LLM call (all its attempts) took `latency` and ended with `status`.
  void LlmCall(absl::Duration latency, const absl::Status& status);

  // What a scrape returns now, in Prometheus text format.
  std::string Text();
  // Serves GET /metrics on `address` (HOST:PORT; port 0 picks one) until
  // this object is destroyed. Returns the port. UNAVAILABLE when it cannot
  // listen there.
  absl::StatusOr<int> Serve(const std::string& address);
  // Stops serving and waits for a scrape in progress: after it no source is
  // called, so what they read may go.
  void StopServing();

 private:
  class Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_METRICS_H_
