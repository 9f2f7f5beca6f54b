#include "server/metrics.h"

#include <exception>
#include <utility>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"

namespace kseek {
namespace {

// From a fast compile to a long bench with a queue in front of it.
const prometheus::Histogram::BucketBoundaries kJobSeconds = {0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600};
// One LLM turn, with its retries.
const prometheus::Histogram::BucketBoundaries kLlmSeconds = {0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300};

// "compile" for JOB_KIND_COMPILE, "succeeded" for JOB_STATE_SUCCEEDED.
std::string Word(const std::string& enum_name, absl::string_view prefix) {
  return absl::AsciiStrToLower(absl::StripPrefix(enum_name, prefix));
}

}  // namespace

// The registry and the families; a Collectable so that the exposer asks it,
// and it refreshes the gauges from the sources before each collection.
class ServerMetrics::Impl final : public prometheus::Collectable {
 public:
  Impl()
      : registry_(std::make_shared<prometheus::Registry>()),
        jobs_(prometheus::BuildGauge()
                  .Name("kseek_jobs")
                  .Help("Unfinished jobs by state: queued (waiting for a worker) or leased (a worker runs it)")
                  .Register(*registry_)),
        workers_(prometheus::BuildGauge()
                     .Name("kseek_workers_connected")
                     .Help("Workers that synced within the offline timeout")
                     .Register(*registry_)
                     .Add({})),
        sessions_(prometheus::BuildGauge()
                      .Name("kseek_sessions_running")
                      .Help("Optimization sessions in state RUNNING")
                      .Register(*registry_)
                      .Add({})),
        lease_expiries_(prometheus::BuildCounter()
                            .Name("kseek_lease_expiries_total")
                            .Help("Leases lost because the worker missed its sync deadline")
                            .Register(*registry_)
                            .Add({})),
        jobs_finished_(prometheus::BuildCounter()
                           .Name("kseek_jobs_finished_total")
                           .Help("Jobs ended, by kind and final state")
                           .Register(*registry_)),
        job_latency_(prometheus::BuildHistogram()
                         .Name("kseek_job_latency_seconds")
                         .Help("From submit to finished, by job kind")
                         .Register(*registry_)),
        job_run_time_(prometheus::BuildHistogram()
                          .Name("kseek_job_run_seconds")
                          .Help("From lease to finished (the worker's run), by job kind")
                          .Register(*registry_)),
        llm_latency_(prometheus::BuildHistogram()
                         .Name("kseek_llm_call_seconds")
                         .Help("One LLM call of a session, its retries included")
                         .Register(*registry_)
                         .Add({}, kLlmSeconds)),
        llm_errors_(prometheus::BuildCounter()
                        .Name("kseek_llm_call_errors_total")
                        .Help("LLM calls that failed after their retries, by status code")
                        .Register(*registry_)) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    MetricSources sources;
    {
      absl::MutexLock lock(&mu_);
      sources = sources_;
    }
    if (sources.queue_depth) {
      const QueueDepth depth = sources.queue_depth();
      jobs_.Add({{"state", "queued"}}).Set(static_cast<double>(depth.queued));
      jobs_.Add({{"state", "leased"}}).Set(static_cast<double>(depth.leased));
    }
    if (sources.workers_connected) workers_.Set(static_cast<double>(sources.workers_connected()));
    if (sources.sessions_running) sessions_.Set(static_cast<double>(sources.sessions_running()));
    return registry_->Collect();
  }

  void SetSources(MetricSources sources) {
    absl::MutexLock lock(&mu_);
    sources_ = std::move(sources);
  }

  void LeaseExpired() { lease_expiries_.Increment(); }

  void JobFinished(kernelseek::v1::JobKind kind, kernelseek::v1::JobState state, absl::Duration queued_to_finished,
                   std::optional<absl::Duration> run_time) {
    const std::string kind_word = Word(kernelseek::v1::JobKind_Name(kind), "JOB_KIND_");
    jobs_finished_.Add({{"kind", kind_word}, {"state", Word(kernelseek::v1::JobState_Name(state), "JOB_STATE_")}})
        .Increment();
    job_latency_.Add({{"kind", kind_word}}, kJobSeconds).Observe(absl::ToDoubleSeconds(queued_to_finished));
    if (run_time.has_value()) {
      job_run_time_.Add({{"kind", kind_word}}, kJobSeconds).Observe(absl::ToDoubleSeconds(*run_time));
    }
  }

  void LlmCall(absl::Duration latency, const absl::Status& status) {
    llm_latency_.Observe(absl::ToDoubleSeconds(latency));
    if (!status.ok()) llm_errors_.Add({{"code", absl::StatusCodeToString(status.code())}}).Increment();
  }

 private:
  mutable absl::Mutex mu_;
  MetricSources sources_ ABSL_GUARDED_BY(mu_);
  // prometheus-cpp's families and metrics are thread-safe themselves.
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Gauge>& jobs_;
  prometheus::Gauge& workers_;
  prometheus::Gauge& sessions_;
  prometheus::Counter& lease_expiries_;
  prometheus::Family<prometheus::Counter>& jobs_finished_;
  prometheus::Family<prometheus::Histogram>& job_latency_;
  prometheus::Family<prometheus::Histogram>& job_run_time_;
  prometheus::Histogram& llm_latency_;
  prometheus::Family<prometheus::Counter>& llm_errors_;

 public:
  // Declared last: destroyed first, so no scrape runs on a half-destroyed Impl.
  std::unique_ptr<prometheus::Exposer> exposer;
};

ServerMetrics::ServerMetrics() : impl_(std::make_shared<Impl>()) {}

ServerMetrics::~ServerMetrics() { StopServing(); }

void ServerMetrics::StopServing() { impl_->exposer.reset(); }

void ServerMetrics::SetSources(MetricSources sources) { impl_->SetSources(std::move(sources)); }

void ServerMetrics::LeaseExpired() { impl_->LeaseExpired(); }

void ServerMetrics::JobFinished(kernelseek::v1::JobKind kind, kernelseek::v1::JobState state,
                                absl::Duration queued_to_finished, std::optional<absl::Duration> run_time) {
  impl_->JobFinished(kind, state, queued_to_finished, run_time);
}

void ServerMetrics::LlmCall(absl::Duration latency, const absl::Status& status) { impl_->LlmCall(latency, status); }

std::string ServerMetrics::Text() { return prometheus::TextSerializer().Serialize(impl_->Collect()); }

absl::StatusOr<int> ServerMetrics::Serve(const std::string& address) {
  if (impl_->exposer != nullptr) return absl::FailedPreconditionError("metrics are served already");
  // prometheus-cpp (CivetWeb underneath) reports a failed bind by throwing;
  // the exception stays in this function.
  try {
    impl_->exposer = std::make_unique<prometheus::Exposer>(address, /*num_threads=*/1);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("cannot serve metrics on ", address, ": ", e.what()));
  }
  impl_->exposer->RegisterCollectable(impl_);
  const std::vector<int> ports = impl_->exposer->GetListeningPorts();
  if (ports.empty()) return absl::UnavailableError(absl::StrCat("cannot serve metrics on ", address));
  return ports.front();
}

}  // namespace kseek
