#include "common/run_summary.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <utility>

namespace kseek {
namespace {

using kernelseek::v1::RunResult;
using kernelseek::v1::ScenarioResult;

// A passed scenario timed at 1 ms, with each baseline's time in ms (0: that
// baseline has no timing of it).
ScenarioResult* Timed(RunResult* run, const std::string& id, double fa3_ms, double cudnn_ms) {
  ScenarioResult* s = run->add_scenarios();
  s->set_id(id);
  s->set_passed(true);
  s->set_median_ms(1.0);
  s->set_tflops(500);
  s->set_baseline_median_ms(fa3_ms);
  for (auto [name, ms] : {std::pair<std::string, double>{"fa3", fa3_ms}, {"cudnn", cudnn_ms}}) {
    kernelseek::v1::BaselineFigure* figure = s->add_baselines();
    figure->set_name(name);
    figure->set_median_ms(ms);
    if (ms == 0) figure->set_error("no kernel");
  }
  return s;
}

RunResult TwoBaselines() {
  RunResult run;
  for (const char* name : {"fa3", "cudnn"}) run.add_baselines()->set_name(name);
  Timed(&run, "perf-bf16-d128-full-s512", 1.2, 1.1);
  Timed(&run, "perf-bf16-d64-causal-s2048", 0.9, 0.95);
  Timed(&run, "perf-f16-d64-causal-s1024", 0, 0.95);
  Timed(&run, "perf-bf16-d256-full-s16384", 1.05, 1.3);
  return run;
}

TEST_CASE("each baseline's geometric mean and lowest scenario are over the scenarios it timed") {
  RunResult run = TwoBaselines();
  SummarizeRun(&run);
  REQUIRE(run.baselines_size() == 2);
  const kernelseek::v1::BaselineSummary& fa3 = run.baselines(0);
  CHECK(fa3.timed() == 3);
  CHECK(fa3.geomean_speedup() == Approx(std::cbrt(1.2 * 0.9 * 1.05)));
  CHECK(fa3.lowest_scenario() == "perf-bf16-d64-causal-s2048");
  CHECK(fa3.lowest_speedup() == Approx(0.9));
  const kernelseek::v1::BaselineSummary& cudnn = run.baselines(1);
  CHECK(cudnn.timed() == 4);
  // Two scenarios tie at 0.95: the first in scenario order is named.
  CHECK(cudnn.lowest_scenario() == "perf-bf16-d64-causal-s2048");
  CHECK(cudnn.lowest_speedup() == Approx(0.95));
  // The first baseline is the run's own speedup too.
  CHECK(run.geomean_speedup() == Approx(fa3.geomean_speedup()));
  CHECK(run.scenarios(1).speedup() == Approx(0.9));
}

TEST_CASE("a baseline that timed nothing has no geometric mean and no lowest scenario") {
  RunResult run = TwoBaselines();
  for (ScenarioResult& s : *run.mutable_scenarios()) {
    s.mutable_baselines(0)->set_median_ms(0);
    s.set_baseline_median_ms(0);
  }
  // Figures of an earlier summary do not survive.
  run.mutable_baselines(0)->set_lowest_scenario("perf-bf16-d128-full-s512");
  run.mutable_baselines(0)->set_lowest_speedup(1.2);
  run.mutable_baselines(0)->set_geomean_speedup(1.1);
  SummarizeRun(&run);
  CHECK(run.baselines(0).timed() == 0);
  CHECK(run.baselines(0).geomean_speedup() == 0);
  CHECK(run.baselines(0).lowest_scenario().empty());
  CHECK(run.baselines(0).lowest_speedup() == 0);
  CHECK(run.geomean_speedup() == 0);
  CHECK(run.baselines(1).lowest_scenario() == "perf-bf16-d64-causal-s2048");
}

TEST_CASE("a scenario that was not timed counts toward passed or failed but no speedup") {
  RunResult run = TwoBaselines();
  ScenarioResult* failed = run.add_scenarios();
  failed->set_id("perf-bf16-d64-full-s512");
  failed->set_passed(false);
  kernelseek::v1::BaselineFigure* figure = failed->add_baselines();
  figure->set_name("fa3");
  figure->set_median_ms(0.1);  // the baseline ran; the candidate did not
  SummarizeRun(&run);
  CHECK(run.passed() == 4);
  CHECK(run.failed() == 1);
  CHECK(run.baselines(0).timed() == 3);
  CHECK(run.baselines(0).lowest_scenario() == "perf-bf16-d64-causal-s2048");
  CHECK(run.scenarios(4).baselines(0).speedup() == 0);
}

}  // namespace
}  // namespace kseek
