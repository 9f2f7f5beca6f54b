#include "server/metrics.h"

#include <catch2/catch.hpp>

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "server/job_queue.h"
#include "server/job_store.h"
#include "server/metered_llm_client.h"
#include "tests/server/open_store.h"
#include "tests/testing/http_get.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using kernelseek::v1::JobSpec;
using kernelseek::v1::SynchronizeRequest;

JobSpec CompileSpec() {
  JobSpec spec;
  spec.set_kind(kernelseek::v1::JOB_KIND_COMPILE);
  spec.set_source_name("k.cu");
  spec.set_source("__global__ void k() {}");
  spec.mutable_compile()->set_arch("sm_90a");
  return spec;
}

SynchronizeRequest Idle(const std::string& worker) {
  SynchronizeRequest r;
  r.set_worker_name(worker);
  auto* p = r.add_capabilities();
  p->set_key("compile");
  p->set_value("sm_90a");
  r.mutable_current_state()->mutable_idle();
  return r;
}

SynchronizeRequest Completed(const std::string& worker, const std::string& lease_id) {
  SynchronizeRequest r = Idle(worker);
  auto* c = r.mutable_current_state()->mutable_completed();
  c->set_lease_id(lease_id);
  c->mutable_result()->mutable_compile()->set_success(true);
  return r;
}

// Records what the queue reports.
class RecordingEvents final : public QueueEvents {
 public:
  struct Finished {
    kernelseek::v1::JobKind kind;
    kernelseek::v1::JobState state;
    absl::Duration queued_to_finished;
    std::optional<absl::Duration> run_time;
  };
  void LeaseExpired() override { ++expiries; }
  void JobFinished(kernelseek::v1::JobKind kind, kernelseek::v1::JobState state, absl::Duration queued_to_finished,
                   std::optional<absl::Duration> run_time) override {
    finished.push_back({kind, state, queued_to_finished, run_time});
  }
  int expiries = 0;
  std::vector<Finished> finished;
};

struct QueueFixture {
  testing::TempDir dir;
  FakeClock clock;
  RecordingEvents events;
  std::unique_ptr<JobStore> store = testing::OpenStore<JobStore>(dir.File("db.sqlite"));
  ProblemCatalog problems = *ProblemCatalog::Load(KSEEK_SCENARIOS_DIR);
  JobQueue queue{store.get(), &clock, &problems, [this] {
                   JobQueueOptions o;
                   o.lease_timeout = absl::Seconds(10);
                   o.max_attempts = 2;
                   o.events = &events;
                   return o;
                 }()};
};

constexpr SubmitOptions kQueueAnyway{.wait_for_worker = true};

TEST_CASE("the queue reports a finished job with its time in the queue and its run time") {
  QueueFixture f;
  f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  REQUIRE(f.queue.Depth().queued == 1);
  f.clock.Advance(absl::Seconds(5));
  const std::string lease = f.queue.Synchronize(Idle("w1")).value().desired_state.execute().lease_id();
  REQUIRE(f.queue.Depth().queued == 0);
  REQUIRE(f.queue.Depth().leased == 1);
  f.clock.Advance(absl::Seconds(3));
  f.queue.Synchronize(Completed("w1", lease)).value();

  REQUIRE(f.queue.Depth().leased == 0);
  REQUIRE(f.events.finished.size() == 1);
  const RecordingEvents::Finished& done = f.events.finished[0];
  REQUIRE(done.kind == kernelseek::v1::JOB_KIND_COMPILE);
  REQUIRE(done.state == kernelseek::v1::JOB_STATE_SUCCEEDED);
  REQUIRE(done.queued_to_finished == absl::Seconds(8));
  REQUIRE(done.run_time == absl::Seconds(3));
  REQUIRE(f.events.expiries == 0);
}

TEST_CASE("the queue reports each lease expiry, and the job that fails of them") {
  QueueFixture f;
  f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  for (int attempt = 1; attempt <= 2; ++attempt) {
    REQUIRE(f.queue.Synchronize(Idle("w1")).value().desired_state.has_execute());
    f.clock.Advance(absl::Seconds(11));
    f.queue.ExpireLeases();
    REQUIRE(f.events.expiries == attempt);
  }
  REQUIRE(f.events.finished.size() == 1);
  REQUIRE(f.events.finished[0].state == kernelseek::v1::JOB_STATE_FAILED);
  REQUIRE(f.events.finished[0].run_time == absl::Seconds(11));
  REQUIRE(f.queue.Depth().queued == 0);
}

TEST_CASE("a cancelled queued job is reported without a run time") {
  QueueFixture f;
  const std::string id = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  f.clock.Advance(absl::Seconds(2));
  REQUIRE(f.queue.Cancel("ana", id).ok());
  REQUIRE(f.events.finished.size() == 1);
  REQUIRE(f.events.finished[0].state == kernelseek::v1::JOB_STATE_CANCELLED);
  REQUIRE(f.events.finished[0].queued_to_finished == absl::Seconds(2));
  REQUIRE_FALSE(f.events.finished[0].run_time.has_value());
}

