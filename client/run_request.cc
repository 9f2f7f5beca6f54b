#include "client/run_request.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/baseline_list.h"
#include "common/profile_text.h"
#include "common/run_limits.h"

namespace kseek {
namespace {

// Longest time cap accepted: a scenario that needs more than an hour of
// timing is a typo (seconds meant as milliseconds), not a plan.
constexpr double kMaxSecondsPerScenario = 3600;

// Problem names, set names and scenario ids share the scenario id alphabet
// of proto/problem.proto: letters, digits, '-', '_', '.'.
bool IsName(absl::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

// Empty: the problem's default, which the server fills in.
absl::Status CheckScenarios(const std::string& scenarios) {
  if (scenarios.empty()) return absl::OkStatus();
  for (absl::string_view item : absl::StrSplit(scenarios, ',')) {
    if (!IsName(item)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--scenarios \"", scenarios, "\" has ",
                       item.empty() ? "an empty item" : absl::StrCat("\"", item, "\""),
                       "; give all, a set name or ID,ID,... (letters, digits, '-', '_', '.')"));
    }
  }
  return absl::OkStatus();
}

// A profile runs every launch of the kernel many times under ncu, so it is of
// one scenario named by its id. The server still checks the id exists and is
// not a set name.
absl::Status CheckProfileScenario(const std::string& scenario) {
  if (scenario.empty()) {
    return absl::InvalidArgumentError(
        "--scenario is required: profile runs one scenario id, e.g. --scenario "
        "perf-bf16-d64-full-s512 (`kseek scenarios PROBLEM` lists them)");
  }
  if (scenario.find(',') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--scenario \"", scenario, "\" is a list; profile runs exactly one scenario id"));
  }
  if (scenario == "all") {
    return absl::InvalidArgumentError(
        "--scenario all selects every scenario; profile runs exactly one scenario id");
  }
  if (!IsName(scenario)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--scenario \"", scenario, "\" is not a scenario id (letters, digits, '-', '_', '.')"));
  }
  return absl::OkStatus();
}

// --shards: empty (one GPU), N in 1..kMaxBenchShards, or "auto".
absl::StatusOr<int> ParseShards(const std::string& text) {
  if (text.empty()) return 0;
  if (text == "auto") return kAutoBenchShards;
  int value = 0;
  if (!absl::SimpleAtoi(text, &value) || value < 1 || value > kMaxBenchShards) {
    return absl::InvalidArgumentError(
        absl::StrCat("--shards wants 1..", kMaxBenchShards, " or auto, got \"", text, "\""));
  }
  return value;
}

absl::Status CheckBenchOptions(const RunRequest& request) {
  // Empty: the problem's default. Which names a problem has is the server's
  // to check, against its manifest; here only the list's form.
  if (absl::StatusOr<std::vector<std::string>> baselines = SplitBaselineList(request.baseline);
      !request.baseline.empty() && !baselines.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--baseline: ", baselines.status().message()));
  }
  if (request.rounds < 0 || request.rounds > kMaxBenchRounds) {
    return absl::InvalidArgumentError(absl::StrCat("--rounds wants 0..", kMaxBenchRounds,
                                                   " (0: one round), got ", request.rounds));
  }
  if (absl::StatusOr<int> shards = ParseShards(request.shards); !shards.ok()) return shards.status();
  double seconds = request.max_seconds_per_scenario;
  if (!std::isfinite(seconds) || seconds < 0 || seconds > kMaxSecondsPerScenario) {
    return absl::InvalidArgumentError(absl::StrCat("--max-seconds wants 0..",
                                                   kMaxSecondsPerScenario,
                                                   " (0: the worker's default), got ", seconds));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<kernelseek::v1::JobSpec> MakeRunSpec(const RunRequest& request) {
  bool bench = request.kind == kernelseek::v1::JOB_KIND_BENCH;
  bool profile = request.kind == kernelseek::v1::JOB_KIND_PROFILE;
  if (!bench && !profile && request.kind != kernelseek::v1::JOB_KIND_VERIFY) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a run needs job kind verify, bench or profile, got ", static_cast<int>(request.kind)));
  }
  if (request.problem.empty()) {
    return absl::InvalidArgumentError("--problem is required, e.g. --problem attention_fwd");
  }
  if (!IsName(request.problem)) {
    return absl::InvalidArgumentError(absl::StrCat("--problem \"", request.problem,
                                                   "\" is not a problem name like attention_fwd"));
  }
  absl::Status scenarios =
      profile ? CheckProfileScenario(request.scenarios) : CheckScenarios(request.scenarios);
  if (!scenarios.ok()) return scenarios;
  if (bench) {
    if (absl::Status s = CheckBenchOptions(request); !s.ok()) return s;
  } else if (!request.baseline.empty() || request.max_seconds_per_scenario != 0 || request.reuse_baseline ||
             request.rounds != 0 || !request.shards.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a baseline, a time cap, rounds and shards apply to bench only, not ", profile ? "profile" : "verify"));
  }

  if (profile && (request.hotspots < 0 || request.hotspots > kMaxProfileHotSpots)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--hotspots ", request.hotspots, " is outside 0..", kMaxProfileHotSpots));
  }
  if (!profile && request.hotspots != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--hotspots applies to profile only, not ", bench ? "bench" : "verify"));
  }

  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeCompileSpec(request.compile);
  if (!spec.ok()) return spec.status();
  spec->set_kind(request.kind);
  kernelseek::v1::RunOptions* run = spec->mutable_run();
  run->set_problem(request.problem);
  run->set_scenarios(request.scenarios);
  if (bench) {
    run->set_baseline(request.baseline);
    run->set_max_seconds_per_scenario(request.max_seconds_per_scenario);
    run->set_reuse_baseline(request.reuse_baseline);
    run->set_rounds(static_cast<int32_t>(request.rounds));
    run->set_shards(*ParseShards(request.shards));
  }
  if (profile) run->set_hotspots(static_cast<int32_t>(request.hotspots));
  return spec;
}

}  // namespace kseek
