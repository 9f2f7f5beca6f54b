// The results of one kseek-runner invocation and their JSON form: the one
// document the runner prints on stdout, which the worker stores per scenario.
// Plain data and functions.
#ifndef KERNELSEEK_WORKER_RUNNER_RUN_REPORT_H_
#define KERNELSEEK_WORKER_RUNNER_RUN_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "problem/expression.h"
#include "worker/runner/timing_stats.h"
#include "worker/runner/tolerance.h"

namespace kseek::runner {

enum class ScenarioStatus {
  kPass,    // every check on both input sets passed (and timed, in bench mode)
  kFail,    // the candidate is wrong, faulted, hung or refused the input
  kNotRun,  // an earlier scenario left the GPU unusable, or a limit stopped the run
  kError,   // the harness itself failed (reference, allocation); not the kernel's fault
};

std::string StatusName(ScenarioStatus status);

struct OutputCheck {
  std::string name;
  OutputErrors errors;
  OutputVerdict verdict;
};

struct InputSetResult {
  std::vector<OutputCheck> outputs;
};

struct ClockReading {
  double sm_mhz = 0;
  std::string source;  // "nvml" (current clock) or "cuda_attribute_peak" (not current)
};

struct ScenarioResult {
  std::string id;
  std::string set;
  std::string dtype;
  bool hidden_seed = false;
  uint64_t seed = 0;  // omitted from JSON for hidden seeds: the key reproduces it
  Bindings bindings;
  double flops = 0;
  ScenarioStatus status = ScenarioStatus::kNotRun;
  std::string reason;
  std::vector<InputSetResult> input_sets;
  std::optional<TimingSummary> timing;
  std::optional<ClockReading> clock_before;
  std::optional<ClockReading> clock_after;
  double wall_seconds = 0;
};

struct RunInfo {
  std::string problem;
  std::string mode;  // "verify" or "bench"
  std::string kernel;
  std::string entry_point;
  nlohmann::json device;  // name, compute capability, driver, ...
};

nlohmann::json ScenarioResultToJson(const ScenarioResult& result);

// The whole document: run info, per-scenario results, and counts.
nlohmann::json RunReportToJson(const RunInfo& info, const std::vector<ScenarioResult>& results);

}  // namespace kseek::runner

#endif  // KERNELSEEK_WORKER_RUNNER_RUN_REPORT_H_
