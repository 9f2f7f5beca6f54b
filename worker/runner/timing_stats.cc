#include "worker/runner/timing_stats.h"

#include <algorithm>
#include <cmath>

namespace kseek::runner {
namespace {

// Linear interpolation between order statistics of sorted `v`.
double Quantile(const std::vector<double>& v, double q) {
  double pos = q * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

TimingSummary SummarizeTimings(std::vector<double> samples_ms) {
  TimingSummary s;
  if (samples_ms.empty()) return s;
  std::sort(samples_ms.begin(), samples_ms.end());
  s.reps = static_cast<int>(samples_ms.size());
  s.median_ms = Quantile(samples_ms, 0.5);
  s.min_ms = samples_ms.front();
  s.max_ms = samples_ms.back();
  double sum = 0;
  for (double x : samples_ms) sum += x;
  s.mean_ms = sum / s.reps;
  double sq = 0;
  for (double x : samples_ms) sq += (x - s.mean_ms) * (x - s.mean_ms);
  s.stddev_ms = s.reps > 1 ? std::sqrt(sq / (s.reps - 1)) : 0;
  if (s.median_ms > 0) {
    s.stderr_pct = 100.0 * s.stddev_ms / std::sqrt(static_cast<double>(s.reps)) / s.median_ms;
    s.spread_pct =
        100.0 * (Quantile(samples_ms, 0.9) - Quantile(samples_ms, 0.1)) / s.median_ms;
  }
  return s;
}

bool TimingIsStable(const TimingSummary& summary, int min_reps, double max_stderr_pct) {
  return summary.reps >= min_reps && summary.stderr_pct < max_stderr_pct;
}

double WarmupSeconds(double bench_seconds) { return std::clamp(bench_seconds / 4, 0.0, 0.25); }

}  // namespace kseek::runner
