#include "server/job_queue.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "server/job_runner.h"
#include "tests/server/queue_fixture.h"

namespace kseek {
namespace {

using kernelseek::v1::JobSpec;
using kernelseek::v1::SynchronizeRequest;

// Most tests submit before any worker has called, which Submit refuses
// unless told to queue anyway.
constexpr SubmitOptions kQueueAnyway{.wait_for_worker = true};

JobSpec CompileSpec(const std::string& arch = "sm_90a") {
  JobSpec spec;
  spec.set_kind(kernelseek::v1::JOB_KIND_COMPILE);
  spec.set_source_name("k.cu");
  spec.set_source("__global__ void k() {}");
  spec.mutable_compile()->set_arch(arch);
  return spec;
}

SynchronizeRequest Idle(const std::string& worker, const std::string& archs = "sm_90a,sm_100a") {
  SynchronizeRequest r;
  r.set_worker_name(worker);
  auto* p = r.add_capabilities();
  p->set_key("compile");
  p->set_value(archs);
  r.mutable_current_state()->mutable_idle();
  return r;
}

SynchronizeRequest Executing(const std::string& worker, const std::string& lease_id) {
  SynchronizeRequest r = Idle(worker);
  r.mutable_current_state()->mutable_executing()->set_lease_id(lease_id);
  r.mutable_current_state()->mutable_executing()->set_stage("compiling");
  return r;
}

SynchronizeRequest Completed(const std::string& worker, const std::string& lease_id, const std::string& log) {
  SynchronizeRequest r = Idle(worker);
  auto* c = r.mutable_current_state()->mutable_completed();
  c->set_lease_id(lease_id);
  c->mutable_result()->mutable_compile()->set_success(true);
  c->mutable_result()->mutable_compile()->set_log(log);
  return r;
}

using Fixture = testing::QueueFixture;

TEST_CASE("a job goes to a worker whose capabilities match, and only to one") {
  Fixture f;
  std::string id = f.queue.Submit("ana", kDefaultTeam, CompileSpec("sm_100a"), kQueueAnyway).value();

  auto other = f.queue.Synchronize(Idle("old-nvcc", "sm_80,sm_90a")).value();
  REQUIRE(other.desired_state.has_idle());

  auto got = f.queue.Synchronize(Idle("w1")).value();
  REQUIRE(got.desired_state.has_execute());
  REQUIRE(got.desired_state.execute().job_id() == id);
  REQUIRE(got.desired_state.execute().spec().source() == "__global__ void k() {}");
  REQUIRE(got.next_sync_deadline == f.clock.Now() + absl::Seconds(10));

  REQUIRE(f.queue.Synchronize(Idle("w2")).value().desired_state.has_idle());
  REQUIRE(f.queue.GetJob(id)->state() == kernelseek::v1::JOB_STATE_LEASED);
  REQUIRE(f.queue.GetJob(id)->worker() == "w1");
}

TEST_CASE("syncing while executing keeps the lease alive and shows the stage") {
  Fixture f;
  std::string id = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  std::string lease = f.queue.Synchronize(Idle("w1")).value().desired_state.execute().lease_id();
  for (int i = 0; i < 5; ++i) {
    f.clock.Advance(absl::Seconds(8));
    auto r = f.queue.Synchronize(Executing("w1", lease)).value();
    REQUIRE(r.desired_state.execute().lease_id() == lease);
  }
  REQUIRE(f.queue.GetJob(id)->stage() == "compiling");
  REQUIRE(f.queue.GetJob(id)->attempts() == 1);
}

TEST_CASE("a worker that misses its deadline loses the job to another worker") {
  Fixture f;
  std::string id = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  std::string lease1 = f.queue.Synchronize(Idle("w1")).value().desired_state.execute().lease_id();
  f.clock.Advance(absl::Seconds(11));
  f.queue.ExpireLeases();
  REQUIRE(f.queue.GetJob(id)->state() == kernelseek::v1::JOB_STATE_QUEUED);

  auto r2 = f.queue.Synchronize(Idle("w2")).value();
  REQUIRE(r2.desired_state.execute().job_id() == id);
  std::string lease2 = r2.desired_state.execute().lease_id();
  REQUIRE(lease2 != lease1);

  // w1 comes back late: told to drop the job, and its result is ignored.
  auto late = f.queue.Synchronize(Executing("w1", lease1)).value();
  REQUIRE_FALSE((late.desired_state.has_execute() && late.desired_state.execute().lease_id() == lease1));
  f.queue.Synchronize(Completed("w1", lease1, "from w1")).value();
  REQUIRE(f.queue.GetJob(id)->state() == kernelseek::v1::JOB_STATE_LEASED);

  f.queue.Synchronize(Completed("w2", lease2, "from w2")).value();
  auto job = f.queue.GetJob(id).value();
  REQUIRE(job.state() == kernelseek::v1::JOB_STATE_SUCCEEDED);
  REQUIRE(job.result().compile().log() == "from w2");
  REQUIRE(job.attempts() == 2);

  // A duplicate of the completion changes nothing.
  f.queue.Synchronize(Completed("w2", lease2, "again")).value();
  REQUIRE(f.queue.GetJob(id)->result().compile().log() == "from w2");
  REQUIRE(f.queue.ListJobs({.team = kDefaultTeam, .limit = 10})->size() == 1);
}

TEST_CASE("when attempts are used up the job fails with the reason") {
  Fixture f;
  std::string id = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  for (int attempt = 0; attempt < 2; ++attempt) {
    REQUIRE(f.queue.Synchronize(Idle("w1")).value().desired_state.has_execute());
    f.clock.Advance(absl::Seconds(11));
    f.queue.ExpireLeases();
  }
  auto job = f.queue.GetJob(id).value();
  REQUIRE(job.state() == kernelseek::v1::JOB_STATE_FAILED);
  REQUIRE_THAT(job.failure(), Catch::Contains("gave up after 2 attempts") && Catch::Contains("missed its sync deadline"));
  REQUIRE(f.queue.Synchronize(Idle("w1")).value().desired_state.has_idle());
}

TEST_CASE("a worker that comes back idle has lost its job, which is re-queued") {
  Fixture f;
  std::string id = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  REQUIRE(f.queue.Synchronize(Idle("w1")).value().desired_state.has_execute());
  // Same worker restarts and reports idle: it gets the job again, as attempt 2.
  auto again = f.queue.Synchronize(Idle("w1")).value();
  REQUIRE(again.desired_state.execute().job_id() == id);
  REQUIRE(f.queue.GetJob(id)->attempts() == 2);
}

TEST_CASE("a worker whose process died by a signal mid-job fails that job at once, not re-queued") {
  Fixture f;
  std::string id = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  std::string other = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  auto got = f.queue.Synchronize(Idle("w1")).value();
  REQUIRE(got.desired_state.execute().job_id() == id);
  // The supervisor started the worker again and it reports the crash.
  SynchronizeRequest back = Idle("w1");
  back.mutable_crash()->set_lease_id(got.desired_state.execute().lease_id());
  back.mutable_crash()->set_reason("killed by signal 11 (Segmentation fault)");
  auto next = f.queue.Synchronize(back).value();
  kernelseek::v1::Job job = *f.queue.GetJob(id);
  CHECK(job.state() == kernelseek::v1::JOB_STATE_FAILED);
  CHECK(job.attempts() == 1);
  CHECK_THAT(job.failure(), Catch::Contains("worker w1 died while running this job (killed by signal 11"));
  CHECK_THAT(job.failure(), Catch::Contains("not retried"));
  // The worker goes on with the next job; a stale report of the same lease
  // changes nothing.
  REQUIRE(next.desired_state.execute().job_id() == other);
  REQUIRE(f.queue.Synchronize(back).value().desired_state.has_execute());
  CHECK(f.queue.GetJob(id)->state() == kernelseek::v1::JOB_STATE_FAILED);
}

TEST_CASE("a second worker process with a live worker's name is refused, and takes the name once it is gone") {
  Fixture f;
  SynchronizeRequest first = Idle("gpu-01");
  first.set_instance_id("aaaa");
  REQUIRE(f.queue.Synchronize(first).ok());
  SynchronizeRequest second = Idle("gpu-01");
  second.set_instance_id("bbbb");
  absl::StatusOr<SyncResult> refused = f.queue.Synchronize(second);
  CHECK(refused.status().code() == absl::StatusCode::kAlreadyExists);
  CHECK_THAT(std::string(refused.status().message()),
             Catch::Contains("a worker named gpu-01 is already connected") && Catch::Contains("--name"));
  // The first keeps its name.
  CHECK(f.queue.Synchronize(first).ok());
  // Silent past a lease timeout and a poll: gone, and the name is free.
  f.clock.Advance(f.options.lease_timeout + f.options.idle_poll + absl::Seconds(1));
  CHECK(f.queue.Synchronize(second).ok());
}

TEST_CASE("a worker whose dropped job still runs takes no lease until it says it is free") {
  Fixture f;
  std::string id = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  SynchronizeRequest draining = Idle("w1");
  draining.set_draining("lease L0.1, which the server moved off, still runs here");
  auto busy = f.queue.Synchronize(draining).value();
  CHECK(busy.desired_state.has_idle());
  CHECK(f.queue.GetJob(id)->state() == kernelseek::v1::JOB_STATE_QUEUED);
  auto free = f.queue.Synchronize(Idle("w1")).value();
  CHECK(free.desired_state.execute().job_id() == id);
}

TEST_CASE("a worker reporting a lapsed lease is told to drop it and gets no other job in that answer") {
  Fixture f;
  std::string id = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  auto got = f.queue.Synchronize(Idle("w1")).value();
  const std::string lease = got.desired_state.execute().lease_id();
  f.clock.Advance(f.options.lease_timeout + absl::Seconds(1));
  // Lapsed and re-queued; w1 still reports it running.
  auto answer = f.queue.Synchronize(Executing("w1", lease)).value();
  CHECK(answer.desired_state.has_idle());
  CHECK(f.queue.GetJob(id)->state() == kernelseek::v1::JOB_STATE_QUEUED);
}

TEST_CASE("cancel ends a queued or leased job once and records who cancelled it") {
  Fixture f;
  std::string queued = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  std::string leased = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  std::string other = f.queue.Submit("ana", kDefaultTeam, CompileSpec("sm_100a"), kQueueAnyway).value();
  // w1 takes the first one; make the second the one it runs.
  auto first = f.queue.Synchronize(Idle("w1")).value();
  REQUIRE(first.desired_state.execute().job_id() == queued);
  absl::StatusOr<kernelseek::v1::Job> cancelled = f.queue.Cancel("carla", queued);
  REQUIRE(cancelled.ok());
  CHECK(cancelled->state() == kernelseek::v1::JOB_STATE_CANCELLED);
  CHECK(cancelled->failure() == "cancelled by carla");
  CHECK(cancelled->cancelled_by() == "carla");
  CHECK(cancelled->user() == "ana");
  // The worker still running it is told to drop it.
  auto told = f.queue.Synchronize(Executing("w1", first.desired_state.execute().lease_id())).value();
  CHECK(told.desired_state.has_idle());
  // A queued job is cancelled before any worker sees it; twice is refused.
  REQUIRE(f.queue.Cancel("ana", other).ok());
  CHECK(f.queue.Cancel("ana", other).status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(f.queue.Cancel("ana", other).status().message()), Catch::Contains("CANCELLED"));
  auto next = f.queue.Synchronize(Idle("w1")).value();
  CHECK(next.desired_state.execute().job_id() == leased);
  CHECK(f.queue.Cancel("ana", "999").status().code() == absl::StatusCode::kNotFound);
}

TEST_CASE("an error report fails the job with the worker's message") {
  Fixture f;
  std::string id = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  std::string lease = f.queue.Synchronize(Idle("w1")).value().desired_state.execute().lease_id();
  SynchronizeRequest r = Idle("w1");
  r.mutable_current_state()->mutable_completed()->set_lease_id(lease);
  r.mutable_current_state()->mutable_completed()->set_error("nvcc not found at /nope");
  f.queue.Synchronize(r).value();
  REQUIRE(f.queue.GetJob(id)->state() == kernelseek::v1::JOB_STATE_FAILED);
  REQUIRE(f.queue.GetJob(id)->failure() == "nvcc not found at /nope");
}

TEST_CASE("jobs are handed out in submission order") {
  Fixture f;
  std::string a = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  std::string b = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  REQUIRE(f.queue.Synchronize(Idle("w1")).value().desired_state.execute().job_id() == a);
  REQUIRE(f.queue.Synchronize(Idle("w2")).value().desired_state.execute().job_id() == b);
}

TEST_CASE("unknown capability keys are rejected") {
  Fixture f;
  SynchronizeRequest r = Idle("w1");
  auto* p = r.add_capabilities();
  p->set_key("colour");
  p->set_value("blue");
  auto result = f.queue.Synchronize(r);
  REQUIRE(result.status().code() == absl::StatusCode::kInvalidArgument);
  REQUIRE_THAT(std::string(result.status().message()), Catch::Contains("colour"));
}

TEST_CASE("bad submissions are refused and nothing is stored") {
  Fixture f;
  JobSpec unknown_arch = CompileSpec("sm_42");
  auto r1 = f.queue.Submit("ana", kDefaultTeam, unknown_arch, kQueueAnyway);
  REQUIRE(r1.status().code() == absl::StatusCode::kInvalidArgument);
  REQUIRE_THAT(std::string(r1.status().message()), Catch::Contains("sm_42"));

  JobSpec big = CompileSpec();
  big.set_source(std::string((1 << 20) + 1, 'x'));
  auto r2 = f.queue.Submit("ana", kDefaultTeam, big, kQueueAnyway);
  REQUIRE(r2.status().code() == absl::StatusCode::kInvalidArgument);
  REQUIRE_THAT(std::string(r2.status().message()), Catch::Contains("limit"));

  for (const char* define : {"X -o /etc/x", "-ccbin=/bin/sh", "--run", "A,-o/etc/x"}) {
    JobSpec bad = CompileSpec();
    bad.mutable_compile()->add_defines(define);
    auto r = f.queue.Submit("ana", kDefaultTeam, bad, kQueueAnyway);
    INFO(define);
    REQUIRE(r.status().code() == absl::StatusCode::kInvalidArgument);
  }
  JobSpec bad_name = CompileSpec();
  bad_name.set_source_name("../../etc/passwd");
  REQUIRE(f.queue.Submit("ana", kDefaultTeam, bad_name, kQueueAnyway).status().code() == absl::StatusCode::kInvalidArgument);

  REQUIRE(f.queue.ListJobs({.team = kDefaultTeam, .limit = 10})->empty());
}

TEST_CASE("after a restart queued jobs are queued and a leased job can still be completed") {
  Fixture f;
  std::string leased = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  std::string queued = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  std::string lease = f.queue.Synchronize(Idle("w1")).value().desired_state.execute().lease_id();

  JobQueue restarted(f.store.get(), &f.clock, &f.problems, f.options);
  REQUIRE(restarted.Recover().ok());
  REQUIRE(restarted.Synchronize(Idle("w2")).value().desired_state.execute().job_id() == queued);
  restarted.Synchronize(Completed("w1", lease, "survived")).value();
  REQUIRE(restarted.GetJob(leased)->state() == kernelseek::v1::JOB_STATE_SUCCEEDED);
  REQUIRE(restarted.GetJob(leased)->result().compile().log() == "survived");
}

JobSpec RunSpec(kernelseek::v1::JobKind kind, const std::string& scenarios, const std::string& baseline = "") {
  JobSpec spec = CompileSpec();
  spec.set_kind(kind);
  spec.mutable_run()->set_problem("attention_fwd");
  spec.mutable_run()->set_scenarios(scenarios);
  spec.mutable_run()->set_baseline(baseline);
  return spec;
}

TEST_CASE("verify and bench jobs get defaults and need a GPU of the arch") {
  Fixture f;
  std::string id = f.queue.Submit("ana", kDefaultTeam, RunSpec(kernelseek::v1::JOB_KIND_BENCH, ""), kQueueAnyway).value();
  auto job = f.queue.GetJob(id).value();
  REQUIRE(job.spec().run().scenarios() == "perf");
  REQUIRE(job.spec().run().baseline() == "cudnn");
  REQUIRE(job.spec().run().max_seconds_per_scenario() > 0);
  REQUIRE(job.requirements_size() == 3);
  REQUIRE(job.requirements(0).key() == "arch");
  REQUIRE(job.requirements(0).value() == "sm_90");
  // The problem's files as the server has them.
  const std::string attention =
      ProblemCapability("attention_fwd", (*f.problems.Find("attention_fwd"))->digest());
  REQUIRE(job.requirements(2).key() == "problems");
  REQUIRE(job.requirements(2).value() == attention);
  REQUIRE(job.spec().run().problem_digest().manifest_sha256().size() == 64);

  // A compile-only worker cannot take it, nor a Hopper worker without the
  // problem or with other files for it; a Hopper worker with the server's can.
  REQUIRE(f.queue.Synchronize(Idle("cpu")).value().desired_state.has_idle());
  auto hopper = [](const std::string& name, const std::string& problems) {
    SynchronizeRequest gpu = Idle(name);
    auto* arch = gpu.mutable_capabilities()->Add();
    arch->set_key("arch");
    arch->set_value("sm_90");
    if (!problems.empty()) {
      auto* p = gpu.mutable_capabilities()->Add();
      p->set_key("problems");
      p->set_value(problems);
    }
    std::sort(gpu.mutable_capabilities()->begin(), gpu.mutable_capabilities()->end(),
              [](const auto& a, const auto& b) { return a.key() < b.key(); });
    return gpu;
  };
  REQUIRE(f.queue.Synchronize(hopper("h200-none", "")).value().desired_state.has_idle());
  REQUIRE(f.queue.Synchronize(hopper("h200-other", "attention_fwd@0123456789abcdef")).value().desired_state.has_idle());
  REQUIRE(f.queue.Synchronize(hopper("h200", "gemm@0123456789abcdef," + attention))
              .value()
              .desired_state.execute()
              .job_id() == id);
}

TEST_CASE("verify and bench jobs with unknown problems, scenarios or baselines are refused") {
  Fixture f;
  JobSpec unknown_problem = RunSpec(kernelseek::v1::JOB_KIND_VERIFY, "all");
  unknown_problem.mutable_run()->set_problem("softmax_9000");
  auto r1 = f.queue.Submit("ana", kDefaultTeam, unknown_problem, kQueueAnyway);
  REQUIRE(r1.status().code() == absl::StatusCode::kInvalidArgument);
  REQUIRE_THAT(std::string(r1.status().message()), Catch::Contains("softmax_9000"));

  auto r2 = f.queue.Submit("ana", kDefaultTeam, RunSpec(kernelseek::v1::JOB_KIND_VERIFY, "no-such-scenario"), kQueueAnyway);
  REQUIRE(r2.status().code() == absl::StatusCode::kInvalidArgument);
  REQUIRE_THAT(std::string(r2.status().message()), Catch::Contains("no-such-scenario"));

  auto r3 = f.queue.Submit("ana", kDefaultTeam, RunSpec(kernelseek::v1::JOB_KIND_BENCH, "perf", "tensorrt"), kQueueAnyway);
  REQUIRE(r3.status().code() == absl::StatusCode::kInvalidArgument);
  REQUIRE_THAT(std::string(r3.status().message()), Catch::Contains("tensorrt"));
  auto r4 = f.queue.Submit("ana", kDefaultTeam, RunSpec(kernelseek::v1::JOB_KIND_BENCH, "perf", "fa3,cudnn,fa3"), kQueueAnyway);
  REQUIRE(r4.status().code() == absl::StatusCode::kInvalidArgument);
  REQUIRE_THAT(std::string(r4.status().message()), Catch::Contains("appears twice"));
  REQUIRE(f.queue.ListJobs({.team = kDefaultTeam, .limit = 10})->empty());
}

TEST_CASE("a bench takes several baselines, kept in the order given") {
  Fixture f;
  std::string id =
      f.queue.Submit("ana", kDefaultTeam, RunSpec(kernelseek::v1::JOB_KIND_BENCH, "perf", "fa3,cudnn"), kQueueAnyway).value();
  REQUIRE(f.queue.GetJob(id)->spec().run().baseline() == "fa3,cudnn");
}

TEST_CASE("bench rounds default to one, at most 10, and are refused on other kinds") {
  Fixture f;
  std::string id = f.queue.Submit("ana", kDefaultTeam, RunSpec(kernelseek::v1::JOB_KIND_BENCH, "perf"), kQueueAnyway).value();
  CHECK(f.queue.GetJob(id).value().spec().run().rounds() == 1);
  for (int n : {-1, 11}) {
    JobSpec spec = RunSpec(kernelseek::v1::JOB_KIND_BENCH, "perf");
    spec.mutable_run()->set_rounds(n);
    auto r = f.queue.Submit("ana", kDefaultTeam, spec, kQueueAnyway);
    INFO(n);
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(r.status().message()),
               Catch::Contains(absl::StrCat("rounds ", n, " is outside [1, 10]")));
  }
  JobSpec verify = RunSpec(kernelseek::v1::JOB_KIND_VERIFY, "all");
  verify.mutable_run()->set_rounds(3);
  auto r = f.queue.Submit("ana", kDefaultTeam, verify, kQueueAnyway);
  CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(r.status().message()), Catch::Contains("rounds (3) are for bench jobs only, not a verify job"));
  JobSpec three = RunSpec(kernelseek::v1::JOB_KIND_BENCH, "perf");
  three.mutable_run()->set_rounds(3);
  std::string id3 = f.queue.Submit("ana", kDefaultTeam, three, kQueueAnyway).value();
  CHECK(f.queue.GetJob(id3).value().spec().run().rounds() == 3);
}

