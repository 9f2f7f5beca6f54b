#include <catch2/catch.hpp>

#include "worker/runner/timing_stats.h"
#include "worker/runner/tolerance.h"

namespace kseek::runner {
namespace {

kernelseek::v1::ToleranceRule Rule(double rtol_factor, double atol) {
  kernelseek::v1::ToleranceRule rule;
  rule.set_output("o");
  rule.set_rtol_factor(rtol_factor);
  rule.set_atol(atol);
  return rule;
}

TEST_CASE("The bar is rtol_factor x low-precision error + atol", "[tolerance]") {
  CHECK(ToleranceBar(Rule(2, 1e-5), 0.004) == Approx(0.00801));
  OutputErrors errors;
  errors.elements = 100;
  errors.lowprec_max_abs_err = 0.004;
  errors.max_abs_err = 0.0080;
  OutputVerdict ok = JudgeOutput("o", Rule(2, 1e-5), errors);
  CHECK(ok.pass);
  CHECK(ok.bar == Approx(0.00801));
  errors.max_abs_err = 0.0081;
  OutputVerdict bad = JudgeOutput("o", Rule(2, 1e-5), errors);
  CHECK_FALSE(bad.pass);
  CHECK_THAT(bad.reason, Catch::Contains("exceeds the bar"));
}

TEST_CASE("An exact low-precision path leaves only atol", "[tolerance]") {
  OutputErrors errors;
  errors.max_abs_err = 2e-5;
  CHECK_FALSE(JudgeOutput("o", Rule(2, 1e-5), errors).pass);
  errors.max_abs_err = 0;
  CHECK(JudgeOutput("o", Rule(2, 1e-5), errors).pass);
}

TEST_CASE("Unwritten, NaN and infinite outputs fail whatever the error", "[tolerance]") {
  OutputErrors errors;
  errors.elements = 10;
  errors.lowprec_max_abs_err = 1;
  errors.unwritten = 3;
  CHECK_THAT(JudgeOutput("o", Rule(2, 0), errors).reason, Catch::Contains("3 of 10 elements were never written"));
  errors.unwritten = 0;
  errors.nan = 1;
  CHECK_THAT(JudgeOutput("o", Rule(2, 0), errors).reason, Catch::Contains("NaN"));
  errors.nan = 0;
  errors.inf_mismatch = 2;
  CHECK_FALSE(JudgeOutput("lse", Rule(2, 0), errors).pass);
}

TEST_CASE("Relative L2 error", "[tolerance]") {
  OutputErrors errors;
  errors.sum_sq_err = 1;
  errors.sum_sq_ref = 100;
  CHECK(errors.RelativeL2() == Approx(0.1));
}

TEST_CASE("Timing summary and the stopping rule", "[timing]") {
  TimingSummary s = SummarizeTimings({1.0, 1.2, 1.1, 0.9, 1.0});
  CHECK(s.reps == 5);
  CHECK(s.median_ms == Approx(1.0));
  CHECK(s.min_ms == Approx(0.9));
  CHECK(s.max_ms == Approx(1.2));
  CHECK(s.mean_ms == Approx(1.04));
  CHECK_FALSE(TimingIsStable(s, 10, 0.5));
  std::vector<double> steady(50, 2.0);
  steady[7] = 2.002;
  CHECK(TimingIsStable(SummarizeTimings(steady), 10, 0.5));
  std::vector<double> noisy;
  for (int i = 0; i < 50; ++i) noisy.push_back(i % 2 ? 1.0 : 1.5);
  CHECK_FALSE(TimingIsStable(SummarizeTimings(noisy), 10, 0.5));
}

TEST_CASE("Warm-up lasts a quarter of the time cap, at most 0.25 s", "[timing]") {
  CHECK(WarmupSeconds(0.4) == Approx(0.1));
  CHECK(WarmupSeconds(1.0) == Approx(0.25));
  CHECK(WarmupSeconds(10.0) == Approx(0.25));
  CHECK(WarmupSeconds(0.0) == Approx(0.0));
}

}  // namespace
}  // namespace kseek::runner
