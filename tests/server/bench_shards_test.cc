// A bench sharded over several GPU workers, scheduled by the real JobQueue
// with fake workers (Synchronize calls) and a fake runner that makes a
// deterministic result per scenario, so that a merged result can be compared
// with the one-GPU result of the same job.
#include "server/bench_shards.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/clock.h"
#include "common/run_limits.h"
#include "common/run_summary.h"
#include "server/job_queue.h"
#include "tests/server/queue_fixture.h"

namespace kseek {
namespace {

using kernelseek::v1::JobSpec;
using kernelseek::v1::RunResult;
using kernelseek::v1::SynchronizeRequest;

constexpr SubmitOptions kQueueAnyway{.wait_for_worker = true};

JobSpec BenchSpec(const std::string& scenarios, int shards) {
  JobSpec spec;
  spec.set_kind(kernelseek::v1::JOB_KIND_BENCH);
  spec.set_source_name("k.cu");
  spec.set_source("__global__ void k() {}");
  spec.mutable_compile()->set_arch("sm_90a");
  spec.mutable_run()->set_problem("attention_fwd");
  spec.mutable_run()->set_scenarios(scenarios);
  spec.mutable_run()->set_baseline("fa3,cudnn");
  spec.mutable_run()->set_shards(shards);
  return spec;
}

// The repository's problem files, as the fixture's server has them: loaded
// once, not for every worker a test makes.
const std::string kRepositoryProblems = ProblemCatalog::Load(KSEEK_SCENARIOS_DIR)->Capability();

SynchronizeRequest GpuWorker(const std::string& name, const std::string& gpu = "NVIDIA H200",
                             const std::string& driver = "13.0") {
  SynchronizeRequest r;
  r.set_worker_name(name);
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"arch", "sm_90"},
           {"compile", "sm_90a"},
           {"driver", driver},
           {"gpu", gpu},
           {"problems", kRepositoryProblems}}) {
    auto* p = r.add_capabilities();
    p->set_key(key);
    p->set_value(value);
  }
  r.mutable_current_state()->mutable_idle();
  return r;
}

SynchronizeRequest Executing(SynchronizeRequest worker, const std::string& lease_id) {
  worker.mutable_current_state()->mutable_executing()->set_lease_id(lease_id);
  return worker;
}

// What a worker would report for `spec`: every selected scenario, with
// timings that depend only on the scenario id, for both baselines.
RunResult FakeRun(const JobSpec& spec, const ProblemCatalog& problems, const std::string& gpu) {
  RunResult r;
  r.mutable_compile()->set_success(true);
  r.set_gpu(gpu);
  r.set_driver("13.0");
  r.set_baseline("fa3 (fa3-fwd 0.0.3)");
  const Problem* problem = *problems.Find(spec.run().problem());
  absl::StatusOr<std::vector<const kernelseek::v1::ScenarioSpec*>> selected = problem->Select(spec.run().scenarios());
  REQUIRE(selected.ok());
  for (const kernelseek::v1::ScenarioSpec* s : *selected) {
    const size_t h = std::hash<std::string>()(s->id());
    kernelseek::v1::ScenarioResult* sc = r.add_scenarios();
    sc->set_id(s->id());
    sc->set_passed(h % 17 != 0);
    sc->set_median_ms(1.0 + static_cast<double>(h % 1000) / 100);
    sc->set_tflops(100.0 + static_cast<double>(h % 300));
    sc->set_baseline_median_ms(sc->median_ms() * (0.8 + static_cast<double>(h % 40) / 100));
    for (const char* name : {"fa3", "cudnn"}) {
      kernelseek::v1::BaselineFigure* f = sc->add_baselines();
      f->set_name(name);
      f->set_median_ms(name[0] == 'f' ? sc->baseline_median_ms() : sc->median_ms() * 1.05);
    }
  }
  for (const char* name : {"fa3", "cudnn"}) {
    kernelseek::v1::BaselineSummary* b = r.add_baselines();
    b->set_name(name);
    b->set_version(absl::StrCat(name, " 1.0"));
  }
  SummarizeRun(&r);
  return r;
}

