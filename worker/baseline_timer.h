// BaselineTimer: times what a user would pick instead of the candidate (the
// problem's baseline program, e.g. PyTorch SDPA with cuDNN) on this worker's
// GPU, and keeps what it measured in a cache keyed by (GPU model, driver,
// baseline name and version, problem, scenario).
//
// By default every bench measures the baseline afresh, in the same job as the
// candidate, since the same GPU drifts by several percent between runs; a job
// that asks to reuse baselines gets cached timings where the cache has them
// and has only the rest measured. The cache is one JSON file per (GPU,
// driver, problem, baseline) in the cache directory, rewritten atomically.
// Thread-compatible: one instance per job, or external locking.
#ifndef KERNELSEEK_WORKER_BASELINE_TIMER_H_
#define KERNELSEEK_WORKER_BASELINE_TIMER_H_

#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "proto/problem.pb.h"
#include "problem/problem.h"

namespace kseek {

struct BaselineTimerConfig {
  std::string python = "python3";
  std::string python_path;    // prepended to the program's PYTHONPATH; empty: none
  std::string baselines_dir;  // holds PROBLEM_baseline.py
  std::string cache_dir;      // empty: no cache
  std::string work_dir;       // for the request file
  absl::Duration startup_allowance = absl::Seconds(120);
};

struct BaselineTiming {
  bool ok = false;
  double median_ms = 0;
  std::string error;          // why there is no timing
  bool cached = false;
};

struct BaselineTimings {
  std::string baseline;       // "cudnn (torch 2.11.0+cu130 cudnn 91900)"
  std::map<std::string, BaselineTiming> by_id;
};

class BaselineTimer {
 public:
  explicit BaselineTimer(BaselineTimerConfig config) : config_(std::move(config)) {}

  // Times `backend` on `scenarios`; every scenario gets an entry, with an
  // error where the baseline could not run it.
  BaselineTimings Time(const Problem& problem, const std::vector<const kernelseek::v1::ScenarioSpec*>& scenarios,
                       const std::string& backend, double max_seconds, const std::string& gpu,
                       const std::string& driver, bool reuse_cached) const;

 private:
  std::string CachePath(const std::string& problem, const std::string& backend, const std::string& gpu,
                        const std::string& driver) const;

  BaselineTimerConfig config_;
};

}  // namespace kseek

#endif  // KERNELSEEK_WORKER_BASELINE_TIMER_H_
