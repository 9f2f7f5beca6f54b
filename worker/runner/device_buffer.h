// DeviceBuffer: one cudaMalloc'd allocation, freed on destruction. Move-only;
// not thread-safe (one owner).
#ifndef KERNELSEEK_WORKER_RUNNER_DEVICE_BUFFER_H_
#define KERNELSEEK_WORKER_RUNNER_DEVICE_BUFFER_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "absl/status/statusor.h"
#include "worker/runner/cuda_check.h"

namespace kseek::runner {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      Free();
      data_ = std::exchange(other.data_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { Free(); }

  // RESOURCE_EXHAUSTED-like INTERNAL status from cudaMalloc on failure.
  static absl::StatusOr<DeviceBuffer> Allocate(size_t bytes) {
    DeviceBuffer buffer;
    if (bytes == 0) return buffer;
    absl::Status status = CudaStatus(cudaMalloc(&buffer.data_, bytes), "cudaMalloc");
    if (!status.ok()) {
      return absl::ResourceExhaustedError(
          absl::StrCat("allocating ", bytes, " bytes: ", status.message()));
    }
    buffer.bytes_ = bytes;
    return buffer;
  }

  void* data() const { return data_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  size_t bytes() const { return bytes_; }

 private:
  void Free() {
    // A free can only fail once the context is lost, when nothing can be done.
    if (data_ != nullptr) (void)cudaFree(data_);
    data_ = nullptr;
    bytes_ = 0;
  }

  void* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace kseek::runner

#endif  // KERNELSEEK_WORKER_RUNNER_DEVICE_BUFFER_H_