TEST_CASE("hotspots are for profile jobs only, at most 50") {
  Fixture f;
  for (int n : {-1, 51, 1000}) {
    JobSpec spec = RunSpec(kernelseek::v1::JOB_KIND_PROFILE, "perf-bf16-d64-full-s512");
    spec.mutable_run()->set_hotspots(n);
    auto r = f.queue.Submit("ana", kDefaultTeam, spec, kQueueAnyway);
    INFO(n);
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(r.status().message()),
               Catch::Contains(absl::StrCat("hotspots ", n, " is outside [0, 50]")));
  }
  for (auto kind : {kernelseek::v1::JOB_KIND_VERIFY, kernelseek::v1::JOB_KIND_BENCH}) {
    JobSpec spec = RunSpec(kind, "");
    spec.mutable_run()->set_hotspots(5);
    auto r = f.queue.Submit("ana", kDefaultTeam, spec, kQueueAnyway);
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(r.status().message()), Catch::Contains("hotspots (5) is for profile jobs only"));
  }
  REQUIRE(f.queue.ListJobs({.team = kDefaultTeam, .limit = 10})->empty());

  for (int n : {1, 50}) {
    JobSpec spec = RunSpec(kernelseek::v1::JOB_KIND_PROFILE, "perf-bf16-d64-full-s512");
    spec.mutable_run()->set_hotspots(n);
    std::string id = f.queue.Submit("ana", kDefaultTeam, spec, kQueueAnyway).value();
    CHECK(f.queue.GetJob(id).value().spec().run().hotspots() == n);
  }
}