SynchronizeRequest Completed(SynchronizeRequest worker, const std::string& lease_id, const RunResult& run) {
  auto* c = worker.mutable_current_state()->mutable_completed();
  c->set_lease_id(lease_id);
  *c->mutable_result()->mutable_run() = run;
  return worker;
}

// The ids of the perf set, in its order.
std::vector<std::string> PerfIds(const ProblemCatalog& problems) {
  absl::StatusOr<const Problem*> problem = problems.Find("attention_fwd");
  REQUIRE(problem.ok());
  absl::StatusOr<std::vector<const kernelseek::v1::ScenarioSpec*>> selected = (*problem)->Select("perf");
  REQUIRE(selected.ok());
  std::vector<std::string> ids;
  for (const kernelseek::v1::ScenarioSpec* s : *selected) ids.push_back(s->id());
  return ids;
}

struct Fixture : testing::QueueFixture {
  // The worker's answer: the lease and spec it was given, or none.
  std::optional<kernelseek::v1::DesiredState::Execute> Take(const SynchronizeRequest& worker) {
    auto r = queue.Synchronize(worker);
    REQUIRE(r.ok());
    if (!r->desired_state.has_execute()) return std::nullopt;
    return r->desired_state.execute();
  }
};

std::vector<std::string> Ids(const RunResult& r) {
  std::vector<std::string> ids;
  for (const auto& s : r.scenarios()) ids.push_back(s.id());
  return ids;
}

