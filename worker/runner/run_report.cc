#include "worker/runner/run_report.h"

#include <cmath>

namespace kseek::runner {
namespace {

// JSON has no infinities or NaN; a non-finite measurement becomes null.
nlohmann::json Number(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

nlohmann::json ClockToJson(const ClockReading& clock) {
  return {{"sm_mhz", Number(clock.sm_mhz)}, {"source", clock.source}};
}

}  // namespace

std::string StatusName(ScenarioStatus status) {
  switch (status) {
    case ScenarioStatus::kPass:
      return "pass";
    case ScenarioStatus::kFail:
      return "fail";
    case ScenarioStatus::kNotRun:
      return "not_run";
    case ScenarioStatus::kError:
      return "error";
  }
  return "error";
}

nlohmann::json ScenarioResultToJson(const ScenarioResult& r) {
  nlohmann::json j;
  j["id"] = r.id;
  j["set"] = r.set;
  j["dtype"] = r.dtype;
  j["status"] = StatusName(r.status);
  j["pass"] = r.status == ScenarioStatus::kPass;
  j["reason"] = r.reason;
  j["hidden_seed"] = r.hidden_seed;
  j["seed"] = r.hidden_seed ? nlohmann::json(nullptr) : nlohmann::json(r.seed);
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, value] : r.bindings) params[name] = Number(value);
  j["params"] = params;
  j["flops"] = Number(r.flops);
  nlohmann::json sets = nlohmann::json::array();
  for (const InputSetResult& set : r.input_sets) {
    nlohmann::json outputs = nlohmann::json::array();
    for (const OutputCheck& out : set.outputs) {
      outputs.push_back({{"name", out.name},
                         {"pass", out.verdict.pass},
                         {"reason", out.verdict.reason},
                         {"max_abs_err", Number(out.errors.max_abs_err)},
                         {"bar", Number(out.verdict.bar)},
                         {"lowprec_max_abs_err", Number(out.errors.lowprec_max_abs_err)},
                         {"rel_l2", Number(out.errors.RelativeL2())},
                         {"elements", out.errors.elements},
                         {"unwritten", out.errors.unwritten},
                         {"nan", out.errors.nan},
                         {"inf_mismatch", out.errors.inf_mismatch}});
    }
    sets.push_back({{"outputs", outputs}});
  }
  j["input_sets"] = sets;
  if (r.timing) {
    const TimingSummary& t = *r.timing;
    j["timing"] = {{"reps", t.reps},           {"median_ms", t.median_ms},
                   {"min_ms", t.min_ms},       {"max_ms", t.max_ms},
                   {"mean_ms", t.mean_ms},     {"stddev_ms", t.stddev_ms},
                   {"stderr_pct", t.stderr_pct}, {"spread_pct", t.spread_pct}};
    j["tflops"] = t.median_ms > 0 ? Number(r.flops / (t.median_ms * 1e-3) / 1e12)
                                  : nlohmann::json(nullptr);
  }
  if (r.clock_before) j["sm_clock_before"] = ClockToJson(*r.clock_before);
  if (r.clock_after) j["sm_clock_after"] = ClockToJson(*r.clock_after);
  j["wall_seconds"] = Number(r.wall_seconds);
  return j;
}

nlohmann::json RunReportToJson(const RunInfo& info, const std::vector<ScenarioResult>& results) {
  nlohmann::json j;
  j["problem"] = info.problem;
  j["mode"] = info.mode;
  j["kernel"] = info.kernel;
  j["entry_point"] = info.entry_point;
  j["device"] = info.device;
  int counts[4] = {0, 0, 0, 0};
  nlohmann::json scenarios = nlohmann::json::array();
  for (const ScenarioResult& r : results) {
    ++counts[static_cast<int>(r.status)];
    scenarios.push_back(ScenarioResultToJson(r));
  }
  j["scenarios"] = scenarios;
  j["summary"] = {{"total", results.size()},
                  {"passed", counts[static_cast<int>(ScenarioStatus::kPass)]},
                  {"failed", counts[static_cast<int>(ScenarioStatus::kFail)]},
                  {"not_run", counts[static_cast<int>(ScenarioStatus::kNotRun)]},
                  {"errors", counts[static_cast<int>(ScenarioStatus::kError)]}};
  j["all_passed"] =
      !results.empty() && counts[static_cast<int>(ScenarioStatus::kPass)] ==
                              static_cast<int>(results.size());
  return j;
}

}  // namespace kseek::runner