TEST_CASE("a profile job names exactly one scenario id and needs a worker with ncu") {
  Fixture f;
  for (const char* scenarios :
       {"", "all", "perf", "perf-bf16-d64-full-s512,perf-bf16-d64-causal-s512", "no-such-scenario"}) {
    auto r = f.queue.Submit("ana", kDefaultTeam, RunSpec(kernelseek::v1::JOB_KIND_PROFILE, scenarios), kQueueAnyway);
    INFO(scenarios);
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(r.status().message()), Catch::Contains("exactly one scenario id"));
  }
  auto with_baseline =
      f.queue.Submit("ana", kDefaultTeam, RunSpec(kernelseek::v1::JOB_KIND_PROFILE, "perf-bf16-d64-full-s512", "cudnn"),
                     kQueueAnyway);
  CHECK(with_baseline.status().code() == absl::StatusCode::kInvalidArgument);
  REQUIRE(f.queue.ListJobs({.team = kDefaultTeam, .limit = 10})->empty());

  std::string id =
      f.queue.Submit("ana", kDefaultTeam, RunSpec(kernelseek::v1::JOB_KIND_PROFILE, "perf-bf16-d64-full-s512"), kQueueAnyway).value();
  auto job = f.queue.GetJob(id).value();
  REQUIRE(job.requirements_size() == 4);
  CHECK(job.requirements(2).key() == "ncu");
  CHECK(job.requirements(2).value() == "*");
  CHECK(job.requirements(3).key() == "problems");

  // A Hopper worker without Nsight Compute cannot take it; one with any version can.
  auto add = [](SynchronizeRequest* r, const std::string& key, const std::string& value) {
    auto* p = r->mutable_capabilities()->Add();
    p->set_key(key);
    p->set_value(value);
    std::sort(r->mutable_capabilities()->begin(), r->mutable_capabilities()->end(),
              [](const auto& a, const auto& b) { return a.key() < b.key(); });
  };
  SynchronizeRequest plain = Idle("h200-plain");
  add(&plain, "arch", "sm_90");
  add(&plain, "problems", f.problems.Capability());
  REQUIRE(f.queue.Synchronize(plain).value().desired_state.has_idle());
  SynchronizeRequest profiler = Idle("h200-ncu");
  add(&profiler, "arch", "sm_90");
  add(&profiler, "ncu", "2025.3.1");
  add(&profiler, "problems", f.problems.Capability());
  REQUIRE(f.queue.Synchronize(profiler).value().desired_state.execute().job_id() == id);
}