TEST_CASE("shards of a bench land on distinct idle workers of the same GPU and driver, and merge as one bench") {
  Fixture f;
  const std::vector<SynchronizeRequest> same = {GpuWorker("h200-a"), GpuWorker("h200-b"), GpuWorker("h200-c")};
  const SynchronizeRequest other_gpu = GpuWorker("h100", "NVIDIA H100 80GB HBM3");
  const SynchronizeRequest other_driver = GpuWorker("h200-old", "NVIDIA H200", "12.8");
  // Everyone is connected and idle before the job comes.
  for (const auto& w : same) REQUIRE_FALSE(f.Take(w).has_value());
  REQUIRE_FALSE(f.Take(other_gpu).has_value());
  REQUIRE_FALSE(f.Take(other_driver).has_value());

  const std::string id = f.queue.Submit("ana", kDefaultTeam, BenchSpec("perf", kAutoBenchShards), kQueueAnyway).value();
  std::map<std::string, kernelseek::v1::DesiredState::Execute> taken;
  for (const auto& w : same) {
    auto e = f.Take(w);
    REQUIRE(e.has_value());
    REQUIRE(e->job_id() == id);
    taken[w.worker_name()] = *e;
  }
  // Three idle H200s on driver 13.0: three shards, all handed out, none left
  // for a worker with another GPU model or driver.
  REQUIRE_FALSE(f.Take(other_gpu).has_value());
  REQUIRE_FALSE(f.Take(other_driver).has_value());
  const std::vector<std::string> perf = PerfIds(f.problems);
  std::set<std::string> leases;
  std::vector<std::string> all_ids;
  for (const auto& [worker, e] : taken) {
    leases.insert(e.lease_id());
    std::vector<std::string> ids = absl::StrSplit(e.spec().run().scenarios(), ',');
    CHECK(ids.size() == perf.size() / 3);
    all_ids.insert(all_ids.end(), ids.begin(), ids.end());
  }
  CHECK(leases.size() == 3);
  std::sort(all_ids.begin(), all_ids.end());
  std::vector<std::string> sorted_perf = perf;
  std::sort(sorted_perf.begin(), sorted_perf.end());
  CHECK(all_ids == sorted_perf);  // every scenario exactly once

  auto job = f.queue.GetJob(id).value();
  CHECK(job.state() == kernelseek::v1::JOB_STATE_LEASED);
  CHECK(job.progress().shards() == 3);
  CHECK(job.progress().shards_done() == 0);
  CHECK(job.progress().total() == static_cast<int>(perf.size()));

  // Each finishes; progress counts shards done.
  int done = 0;
  for (const auto& w : same) {
    const auto& e = taken[w.worker_name()];
    f.queue.Synchronize(Completed(w, e.lease_id(), FakeRun(e.spec(), f.problems, "NVIDIA H200"))).value();
    ++done;
    if (done < 3) {
      job = f.queue.GetJob(id).value();
      CHECK(job.progress().shards_done() == done);
      CHECK_THAT(job.stage(), Catch::StartsWith(absl::StrCat(done, " of 3 shards done")));
    }
  }
  job = f.queue.GetJob(id).value();
  REQUIRE(job.state() == kernelseek::v1::JOB_STATE_SUCCEEDED);
  const RunResult& merged = job.result().run();

  // The same job on one GPU, through the same queue.
  const std::string single = f.queue.Submit("ana", kDefaultTeam, BenchSpec("perf", 0), kQueueAnyway).value();
  auto e = f.Take(same[0]);
  REQUIRE(e.has_value());
  CHECK(e->spec().run().scenarios() == "perf");  // one shard runs the job's own selection
  f.queue.Synchronize(Completed(same[0], e->lease_id(), FakeRun(e->spec(), f.problems, "NVIDIA H200"))).value();
  const RunResult one = f.queue.GetJob(single)->result().run();

  CHECK(Ids(merged) == perf);
  CHECK(Ids(one) == perf);
  CHECK(merged.passed() == one.passed());
  CHECK(merged.failed() == one.failed());
  CHECK(merged.geomean_speedup() == Approx(one.geomean_speedup()).epsilon(1e-12));
  CHECK(merged.geomean_tflops() == Approx(one.geomean_tflops()).epsilon(1e-12));
  REQUIRE(merged.baselines_size() == 2);
  REQUIRE(one.baselines_size() == 2);
  for (int b = 0; b < 2; ++b) {
    CHECK(merged.baselines(b).name() == one.baselines(b).name());
    CHECK(merged.baselines(b).version() == one.baselines(b).version());
    CHECK(merged.baselines(b).timed() == one.baselines(b).timed());
    CHECK(merged.baselines(b).geomean_speedup() == Approx(one.baselines(b).geomean_speedup()).epsilon(1e-12));
  }
  for (int i = 0; i < merged.scenarios_size(); ++i) {
    CHECK(merged.scenarios(i).SerializeAsString() == one.scenarios(i).SerializeAsString());
  }
  CHECK(merged.gpu() == "NVIDIA H200");
  CHECK(merged.baseline() == one.baseline());
  // Which worker ran which scenarios.
  REQUIRE(merged.shards_size() == 3);
  std::set<std::string> shard_workers;
  for (const auto& s : merged.shards()) {
    shard_workers.insert(s.worker());
    CHECK(s.attempts() == 1);
  }
  CHECK(shard_workers == std::set<std::string>{"h200-a", "h200-b", "h200-c"});
  REQUIRE(one.shards_size() == 1);
  CHECK(one.shards(0).worker() == "h200-a");
  CHECK(one.shards(0).scenarios_size() == static_cast<int>(perf.size()));
}

TEST_CASE("a bench of N shards waits for N matching workers, and one worker never holds two shards at once") {
  Fixture f;
  const std::string id = f.queue.Submit("ana", kDefaultTeam, BenchSpec("perf", 2), kQueueAnyway).value();
  const SynchronizeRequest a = GpuWorker("h200-a");
  auto first = f.Take(a);
  REQUIRE(first.has_value());
  // Busy with its shard: a's running sync does not hand it the other one.
  auto still = f.queue.Synchronize(Executing(a, first->lease_id())).value();
  CHECK(still.desired_state.execute().lease_id() == first->lease_id());
  REQUIRE_FALSE(f.Take(GpuWorker("h100", "NVIDIA H100 80GB HBM3")).has_value());
  auto queued = f.queue.GetJob(id).value();
  CHECK(queued.progress().shards() == 2);
  // When it is done with the first, it takes the second in the same answer.
  auto answer =
      f.queue.Synchronize(Completed(a, first->lease_id(), FakeRun(first->spec(), f.problems, "NVIDIA H200"))).value();
  REQUIRE(answer.desired_state.has_execute());
  const auto* second = &answer.desired_state.execute();
  CHECK(second->spec().run().scenarios() != first->spec().run().scenarios());
  f.queue.Synchronize(Completed(a, second->lease_id(), FakeRun(second->spec(), f.problems, "NVIDIA H200"))).value();
  CHECK(f.queue.GetJob(id)->state() == kernelseek::v1::JOB_STATE_SUCCEEDED);
  CHECK(f.queue.GetJob(id)->result().run().shards_size() == 2);
}

