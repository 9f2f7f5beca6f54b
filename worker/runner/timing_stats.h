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

// How long a bench repeats a launch, untimed, before timing it: a quarter of
// the time cap, at most 0.25 s (and at least 3 launches, the caller's rule).
// Long enough for the clock to settle where the GPU's power limit puts it
// under this kernel's own load. With a few launches only, a long kernel was
// timed at whatever clock the previous work had left: on the H200, 1.98 GHz
// after idle against 1.56-1.71 GHz sustained at the 690 W limit. The
// baseline script (worker/baselines/) applies the same rule.
double WarmupSeconds(double bench_seconds);

}  // namespace kseek::runner

#endif  // KERNELSEEK_WORKER_RUNNER_TIMING_STATS_H_