TEST_CASE("Submit refuses a job no connected worker could run, naming what is missing, and stores nothing") {
  Fixture f;
  absl::StatusOr<std::string> alone = f.queue.Submit("ana", kDefaultTeam, CompileSpec());
  CHECK(alone.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(alone.status().message()), Catch::Contains("no worker is connected"));

  REQUIRE(f.queue.Synchronize(Idle("cpu-1")).ok());
  absl::StatusOr<std::string> verify = f.queue.Submit("ana", kDefaultTeam, RunSpec(kernelseek::v1::JOB_KIND_VERIFY, "all"));
  CHECK(verify.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(verify.status().message()) ==
        "no connected worker can run this verify job: no connected worker has arch=sm_90 (workers: cpu-1 (no arch, "
        "compile=sm_90a,sm_100a, no problems)); nothing was queued");
  CHECK(f.store->ListJobs({.team = kDefaultTeam}).value().empty());

  // A compile the same worker can run is queued; the verify only when asked.
  CHECK(f.queue.Submit("ana", kDefaultTeam, CompileSpec()).ok());
  std::string waiting = f.queue.Submit("ana", kDefaultTeam, RunSpec(kernelseek::v1::JOB_KIND_VERIFY, "all"), kQueueAnyway).value();
  kernelseek::v1::Job job = f.queue.GetJob(waiting).value();
  CHECK(job.queue_position() == 0);
  CHECK_THAT(job.waiting_for(), Catch::StartsWith("no connected worker has arch=sm_90 (workers: cpu-1"));

  // A worker not heard from for offline_after no longer counts, but is named.
  f.clock.Advance(f.options.offline_after + absl::Seconds(1));
  absl::StatusOr<std::string> offline = f.queue.Submit("ana", kDefaultTeam, CompileSpec());
  CHECK(offline.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(offline.status().message()),
             Catch::Contains("no worker is connected; cpu-1 is offline"));
}