TEST_CASE("a shard whose worker is lost is leased again, and when its attempts run out the job fails and drops the rest") {
  Fixture f;
  const SynchronizeRequest a = GpuWorker("h200-a"), b = GpuWorker("h200-b"), c = GpuWorker("h200-c");
  const std::string id = f.queue.Submit("ana", kDefaultTeam, BenchSpec("perf", 2), kQueueAnyway).value();
  auto on_a = f.Take(a);
  auto on_b = f.Take(b);
  REQUIRE(on_a.has_value());
  REQUIRE(on_b.has_value());
  // b is killed: it stops syncing, and its lease lapses.
  f.clock.Advance(absl::Seconds(8));
  f.queue.Synchronize(Executing(a, on_a->lease_id())).value();
  f.clock.Advance(absl::Seconds(3));
  f.queue.ExpireLeases();
  CHECK(f.queue.GetJob(id)->state() == kernelseek::v1::JOB_STATE_LEASED);  // a's shard still runs

  SECTION("re-leased to another worker, the job completes") {
    auto on_c = f.Take(c);
    REQUIRE(on_c.has_value());
    CHECK(on_c->spec().run().scenarios() == on_b->spec().run().scenarios());
    CHECK(on_c->lease_id() != on_b->lease_id());
    f.queue.Synchronize(Completed(a, on_a->lease_id(), FakeRun(on_a->spec(), f.problems, "NVIDIA H200"))).value();
    // b's late result is ignored.
    f.queue.Synchronize(Completed(b, on_b->lease_id(), RunResult())).value();
    f.queue.Synchronize(Completed(c, on_c->lease_id(), FakeRun(on_c->spec(), f.problems, "NVIDIA H200"))).value();
    auto job = f.queue.GetJob(id).value();
    REQUIRE(job.state() == kernelseek::v1::JOB_STATE_SUCCEEDED);
    CHECK(job.result().run().scenarios_size() == static_cast<int>(PerfIds(f.problems).size()));
    std::map<std::string, int> attempts;
    for (const auto& s : job.result().run().shards()) attempts[s.worker()] = s.attempts();
    CHECK(attempts == std::map<std::string, int>{{"h200-a", 1}, {"h200-c", 2}});
  }
  SECTION("lost again, the job fails saying which shard, and a's shard is dropped") {
    auto on_c = f.Take(c);
    REQUIRE(on_c.has_value());
    f.clock.Advance(absl::Seconds(8));
    f.queue.Synchronize(Executing(a, on_a->lease_id())).value();
    f.clock.Advance(absl::Seconds(3));
    f.queue.ExpireLeases();
    auto job = f.queue.GetJob(id).value();
    REQUIRE(job.state() == kernelseek::v1::JOB_STATE_FAILED);
    CHECK_THAT(job.failure(), Catch::StartsWith("shard 2 of 2 (") && Catch::Contains("gave up after 2 attempts"));
    auto told = f.queue.Synchronize(Executing(a, on_a->lease_id())).value();
    CHECK(told.desired_state.has_idle());
  }
}