TEST_CASE("the metrics text holds the gauges read now and the counters and histograms so far") {
  ServerMetrics metrics;
  int64_t queued = 3;
  metrics.SetSources({.queue_depth = [&queued] { return QueueDepth{queued, 1}; },
                      .workers_connected = [] { return int64_t{2}; },
                      .sessions_running = [] { return int64_t{1}; }});
  metrics.JobFinished(kernelseek::v1::JOB_KIND_COMPILE, kernelseek::v1::JOB_STATE_SUCCEEDED, absl::Seconds(8),
                      absl::Seconds(3));
  metrics.JobFinished(kernelseek::v1::JOB_KIND_BENCH, kernelseek::v1::JOB_STATE_CANCELLED, absl::Seconds(40),
                      std::nullopt);
  metrics.LeaseExpired();
  metrics.LlmCall(absl::Milliseconds(700), absl::OkStatus());
  metrics.LlmCall(absl::Seconds(3), absl::UnavailableError("endpoint down"));

  std::string text = metrics.Text();
  INFO(text);
  CHECK(text.find("kseek_jobs{state=\"queued\"} 3\n") != std::string::npos);
  CHECK(text.find("kseek_jobs{state=\"leased\"} 1\n") != std::string::npos);
  CHECK(text.find("kseek_workers_connected 2\n") != std::string::npos);
  CHECK(text.find("kseek_sessions_running 1\n") != std::string::npos);
  CHECK(text.find("kseek_lease_expiries_total 1\n") != std::string::npos);
  CHECK(text.find("kseek_jobs_finished_total{kind=\"compile\",state=\"succeeded\"} 1\n") != std::string::npos);
  CHECK(text.find("kseek_jobs_finished_total{kind=\"bench\",state=\"cancelled\"} 1\n") != std::string::npos);
  CHECK(text.find("kseek_job_latency_seconds_bucket{kind=\"compile\",le=\"5\"} 0\n") != std::string::npos);
  CHECK(text.find("kseek_job_latency_seconds_bucket{kind=\"compile\",le=\"10\"} 1\n") != std::string::npos);
  CHECK(text.find("kseek_job_run_seconds_count{kind=\"compile\"} 1\n") != std::string::npos);
  // A cancelled queued job never ran.
  CHECK(text.find("kseek_job_run_seconds_count{kind=\"bench\"}") == std::string::npos);
  CHECK(text.find("kseek_llm_call_seconds_count 2\n") != std::string::npos);
  CHECK(text.find("kseek_llm_call_errors_total{code=\"UNAVAILABLE\"} 1\n") != std::string::npos);

  queued = 0;
  CHECK(metrics.Text().find("kseek_jobs{state=\"queued\"} 0\n") != std::string::npos);
}

TEST_CASE("metrics are served over HTTP on a port the kernel picks, and a taken port is an error") {
  ServerMetrics metrics;
  metrics.SetSources({.queue_depth = [] { return QueueDepth{4, 0}; }});
  absl::StatusOr<int> port = metrics.Serve("127.0.0.1:0");
  REQUIRE(port.ok());
  REQUIRE(*port > 0);
  absl::StatusOr<testing::HttpGetResult> scrape = testing::HttpGet(*port, "/metrics");
  REQUIRE(scrape.ok());
  REQUIRE(scrape->status_code == 200);
  REQUIRE(scrape->body.find("kseek_jobs{state=\"queued\"} 4") != std::string::npos);

  ServerMetrics second;
  absl::StatusOr<int> taken = second.Serve(absl::StrCat("127.0.0.1:", *port));
  REQUIRE_FALSE(taken.ok());
  REQUIRE(taken.status().message().find("cannot serve metrics on 127.0.0.1:") != std::string::npos);

  metrics.StopServing();
  REQUIRE_FALSE(testing::HttpGet(*port, "/metrics").ok());
}

// An LLM client whose calls take two seconds of the fake clock.
class SlowClient final : public llm::LlmClient {
 public:
  SlowClient(FakeClock* clock, absl::Status status) : clock_(clock), status_(std::move(status)) {}
  absl::StatusOr<llm::ChatResponse> Complete(const llm::ChatRequest&) override {
    clock_->Advance(absl::Seconds(2));
    if (!status_.ok()) return status_;
    return llm::ChatResponse{};
  }

 private:
  FakeClock* clock_;
  absl::Status status_;
};

TEST_CASE("a metered LLM client reports each call's latency and status and passes the result on") {
  FakeClock clock;
  std::vector<std::pair<absl::Duration, absl::StatusCode>> reports;
  MeteredLlmClient client(std::make_unique<SlowClient>(&clock, absl::UnavailableError("down")), &clock,
                          [&reports](absl::Duration latency, const absl::Status& status) {
                            reports.emplace_back(latency, status.code());
                          });
  absl::StatusOr<llm::ChatResponse> response = client.Complete({});
  REQUIRE(response.status().code() == absl::StatusCode::kUnavailable);
  REQUIRE(reports.size() == 1);
  REQUIRE(reports[0].first == absl::Seconds(2));
  REQUIRE(reports[0].second == absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace kseek
