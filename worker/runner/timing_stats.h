// Summary statistics of repeated kernel timings and the rule for when to stop
// repeating. Plain functions.
#ifndef KERNELSEEK_WORKER_RUNNER_TIMING_STATS_H_
#define KERNELSEEK_WORKER_RUNNER_TIMING_STATS_H_

#include <vector>

namespace kseek::runner {

struct TimingSummary {
  int reps = 0;
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  double mean_ms = 0;
  double stddev_ms = 0;
  // Standard error of the mean as a percentage of the median.
  double stderr_pct = 0;
  // (p90 - p10) / median, in percent: the spread a reader should expect.
  double spread_pct = 0;
};

TimingSummary SummarizeTimings(std::vector<double> samples_ms);

// True once there are at least `min_reps` samples and the standard error is
// below `max_stderr_pct` percent of the median.
bool TimingIsStable(const TimingSummary& summary, int min_reps, double max_stderr_pct);

}  // namespace kseek::runner

#endif  // KERNELSEEK_WORKER_RUNNER_TIMING_STATS_H_
