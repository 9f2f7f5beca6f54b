#include <catch2/catch.hpp>

#include <limits>

#include "worker/runner/run_report.h"

namespace kseek::runner {
namespace {

TEST_CASE("The report has per-scenario results, bars and timing", "[report]") {
  ScenarioResult pass;
  pass.id = "perf-bf16-d64-full-s512";
  pass.set = "perf";
  pass.dtype = "bf16";
  pass.seed = 12345;
  pass.flops = 2e12;
  pass.status = ScenarioStatus::kPass;
  OutputCheck o;
  o.name = "o";
  o.errors.max_abs_err = 0.001;
  o.errors.lowprec_max_abs_err = 0.004;
  o.verdict.pass = true;
  o.verdict.bar = 0.008;
  pass.input_sets.push_back({{o}});
  pass.timing = SummarizeTimings({1.0, 1.0, 1.0});
  pass.clock_before = ClockReading{1980, "nvml"};

  ScenarioResult hidden;
  hidden.id = "cor-x";
  hidden.hidden_seed = true;
  hidden.seed = 99;
  hidden.status = ScenarioStatus::kFail;
  hidden.reason = "o: 3 NaN elements";
  OutputCheck lse;
  lse.name = "lse";
  lse.errors.max_abs_err = std::numeric_limits<double>::infinity();
  hidden.input_sets.push_back({{lse}});

  RunInfo info{"attention_fwd", "bench", "k.so", "attention_fwd", {{"name", "NVIDIA H200"}}};
  nlohmann::json doc = RunReportToJson(info, {pass, hidden});
  CHECK(doc["summary"]["total"] == 2);
  CHECK(doc["summary"]["passed"] == 1);
  CHECK(doc["summary"]["failed"] == 1);
  CHECK(doc["all_passed"] == false);
  const auto& first = doc["scenarios"][0];
  CHECK(first["status"] == "pass");
  CHECK(first["seed"] == 12345);
  CHECK(first["input_sets"][0]["outputs"][0]["bar"] == 0.008);
  CHECK(first["timing"]["median_ms"] == 1.0);
  CHECK(first["tflops"].get<double>() == Approx(2000.0));
  CHECK(first["sm_clock_before"]["source"] == "nvml");
  const auto& second = doc["scenarios"][1];
  CHECK(second["seed"].is_null());  // the worker's key reproduces it; the author never sees it
  CHECK(second["reason"] == "o: 3 NaN elements");
  CHECK(second["input_sets"][0]["outputs"][0]["max_abs_err"].is_null());
  CHECK_FALSE(second.contains("timing"));
  // It must serialise: JSON has no infinities.
  CHECK_NOTHROW(doc.dump());
}

}  // namespace
}  // namespace kseek::runner