TEST_CASE("a shard the worker could not run fails the whole bench, naming the shard") {
  Fixture f;
  const SynchronizeRequest a = GpuWorker("h200-a"), b = GpuWorker("h200-b");
  const std::string id = f.queue.Submit("ana", kDefaultTeam, BenchSpec("perf", 2), kQueueAnyway).value();
  auto on_a = f.Take(a);
  auto on_b = f.Take(b);
  SynchronizeRequest broken = b;
  broken.mutable_current_state()->mutable_completed()->set_lease_id(on_b->lease_id());
  broken.mutable_current_state()->mutable_completed()->set_error("kseek-runner not found at /opt/kseek/bin/kseek-runner");
  f.queue.Synchronize(broken).value();
  auto job = f.queue.GetJob(id).value();
  REQUIRE(job.state() == kernelseek::v1::JOB_STATE_FAILED);
  CHECK(job.failure() == "shard 2 of 2 on h200-b: kseek-runner not found at /opt/kseek/bin/kseek-runner");
  CHECK(f.queue.Synchronize(Executing(a, on_a->lease_id()))->desired_state.has_idle());
}

TEST_CASE("cancelling a sharded bench stops every shard") {
  Fixture f;
  const SynchronizeRequest a = GpuWorker("h200-a"), b = GpuWorker("h200-b"), c = GpuWorker("h200-c");
  const std::string id = f.queue.Submit("ana", kDefaultTeam, BenchSpec("perf", 3), kQueueAnyway).value();
  auto on_a = f.Take(a);
  auto on_b = f.Take(b);
  REQUIRE(on_a.has_value());
  REQUIRE(on_b.has_value());
  // The third shard is still queued.
  REQUIRE(f.queue.Cancel("ana", id).ok());
  CHECK(f.queue.GetJob(id)->state() == kernelseek::v1::JOB_STATE_CANCELLED);
  CHECK(f.queue.Synchronize(Executing(a, on_a->lease_id()))->desired_state.has_idle());
  CHECK(f.queue.Synchronize(Executing(b, on_b->lease_id()))->desired_state.has_idle());
  CHECK_FALSE(f.Take(c).has_value());
}

TEST_CASE("a restarted server resumes a sharded bench: done shards kept, running ones can report") {
  Fixture f;
  const SynchronizeRequest a = GpuWorker("h200-a"), b = GpuWorker("h200-b"), c = GpuWorker("h200-c");
  const std::string id = f.queue.Submit("ana", kDefaultTeam, BenchSpec("perf", 4), kQueueAnyway).value();
  auto on_a = f.Take(a);
  auto on_b = f.Take(b);
  REQUIRE(on_a.has_value());
  REQUIRE(on_b.has_value());
  // Done with its shard, a takes the third at once; the fourth stays queued.
  auto next = f.queue.Synchronize(Completed(a, on_a->lease_id(), FakeRun(on_a->spec(), f.problems, "NVIDIA H200")))
                  .value()
                  .desired_state;
  REQUIRE(next.has_execute());
  const auto a_third = next.execute();

  JobQueue restarted(f.store.get(), &f.clock, &f.problems, f.options);
  REQUIRE(restarted.Recover().ok());
  CHECK(restarted.GetJob(id)->progress().shards_done() == 1);
  CHECK(restarted.GetJob(id)->progress().shards() == 4);
  // The fourth shard is queued, still pinned to the first one's GPU and driver.
  CHECK(restarted.Synchronize(GpuWorker("h100", "NVIDIA H100 80GB HBM3"))->desired_state.has_idle());
  auto on_c = restarted.Synchronize(c).value().desired_state;
  REQUIRE(on_c.has_execute());
  restarted.Synchronize(Completed(b, on_b->lease_id(), FakeRun(on_b->spec(), f.problems, "NVIDIA H200"))).value();
  restarted.Synchronize(Completed(a, a_third.lease_id(), FakeRun(a_third.spec(), f.problems, "NVIDIA H200"))).value();
  restarted.Synchronize(Completed(c, on_c.execute().lease_id(), FakeRun(on_c.execute().spec(), f.problems, "NVIDIA H200")))
      .value();
  auto job = restarted.GetJob(id).value();
  REQUIRE(job.state() == kernelseek::v1::JOB_STATE_SUCCEEDED);
  CHECK(job.result().run().shards_size() == 4);
  CHECK(job.result().run().passed() + job.result().run().failed() == static_cast<int>(PerfIds(f.problems).size()));
}

