#include "server/question_policy.h"

#include <catch2/catch.hpp>

namespace kseek {
namespace {

using kernelseek::v1::Trigger;

kernelseek::v1::PolicyOptions Options(int plateau, double min_gain, int failures, double large_gain) {
  kernelseek::v1::PolicyOptions o;
  o.set_plateau_benchmarks(plateau);
  o.set_plateau_min_gain(min_gain);
  o.set_failure_streak(failures);
  o.set_large_gain(large_gain);
  return o;
}

TEST_CASE("claimed limits in the model's words are recognised, ordinary text is not", "[policy]") {
  for (const char* claim : {"This kernel is memory-bound, so it cannot be faster.", "We are at peak bandwidth.",
                            "It can't go any faster on this GPU", "That is the hardware limit.",
                            "This is the theoretical maximum", "The kernel is already optimal.",
                            "Now it is Compute Bound", "no further improvement is possible"}) {
    INFO(claim);
    REQUIRE(ClaimedLimitPhrase(claim).has_value());
  }
  for (const char* plain : {"Let me read the kernel.", "The memory layout is row-major; I will tile it.",
                            "Compile succeeded; now verify.", "Peak memory use is 2 GB"}) {
    INFO(plain);
    REQUIRE_FALSE(ClaimedLimitPhrase(plain).has_value());
  }
  QuestionPolicy policy(Options(3, 0.02, 3, 0.15));
  REQUIRE(policy.OnModelText("this is memory-bound") == kernelseek::v1::TRIGGER_CLAIMED_LIMIT);
  REQUIRE_FALSE(policy.OnModelText("reading the file").has_value());
}

TEST_CASE("a plateau is k benchmarks in a row without x gain over the best", "[policy]") {
  QuestionPolicy policy(Options(3, 0.02, 3, 0.5));
  REQUIRE_FALSE(policy.OnToolOutcome("bench", ToolSignal::kBenched, 1.00).has_value());
  REQUIRE_FALSE(policy.OnToolOutcome("bench", ToolSignal::kBenched, 1.01).has_value());  // +1%: no real gain
  REQUIRE(policy.OnToolOutcome("bench", ToolSignal::kBenched, 0.99) == kernelseek::v1::TRIGGER_PLATEAU);
  // The count starts again after a decision point, and a real gain resets it.
  REQUIRE_FALSE(policy.OnToolOutcome("bench", ToolSignal::kBenched, 1.00).has_value());
  REQUIRE_FALSE(policy.OnToolOutcome("bench", ToolSignal::kBenched, 1.10).has_value());
  REQUIRE_FALSE(policy.OnToolOutcome("bench", ToolSignal::kBenched, 1.10).has_value());
  REQUIRE_FALSE(policy.OnToolOutcome("bench", ToolSignal::kBenched, 1.10).has_value());
  REQUIRE(policy.OnToolOutcome("bench", ToolSignal::kBenched, 1.11) == kernelseek::v1::TRIGGER_PLATEAU);
  REQUIRE(policy.best_speedup() == Approx(1.11));
}

TEST_CASE("a large gain over the previous best is a decision point", "[policy]") {
  QuestionPolicy policy(Options(5, 0.02, 3, 0.15));
  REQUIRE_FALSE(policy.OnToolOutcome("bench", ToolSignal::kBenched, 0.50).has_value());
  REQUIRE(policy.OnToolOutcome("bench", ToolSignal::kBenched, 0.60) == kernelseek::v1::TRIGGER_LARGE_GAIN);
  REQUIRE_FALSE(policy.OnToolOutcome("bench", ToolSignal::kBenched, 0.65).has_value());
}

TEST_CASE("n compile or verify failures in a row are a decision point, a success resets the streak", "[policy]") {
  QuestionPolicy policy(Options(3, 0.02, 3, 0.15));
  REQUIRE_FALSE(policy.OnToolOutcome("compile", ToolSignal::kCompileFailed, 0).has_value());
  REQUIRE_FALSE(policy.OnToolOutcome("verify", ToolSignal::kVerifyFailed, 0).has_value());
  REQUIRE_FALSE(policy.OnToolOutcome("compile", ToolSignal::kCompileOk, 0).has_value());
  REQUIRE_FALSE(policy.OnToolOutcome("compile", ToolSignal::kCompileFailed, 0).has_value());
  REQUIRE_FALSE(policy.OnToolOutcome("read_file", ToolSignal::kNone, 0).has_value());  // reading does not reset
  REQUIRE_FALSE(policy.OnToolOutcome("compile", ToolSignal::kCompileFailed, 0).has_value());
  REQUIRE(policy.OnToolOutcome("verify", ToolSignal::kVerifyFailed, 0) == kernelseek::v1::TRIGGER_REPEATED_FAILURE);
}

TEST_CASE("a refused finish is an early-finish decision point", "[policy]") {
  QuestionPolicy policy(kernelseek::v1::PolicyOptions{});
  REQUIRE(policy.OnToolOutcome("finish", ToolSignal::kFinishRefused, 0) == kernelseek::v1::TRIGGER_EARLY_FINISH);
  REQUIRE_FALSE(policy.OnToolOutcome("finish", ToolSignal::kFinishAccepted, 1.2).has_value());
}

TEST_CASE("the current layer follows the recent tool calls", "[policy]") {
  QuestionPolicy policy(kernelseek::v1::PolicyOptions{});
  REQUIRE(policy.CurrentLayer() == kernelseek::v1::LAYER_UNSPECIFIED);
  policy.OnToolOutcome("read_file", ToolSignal::kNone, 0);
  policy.OnToolOutcome("edit_file", ToolSignal::kNone, 0);
  REQUIRE(policy.CurrentLayer() == kernelseek::v1::LAYER_ALGORITHM);
  policy.OnToolOutcome("bench", ToolSignal::kBenched, 1.0);
  policy.OnToolOutcome("verify", ToolSignal::kVerifyOk, 0);
  REQUIRE(policy.CurrentLayer() == kernelseek::v1::LAYER_MEASUREMENT);  // tie goes to measurement over algorithm
  policy.OnToolOutcome("show_sass", ToolSignal::kNone, 0);
  policy.OnToolOutcome("compile", ToolSignal::kCompileOk, 0);
  REQUIRE(policy.CurrentLayer() == kernelseek::v1::LAYER_COMPILER_OUTPUT);
  // Only the last kLayerWindow calls count.
  for (size_t i = 0; i < QuestionPolicy::kLayerWindow; ++i) policy.OnToolOutcome("edit_file", ToolSignal::kNone, 0);
  REQUIRE(policy.CurrentLayer() == kernelseek::v1::LAYER_ALGORITHM);
}

TEST_CASE("defaults fill unset options and trigger names are the trace's", "[policy]") {
  kernelseek::v1::PolicyOptions o = WithPolicyDefaults({});
  REQUIRE(o.plateau_benchmarks() == 3);
  REQUIRE(o.plateau_min_gain() == Approx(0.02));
  REQUIRE(o.failure_streak() == 3);
  REQUIRE(o.large_gain() == Approx(0.15));
  REQUIRE(TriggerName(kernelseek::v1::TRIGGER_CLAIMED_LIMIT) == "claimed_limit");
  REQUIRE(TriggerName(kernelseek::v1::TRIGGER_EARLY_FINISH) == "early_finish");
  REQUIRE(ToolSignalFromName(ToolSignalName(ToolSignal::kBenched)) == ToolSignal::kBenched);
}

}  // namespace
}  // namespace kseek
