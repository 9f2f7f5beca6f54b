// SmClock: reads (never sets) the SM clock of one GPU. Uses NVML, loaded with
// dlopen so the runner starts where libnvidia-ml is missing; then falls back
// to cudaDevAttrClockRate, which is the peak clock, not the current one, and
// says so in ClockReading::source. Not thread-safe; one per runner.
#ifndef KERNELSEEK_WORKER_RUNNER_GPU_CLOCK_H_
#define KERNELSEEK_WORKER_RUNNER_GPU_CLOCK_H_

#include "worker/runner/run_report.h"

namespace kseek::runner {

class SmClock {
 public:
  explicit SmClock(int cuda_device);
  ~SmClock();
  SmClock(const SmClock&) = delete;
  SmClock& operator=(const SmClock&) = delete;

  ClockReading Read() const;

 private:
  int cuda_device_;
  void* library_ = nullptr;
  void* nvml_device_ = nullptr;
  int (*get_clock_)(void* device, int clock_type, unsigned int* mhz) = nullptr;
  int (*shutdown_)() = nullptr;
};

}  // namespace kseek::runner

#endif  // KERNELSEEK_WORKER_RUNNER_GPU_CLOCK_H_