TEST_CASE("a queued job's position counts the older jobs its workers take first, and it says why it waits") {
  Fixture f;
  REQUIRE(f.queue.Synchronize(Idle("w90", "sm_90a")).ok());
  REQUIRE(f.queue.Synchronize(Idle("w100", "sm_100a")).ok());
  std::string first = f.queue.Submit("ana", kDefaultTeam, CompileSpec("sm_90a")).value();
  kernelseek::v1::Job job = f.queue.GetJob(first).value();
  CHECK(job.queue_position() == 1);
  CHECK(job.waiting_for() == "w90 is idle and takes it at its next call");
  REQUIRE(f.queue.Synchronize(Idle("w90", "sm_90a")).value().desired_state.execute().job_id() == first);

  std::string other_arch = f.queue.Submit("ana", kDefaultTeam, CompileSpec("sm_100a")).value();
  std::string next = f.queue.Submit("ana", kDefaultTeam, CompileSpec("sm_90a")).value();
  std::string last = f.queue.Submit("ana", kDefaultTeam, CompileSpec("sm_90a")).value();
  const std::string busy = absl::StrCat("its only matching worker is busy (w90 running job ", first, ")");
  // The sm_100a job is older but only w100 can run it: it delays neither.
  CHECK(f.queue.GetJob(next).value().queue_position() == 1);
  CHECK(f.queue.GetJob(next).value().waiting_for() == busy);
  CHECK(f.queue.GetJob(last).value().queue_position() == 2);
  CHECK(f.queue.GetJob(last).value().waiting_for() == "1 job ahead, " + busy);
  CHECK(f.queue.GetJob(other_arch).value().queue_position() == 1);

  std::vector<kernelseek::v1::Job> listed = f.queue.ListJobs({.team = kDefaultTeam}).value();
  REQUIRE(listed.size() == 4);
  CHECK(listed[0].id() == last);
  CHECK(listed[0].queue_position() == 2);
  CHECK(listed[0].stage() == "queued");
  CHECK(listed[3].queue_position() == 0);  // leased: no place in the queue
  CHECK(listed[3].waiting_for().empty());
}

