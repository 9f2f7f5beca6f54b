#include "common/run_summary.h"

#include <cmath>
#include <string>
#include <vector>

namespace kseek {

void SummarizeRun(kernelseek::v1::RunResult* result) {
  double log_speedup = 0, log_tflops = 0;
  int speedups = 0, timed = 0;
  const int baselines = result->baselines_size();
  std::vector<double> log_speedup_of(baselines, 0);
  std::vector<int> timed_of(baselines, 0);
  std::vector<const kernelseek::v1::ScenarioResult*> lowest_of(baselines, nullptr);
  std::vector<double> lowest_speedup_of(baselines, 0);
  result->set_passed(0);
  result->set_failed(0);
  result->clear_geomean_speedup();
  result->clear_geomean_tflops();
  for (kernelseek::v1::ScenarioResult& r : *result->mutable_scenarios()) {
    r.clear_speedup();
    if (r.baseline_median_ms() > 0 && r.median_ms() > 0) r.set_speedup(r.baseline_median_ms() / r.median_ms());
    for (kernelseek::v1::BaselineFigure& figure : *r.mutable_baselines()) {
      figure.clear_speedup();
      if (figure.median_ms() <= 0 || r.median_ms() <= 0) continue;
      figure.set_speedup(figure.median_ms() / r.median_ms());
      for (int b = 0; b < baselines; ++b) {
        if (result->baselines(b).name() != figure.name()) continue;
        log_speedup_of[b] += std::log(figure.speedup());
        ++timed_of[b];
        if (lowest_of[b] == nullptr || figure.speedup() < lowest_speedup_of[b]) {
          lowest_of[b] = &r;
          lowest_speedup_of[b] = figure.speedup();
        }
        break;
      }
    }
    if (r.passed()) {
      result->set_passed(result->passed() + 1);
    } else {
      result->set_failed(result->failed() + 1);
    }
    if (r.tflops() > 0) {
      log_tflops += std::log(r.tflops());
      ++timed;
    }
    if (r.speedup() > 0) {
      log_speedup += std::log(r.speedup());
      ++speedups;
    }
  }
  if (timed > 0) result->set_geomean_tflops(std::exp(log_tflops / timed));
  if (speedups > 0) result->set_geomean_speedup(std::exp(log_speedup / speedups));
  for (int b = 0; b < baselines; ++b) {
    kernelseek::v1::BaselineSummary* summary = result->mutable_baselines(b);
    summary->set_timed(timed_of[b]);
    summary->clear_geomean_speedup();
    summary->clear_lowest_scenario();
    summary->clear_lowest_speedup();
    if (timed_of[b] == 0) continue;
    summary->set_geomean_speedup(std::exp(log_speedup_of[b] / timed_of[b]));
    summary->set_lowest_scenario(lowest_of[b]->id());
    summary->set_lowest_speedup(lowest_speedup_of[b]);
  }
}

}  // namespace kseek
