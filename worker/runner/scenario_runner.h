// ScenarioRunner: runs one candidate kernel on one scenario at a time on the
// current GPU: fresh seeded inputs, poisoned outputs, two input sets each
// checked against the reference right after the candidate's stream is
// synchronised, then (bench mode) timing. Owns its streams, cuBLAS handle,
// L2-flush buffer and events. Not thread-safe; one per runner process.
#ifndef KERNELSEEK_WORKER_RUNNER_SCENARIO_RUNNER_H_
#define KERNELSEEK_WORKER_RUNNER_SCENARIO_RUNNER_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "worker/runner/device_buffer.h"
#include "worker/runner/gpu_clock.h"
#include "worker/runner/kernel_abi.h"
#include "problem/problem.h"
#include "worker/runner/reference.h"
#include "worker/runner/run_report.h"

namespace kseek::runner {

using LaunchFn = int (*)(const KseekArgs* args, cudaStream_t stream);

struct RunnerOptions {
  bool bench = false;
  double bench_seconds = 10;             // cap on timed repetitions per scenario
  double max_stderr_pct = 0.5;           // stop once the standard error is below this
  int min_reps = 10;
  double gpu_mem_cap_bytes = 0;          // 0: no cap
  size_t reference_workspace_bytes = size_t{512} << 20;
};

class ScenarioRunner {
 public:
  static absl::StatusOr<std::unique_ptr<ScenarioRunner>> Create(const Problem* problem,
                                                                LaunchFn launch,
                                                                ReferenceFn reference,
                                                                RunnerOptions options);
  ~ScenarioRunner();

  // Runs `scenario` with inputs from `seed` and fills the status, reason,
  // checks and timing of `result`. A wrong or crashing kernel is a result, not
  // an error; the returned status is UNAVAILABLE only when the GPU context is
  // lost and nothing more can run in this process.
  absl::Status Run(const kernelseek::v1::ScenarioSpec& scenario, uint64_t seed,
                   ScenarioResult* result);

 private:
  ScenarioRunner(const Problem* problem, LaunchFn launch, ReferenceFn reference,
                 RunnerOptions options);
  absl::Status Init();

  // Fails `result` with `reason`; returns UNAVAILABLE if the context is gone.
  absl::Status FailWithCudaError(ScenarioResult* result, const std::string& reason);
  absl::Status Bench(const KseekArgs& args, ScenarioResult* result);

  const Problem* problem_;
  LaunchFn launch_;
  ReferenceFn reference_;
  RunnerOptions options_;
  int device_ = 0;
  cudaStream_t launch_stream_ = nullptr;  // the candidate's stream only
  cudaStream_t work_stream_ = nullptr;    // inputs, poison, reference, comparison
  cudaStream_t check_stream_ = nullptr;   // snapshots of outputs right after the launch
  cublasHandle_t cublas_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  DeviceBuffer flush_;
  std::unique_ptr<SmClock> clock_;
};

}  // namespace kseek::runner

#endif  // KERNELSEEK_WORKER_RUNNER_SCENARIO_RUNNER_H_
