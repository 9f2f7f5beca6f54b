// RunExecutor: the verify, bench and profile jobs of a GPU worker.
//
// Builds the candidate into a shared object, runs kseek-runner on the chosen
// scenarios of the problem (a fresh process each time, so a kernel that
// faults or hangs takes only that process down), and for bench jobs times the
// baseline program on the same scenarios, alternating with the runner chunk
// by chunk so both see the GPU in the same state (with several baselines,
// each in turn after the candidate's chunk); with RunOptions.rounds > 1
// all of that again, every second round in the opposite order, keeping each
// side's fastest round. Every number in the result comes from those
// programs. A profile job runs the runner on one scenario under Nsight
// Compute (ncu), profiling only the candidate's own kernels.
// Immutable after construction; Run and Profile may be called on several
// threads at once.
#ifndef KERNELSEEK_WORKER_RUN_EXECUTOR_H_
#define KERNELSEEK_WORKER_RUN_EXECUTOR_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/subprocess.h"
#include "proto/kernelseek.pb.h"
#include "worker/compiler.h"
#include "worker/job_executor.h"
#include "worker/sandbox.h"

namespace kseek {

struct RunExecutorConfig {
  std::string runner_path;      // kseek-runner
  std::string scenarios_dir;    // holds PROBLEM/problem.textproto
  std::string baselines_dir;    // holds PROBLEM_baseline.py
  std::string baseline_cache_dir;  // see BaselineTimer; empty: no cache
  std::string python = "python3";
  // Prepended to the baseline program's PYTHONPATH (the worker's wheel
  // folder, installed; see WheelSite); empty: none.
  std::string python_path;
  std::string temp_dir = "/tmp";
  // Hex key the hidden scenario seeds are drawn from; never leaves the worker.
  std::string hidden_seed_key;
  double gpu_mem_cap_gb = 0;    // 0: no cap beyond the GPU's memory
  // Scenarios per runner process in a bench job; the baseline runs on the
  // same chunk right after, so a drift in clocks hits both alike.
  int bench_chunk = 12;
  // Wall-clock allowance per scenario on top of its timing budget, and for
  // process start-up; past these the process is killed.
  absl::Duration per_scenario_allowance = absl::Seconds(120);
  absl::Duration startup_allowance = absl::Seconds(120);
  // Nsight Compute's CLI; empty: profile jobs are refused. A profiled runner
  // gets kProfileSlowdown times the allowance of one verified scenario,
  // since ncu replays each profiled launch many times.
  std::string ncu_path;
  std::string ncu_version;
  // Where kseek-runner and ncu run: they load a user's shared object. Not
  // owned; null means Sandbox::Disabled() (limits and clean environment).
  const Sandbox* sandbox = nullptr;
};

// Folds one more bench round of a scenario into what `kept` holds: the
// scenario fails if it failed in any round; the candidate's timing is the
// fastest round's (lowest median), and so, separately, is the baseline's.
// The speedup is left to the caller.
void KeepBestRound(const kernelseek::v1::ScenarioResult& round, kernelseek::v1::ScenarioResult* kept);

class RunExecutor {
 public:
  RunExecutor(const Compiler* compiler, RunExecutorConfig config);

  // A Status error only for a job this worker cannot run at all (unknown
  // problem, runner missing); a kernel that fails to build, is wrong, faults
  // or hangs is a RunResult saying so.
  absl::StatusOr<kernelseek::v1::RunResult> Run(const kernelseek::v1::JobSpec& spec,
                                               const StageReporter& report) const;

  static constexpr int kProfileSlowdown = 4;

  // A profile job: builds the candidate, then runs `ncu ... kseek-runner
  // --mode verify --scenarios ID` on the job's single scenario. A Status error
  // for a job this worker cannot run (no ncu, not exactly one scenario,
  // unknown problem, runner missing); ncu failing (e.g. no permission for the
  // GPU's performance counters) is a ProfileResult whose `error` says so.
  // With RunOptions.hotspots > 0, a second ncu run samples warp stalls per
  // SASS instruction (the source page) and fills the kernels' hot_spots; its
  // failure only adds to `error`.
  absl::StatusOr<kernelseek::v1::ProfileResult> Profile(const kernelseek::v1::JobSpec& spec,
                                                       const StageReporter& report) const;

 private:
  // PROBLEM's manifest under the worker's scenarios folder.
  std::string ManifestPath(const std::string& problem) const;

  // kseek-runner on `scenarios` (comma-separated ids) of the kernel at
  // so_path, in `mode` (verify or bench), with the worker's hidden-seed key
  // and GPU memory cap; the one command line of Run and Profile.
  std::vector<std::string> RunnerArgv(const std::string& manifest_path, const std::string& so_path,
                                      const std::string& mode, const std::string& scenarios) const;

  // Time and output limits of an ncu run of a profile job: kProfileSlowdown
  // times one verified scenario's allowance, since ncu replays each launch.
  void SetNcuLimits(SubprocessSpec* ncu) const;

  // Puts a kseek-runner command (or ncu running one) into a GPU sandbox that
  // can write `work_dir` and read the problems, with the hidden-seed key on
  // its stdin (RunnerArgv asks for it there, never on the command line).
  void Sandboxed(const std::string& work_dir, SubprocessSpec* spec) const;

  // The second ncu run of a profile job; returns why it gave no (or only
  // part of its) hot spots, "" when all went well.
  std::string AddHotSpots(const std::vector<std::string>& functions, const std::vector<std::string>& runner_argv,
                          const std::string& work_dir, int hotspots, kernelseek::v1::ProfileResult* result) const;

  const Compiler* const compiler_;
  const RunExecutorConfig config_;
  const Sandbox unsandboxed_ = Sandbox::Disabled();
  const Sandbox* const sandbox_;  // config_.sandbox, or unsandboxed_
};

}  // namespace kseek

#endif  // KERNELSEEK_WORKER_RUN_EXECUTOR_H_
