#include "worker/runner/gpu_clock.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

namespace kseek::runner {
namespace {

// From nvml.h, which is not needed at build time.
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;

}  // namespace

SmClock::SmClock(int cuda_device) : cuda_device_(cuda_device) {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) return;
  auto init = reinterpret_cast<int (*)()>(dlsym(library_, "nvmlInit_v2"));
  auto by_bus = reinterpret_cast<int (*)(const char*, void**)>(
      dlsym(library_, "nvmlDeviceGetHandleByPciBusId_v2"));
  get_clock_ = reinterpret_cast<int (*)(void*, int, unsigned int*)>(
      dlsym(library_, "nvmlDeviceGetClockInfo"));
  shutdown_ = reinterpret_cast<int (*)()>(dlsym(library_, "nvmlShutdown"));
  char bus_id[64] = {0};
  // NVML numbers devices differently from CUDA_VISIBLE_DEVICES; the PCI bus id
  // names the same GPU in both.
  if (init == nullptr || by_bus == nullptr || get_clock_ == nullptr || shutdown_ == nullptr ||
      cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), cuda_device_) != cudaSuccess ||
      init() != kNvmlSuccess) {
    get_clock_ = nullptr;
    shutdown_ = nullptr;
    return;
  }
  if (by_bus(bus_id, &nvml_device_) != kNvmlSuccess) get_clock_ = nullptr;
}

SmClock::~SmClock() {
  if (shutdown_ != nullptr) (void)shutdown_();  // nothing to do if shutdown fails at exit
  if (library_ != nullptr) dlclose(library_);
}

ClockReading SmClock::Read() const {
  ClockReading reading;
  unsigned int mhz = 0;
  if (get_clock_ != nullptr && get_clock_(nvml_device_, kNvmlClockSm, &mhz) == kNvmlSuccess) {
    reading.sm_mhz = mhz;
    reading.source = "nvml";
    return reading;
  }
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, cuda_device_) == cudaSuccess) {
    reading.sm_mhz = khz / 1000.0;
    reading.source = "cuda_attribute_peak";
  } else {
    reading.source = "unavailable";
  }
  return reading;
}

}  // namespace kseek::runner
