// GPU-side operations on whole tensors that the harness needs for any
// problem: random inputs from a seed, NaN poison, the element-wise
// comparison of a candidate's output with the references, and byte equality.
// Functions that return numbers synchronise the stream they are given.
#ifndef KERNELSEEK_WORKER_RUNNER_DEVICE_TENSORS_H_
#define KERNELSEEK_WORKER_RUNNER_DEVICE_TENSORS_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "absl/status/statusor.h"
#include "proto/problem.pb.h"
#include "worker/runner/scenario_layout.h"
#include "worker/runner/tolerance.h"

namespace kseek::runner {

// Quiet NaNs with payloads that arithmetic does not produce (it yields the
// canonical NaN), so an element still holding one was never written.
inline constexpr uint32_t kPoisonF32 = 0x7FDEAD5Au;
inline constexpr uint16_t kPoisonF16 = 0x7E5Au;
inline constexpr uint16_t kPoisonBF16 = 0x7FDAu;

// An input's values: fill.mean + fill.std * z + the ramp at the element's
// index along the ramp's axis, z standard normal (Box-Muller over a
// counter-based hash of seed and index), rounded to `dtype`. The same (seed,
// n, fill) always gives the same values; the default fill gives z itself.
absl::Status FillInput(void* data, kernelseek::v1::TensorDtype dtype, int64_t n, uint64_t seed,
                       const InputFillSpec& fill, cudaStream_t stream);

absl::Status FillPoison(void* data, kernelseek::v1::TensorDtype dtype, int64_t n,
                        cudaStream_t stream);

// dst[i] = float(src[i]).
absl::Status ConvertToF32(const void* src, kernelseek::v1::TensorDtype dtype, int64_t n,
                          float* dst, cudaStream_t stream);

// Compares `candidate` and `lowprec` (both `dtype`) with `exact` (fp32).
absl::StatusOr<OutputErrors> CompareOutput(const void* candidate, const void* lowprec,
                                           const float* exact, kernelseek::v1::TensorDtype dtype,
                                           int64_t n, cudaStream_t stream);

// Number of bytes at which `a` and `b` differ.
absl::StatusOr<int64_t> CountDifferentBytes(const void* a, const void* b, size_t bytes,
                                            cudaStream_t stream);

}  // namespace kseek::runner

#endif  // KERNELSEEK_WORKER_RUNNER_DEVICE_TENSORS_H_