TEST_CASE("shards are refused on jobs other than benches, and out of range") {
  Fixture f;
  JobSpec verify = BenchSpec("perf", 2);
  verify.set_kind(kernelseek::v1::JOB_KIND_VERIFY);
  verify.mutable_run()->clear_baseline();
  auto r = f.queue.Submit("ana", kDefaultTeam, verify, kQueueAnyway);
  CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(r.status().message()), Catch::Contains("bench jobs only"));
  CHECK(f.queue.Submit("ana", kDefaultTeam, BenchSpec("perf", 65), kQueueAnyway).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(f.queue.Submit("ana", kDefaultTeam, BenchSpec("perf", -2), kQueueAnyway).status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("ShardCount and SplitScenarios") {
  CHECK(ShardCount(0, 5, 100) == 1);
  CHECK(ShardCount(1, 5, 100) == 1);
  CHECK(ShardCount(4, 1, 100) == 4);  // waits for four
  CHECK(ShardCount(kAutoBenchShards, 3, 100) == 3);
  CHECK(ShardCount(8, 8, 5) == 5);    // never an empty shard
  auto split = SplitScenarios({"a", "b", "c", "d", "e"}, 2);
  CHECK(split == std::vector<std::vector<std::string>>{{"a", "c", "e"}, {"b", "d"}});
}

TEST_CASE("a shard whose build failed makes the job's result the failed build") {
  kernelseek::v1::ShardPlan plan;
  auto* ok = plan.add_shards();
  ok->set_done(true);
  ok->mutable_info()->set_worker("a");
  ok->mutable_result()->mutable_compile()->set_success(true);
  ok->mutable_result()->add_scenarios()->set_id("x");
  auto* bad = plan.add_shards();
  bad->set_done(true);
  bad->mutable_info()->set_worker("b");
  bad->mutable_result()->mutable_compile()->set_success(false);
  bad->mutable_result()->mutable_compile()->set_log("error: expected ';'");
  RunResult merged = MergeShardResults(plan);
  CHECK_FALSE(merged.compile().success());
  CHECK(merged.compile().log() == "error: expected ';'");
  CHECK(merged.scenarios_size() == 0);
  CHECK(merged.shards_size() == 2);
}

TEST_CASE("a shard's rows are held to the scenarios it was given") {
  kernelseek::v1::ShardPlan plan;
  auto add_shard = [&](int index, const std::string& worker, std::vector<std::string> given,
                       std::vector<std::string> returned) {
    auto* shard = plan.add_shards();
    shard->set_done(true);
    shard->mutable_info()->set_index(index);
    shard->mutable_info()->set_worker(worker);
    for (const std::string& id : given) shard->mutable_info()->add_scenarios(id);
    shard->mutable_result()->mutable_compile()->set_success(true);
    for (const std::string& id : returned) {
      auto* row = shard->mutable_result()->add_scenarios();
      row->set_id(id);
      row->set_passed(true);
      row->set_tflops(100);
    }
  };
  // Shard 1 also returns a scenario of shard 2's and repeats one of its own;
  // shard 2 leaves one of its scenarios out.
  add_shard(0, "gpu-a", {"s1", "s3"}, {"s1", "s3", "s2", "s1"});
  add_shard(1, "gpu-b", {"s2", "s4"}, {"s2"});
  RunResult merged = MergeShardResults(plan);
  std::vector<std::string> ids;
  for (const auto& row : merged.scenarios()) ids.push_back(row.id());
  CHECK(ids == std::vector<std::string>{"s1", "s2", "s3", "s4"});
  CHECK_FALSE(merged.scenarios(3).passed());
  CHECK(merged.scenarios(3).reason() == "no result: shard 2 (gpu-b) returned none for it");
  CHECK(merged.passed() == 3);
  CHECK(merged.failed() == 1);
  const std::string& errors = merged.runner_error();
  CHECK(errors.find("shard 1 (gpu-a) returned scenario s2, which it was not given; dropped") != std::string::npos);
  CHECK(errors.find("shard 1 (gpu-a) returned scenario s1 twice; the second dropped") != std::string::npos);
  CHECK(errors.find("shard 2 (gpu-b) returned no result for scenario s4") != std::string::npos);
}

}  // namespace
}  // namespace kseek