TEST_CASE("unknown job ids are NOT_FOUND, malformed ones INVALID_ARGUMENT") {
  Fixture f;
  REQUIRE(f.queue.GetJob("999").status().code() == absl::StatusCode::kNotFound);
  REQUIRE(f.queue.GetJob("abc").status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("a session's job wait ends CANCELLED, not \"did not finish\", when the queue shuts down") {
  Fixture f;
  // A worker, busy with another job, that could run the session's job.
  REQUIRE(f.queue.Submit("alice", kDefaultTeam, CompileSpec(), kQueueAnyway).ok());
  REQUIRE(f.queue.Synchronize(Idle("w1")).value().desired_state.has_execute());
  QueueJobRunner runner(&f.queue, absl::Minutes(30));
  absl::StatusOr<kernelseek::v1::Job> result;
  std::thread waiting([&] { result = runner.Run("alice", kDefaultTeam, CompileSpec(), [] { return false; }); });
  absl::SleepFor(absl::Milliseconds(200));
  f.queue.Shutdown();
  waiting.join();
  CHECK(result.status().code() == absl::StatusCode::kCancelled);
  CHECK_THAT(std::string(result.status().message()), Catch::Contains("shutting down"));
}

TEST_CASE("a job's watchers are woken by its own changes only, not by another job's") {
  Fixture f;
  const std::string a = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  const std::string b = f.queue.Submit("bo", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  int woken_a = 0;
  int woken_b = 0;
  absl::StatusOr<ChangeNotifier::Subscription> watch_a = f.queue.SubscribeJob(a, [&] { ++woken_a; });
  absl::StatusOr<ChangeNotifier::Subscription> watch_b = f.queue.SubscribeJob(b, [&] { ++woken_b; });
  REQUIRE(watch_a.ok());
  REQUIRE(watch_b.ok());

  // w1 takes A (the oldest): A changed, and B moved up the queue.
  const auto lease_a = f.queue.Synchronize(Idle("w1")).value().desired_state.execute();
  REQUIRE(lease_a.job_id() == a);
  CHECK(woken_a >= 1);
  CHECK(woken_b >= 1);

  // From here on A is leased: B's lease, stage, progress and end leave A's
  // watchers asleep.
  woken_a = 0;
  woken_b = 0;
  const auto lease_b = f.queue.Synchronize(Idle("w2")).value().desired_state.execute();
  REQUIRE(lease_b.job_id() == b);
  REQUIRE(f.queue.Synchronize(Executing("w2", lease_b.lease_id())).ok());
  f.clock.Advance(absl::Seconds(1));
  REQUIRE(f.queue.Synchronize(Completed("w2", lease_b.lease_id(), "ok")).ok());
  CHECK(f.queue.GetJob(b)->state() == kernelseek::v1::JOB_STATE_SUCCEEDED);
  CHECK(woken_b >= 3);
  CHECK(woken_a == 0);

  // A's own stage wakes only A's.
  woken_b = 0;
  REQUIRE(f.queue.Synchronize(Executing("w1", lease_a.lease_id())).ok());
  CHECK(woken_a == 1);
  CHECK(woken_b == 0);

  // A destroyed subscription is not called again.
  *watch_a = ChangeNotifier::Subscription();
  REQUIRE(f.queue.Cancel("ana", a).ok());
  CHECK(woken_a == 1);
  CHECK(f.queue.SubscribeJob("abc", [] {}).status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("a job re-entering the queue wakes the watchers of the jobs queued behind it, not of leased ones") {
  Fixture f;
  const std::string a = f.queue.Submit("ana", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  const std::string b = f.queue.Submit("bo", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  const std::string c = f.queue.Submit("cy", kDefaultTeam, CompileSpec(), kQueueAnyway).value();
  const auto lease_a = f.queue.Synchronize(Idle("w1")).value().desired_state.execute();
  REQUIRE(lease_a.job_id() == a);
  const auto lease_b = f.queue.Synchronize(Idle("w2")).value().desired_state.execute();
  REQUIRE(lease_b.job_id() == b);
  int woken_b = 0;
  int woken_c = 0;
  absl::StatusOr<ChangeNotifier::Subscription> watch_b = f.queue.SubscribeJob(b, [&] { ++woken_b; });
  absl::StatusOr<ChangeNotifier::Subscription> watch_c = f.queue.SubscribeJob(c, [&] { ++woken_c; });
  REQUIRE(watch_b.ok());
  REQUIRE(watch_c.ok());

  // w1 goes silent, w2 keeps B's lease: A's lease lapses and A is queued
  // again, ahead of C.
  f.clock.Advance(absl::Seconds(6));
  REQUIRE(f.queue.Synchronize(Executing("w2", lease_b.lease_id())).ok());
  f.clock.Advance(absl::Seconds(5));
  const auto retaken = f.queue.Synchronize(Idle("w3")).value().desired_state.execute();
  CHECK(retaken.job_id() == a);
  CHECK(f.queue.GetJob(b)->state() == kernelseek::v1::JOB_STATE_LEASED);
  CHECK(woken_c >= 1);
  // B is leased: where A stands in the queue is nothing to it.
  CHECK(woken_b == 1);  // w2's own sync (its stage) only
}

TEST_CASE("an idle worker's long poll is woken when work is queued and at shutdown") {
  Fixture f;
  int woken = 0;
  ChangeNotifier::Subscription work = f.queue.SubscribeWork([&] { ++woken; });
  REQUIRE(f.queue.Synchronize(Idle("w1")).value().desired_state.has_idle());
  CHECK(woken == 0);
  const std::string id = f.queue.Submit("ana", kDefaultTeam, CompileSpec()).value();
  CHECK(woken == 1);
  REQUIRE(f.queue.Synchronize(Idle("w1")).value().desired_state.execute().job_id() == id);
  CHECK(woken == 1);  // leasing takes work away
  f.queue.Shutdown();
  CHECK(woken == 2);
}

}  // namespace
}  // namespace kseek
