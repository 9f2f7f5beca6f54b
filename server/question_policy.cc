#include "server/question_policy.h"

#include <array>
#include <utility>

#include "absl/strings/ascii.h"
#include "re2/re2.h"

namespace kseek {
namespace {

using kernelseek::v1::Layer;
using kernelseek::v1::Trigger;

constexpr std::array<std::pair<ToolSignal, const char*>, 8> kSignalNames = {{
    {ToolSignal::kNone, "none"},
    {ToolSignal::kCompileOk, "compile_ok"},
    {ToolSignal::kCompileFailed, "compile_failed"},
    {ToolSignal::kVerifyOk, "verify_ok"},
    {ToolSignal::kVerifyFailed, "verify_failed"},
    {ToolSignal::kBenched, "benched"},
    {ToolSignal::kFinishAccepted, "finish_accepted"},
    {ToolSignal::kFinishRefused, "finish_refused"},
}};

// RE2: a model's reply is untrusted text of any length, and RE2 matches it in
// linear time with no recursion. Thread-safe once built.
const RE2& LimitRegex() {
  static const RE2* const kRegex = new RE2(
      "(?i)((memory|bandwidth|compute|latency)[- ]bound"
      "|at (the )?(hardware |theoretical |memory |bandwidth )?peak"
      "|(cannot|can't|can not|won't|will not) (be made |go |get |run |possibly be )?(any |much )?faster"
      "|hardware limit"
      "|theoretical (maximum|max|peak|limit|bound)"
      "|physical limit"
      "|fundamental(ly)? limit"
      "|(already|is|are) (optimal|near[- ]optimal)"
      "|no further (improvement|speedup|optimi[sz]ation)s? (is |are )?possible)");
  return *kRegex;
}

Layer LayerOfTool(std::string_view tool) {
  if (tool == "show_sass" || tool == "compile") return kernelseek::v1::LAYER_COMPILER_OUTPUT;
  if (tool == "verify" || tool == "bench" || tool == "profile") return kernelseek::v1::LAYER_MEASUREMENT;
  if (tool == "read_file" || tool == "write_file" || tool == "edit_file" || tool == "list_files") {
    return kernelseek::v1::LAYER_ALGORITHM;
  }
  return kernelseek::v1::LAYER_UNSPECIFIED;
}

}  // namespace

const char* ToolSignalName(ToolSignal signal) {
  for (const auto& [s, name] : kSignalNames) {
    if (s == signal) return name;
  }
  return "none";
}

ToolSignal ToolSignalFromName(std::string_view name) {
  for (const auto& [s, n] : kSignalNames) {
    if (name == n) return s;
  }
  return ToolSignal::kNone;
}

kernelseek::v1::PolicyOptions WithPolicyDefaults(kernelseek::v1::PolicyOptions options) {
  if (options.plateau_benchmarks() <= 0) options.set_plateau_benchmarks(3);
  if (options.plateau_min_gain() <= 0) options.set_plateau_min_gain(0.02);
  if (options.failure_streak() <= 0) options.set_failure_streak(3);
  if (options.large_gain() <= 0) options.set_large_gain(0.15);
  return options;
}

std::optional<std::string> ClaimedLimitPhrase(std::string_view text) {
  std::string phrase;
  if (!RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), LimitRegex(), &phrase)) return std::nullopt;
  return phrase;
}

std::string TriggerName(Trigger trigger) {
  std::string name = kernelseek::v1::Trigger_Name(trigger);
  constexpr std::string_view kPrefix = "TRIGGER_";
  if (name.rfind(kPrefix, 0) == 0) name = name.substr(kPrefix.size());
  return absl::AsciiStrToLower(name);
}

QuestionPolicy::QuestionPolicy(const kernelseek::v1::PolicyOptions& options) : options_(WithPolicyDefaults(options)) {}

std::optional<Trigger> QuestionPolicy::OnModelText(std::string_view text) {
  if (ClaimedLimitPhrase(text).has_value()) return kernelseek::v1::TRIGGER_CLAIMED_LIMIT;
  return std::nullopt;
}

std::optional<Trigger> QuestionPolicy::OnToolOutcome(std::string_view tool, ToolSignal signal, double speedup) {
  if (LayerOfTool(tool) != kernelseek::v1::LAYER_UNSPECIFIED) {
    recent_tools_.emplace_back(tool);
    if (recent_tools_.size() > kLayerWindow) recent_tools_.pop_front();
  }
  switch (signal) {
    case ToolSignal::kCompileFailed:
    case ToolSignal::kVerifyFailed:
      if (++failure_streak_ >= options_.failure_streak()) {
        failure_streak_ = 0;
        return kernelseek::v1::TRIGGER_REPEATED_FAILURE;
      }
      return std::nullopt;
    case ToolSignal::kCompileOk:
    case ToolSignal::kVerifyOk:
      failure_streak_ = 0;
      return std::nullopt;
    case ToolSignal::kBenched: {
      failure_streak_ = 0;
      const double previous = best_;
      if (speedup > best_) best_ = speedup;
      if (previous > 0 && speedup >= previous * (1 + options_.large_gain())) {
        benches_without_gain_ = 0;
        return kernelseek::v1::TRIGGER_LARGE_GAIN;
      }
      if (previous > 0 && speedup >= previous * (1 + options_.plateau_min_gain())) {
        benches_without_gain_ = 0;
        return std::nullopt;
      }
      // The first benchmark sets the reference and counts as the first
      // without gain: there is nothing yet it could have gained over.
      if (++benches_without_gain_ >= options_.plateau_benchmarks()) {
        benches_without_gain_ = 0;
        return kernelseek::v1::TRIGGER_PLATEAU;
      }
      return std::nullopt;
    }
    case ToolSignal::kFinishRefused:
      return kernelseek::v1::TRIGGER_EARLY_FINISH;
    case ToolSignal::kFinishAccepted:
    case ToolSignal::kNone:
      return std::nullopt;
  }
  return std::nullopt;
}

Layer QuestionPolicy::CurrentLayer() const {
  int compiler = 0;
  int measurement = 0;
  int algorithm = 0;
  for (const std::string& tool : recent_tools_) {
    switch (LayerOfTool(tool)) {
      case kernelseek::v1::LAYER_COMPILER_OUTPUT: ++compiler; break;
      case kernelseek::v1::LAYER_MEASUREMENT: ++measurement; break;
      case kernelseek::v1::LAYER_ALGORITHM: ++algorithm; break;
      default: break;
    }
  }
  if (compiler + measurement + algorithm == 0) return kernelseek::v1::LAYER_UNSPECIFIED;
  if (compiler >= measurement && compiler >= algorithm) return kernelseek::v1::LAYER_COMPILER_OUTPUT;
  if (measurement >= algorithm) return kernelseek::v1::LAYER_MEASUREMENT;
  return kernelseek::v1::LAYER_ALGORITHM;
}

}  // namespace kseek
