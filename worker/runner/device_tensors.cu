#include "worker/runner/device_tensors.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "worker/runner/cuda_check.h"
#include "worker/runner/device_buffer.h"

namespace kseek::runner {
namespace {

using kernelseek::v1::TensorDtype;

constexpr int kThreads = 256;

int Blocks(int64_t n) {
  return static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, 4096));
}

// Element types as small integers usable in device code.
enum class Elem { kF32, kF16, kBF16 };

absl::StatusOr<Elem> ElemOf(TensorDtype dtype) {
  switch (dtype) {
    case kernelseek::v1::DTYPE_F32:
      return Elem::kF32;
    case kernelseek::v1::DTYPE_F16:
      return Elem::kF16;
    case kernelseek::v1::DTYPE_BF16:
      return Elem::kBF16;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("no device type for dtype ", kernelseek::v1::TensorDtype_Name(dtype)));
  }
}

__device__ __forceinline__ uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__device__ __forceinline__ float Load(const void* p, Elem e, int64_t i) {
  switch (e) {
    case Elem::kF32:
      return static_cast<const float*>(p)[i];
    case Elem::kF16:
      return __half2float(static_cast<const __half*>(p)[i]);
    default:
      return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
  }
}

__device__ __forceinline__ bool IsPoison(const void* p, Elem e, int64_t i) {
  switch (e) {
    case Elem::kF32:
      return static_cast<const uint32_t*>(p)[i] == kPoisonF32;
    case Elem::kF16:
      return static_cast<const uint16_t*>(p)[i] == kPoisonF16;
    default:
      return static_cast<const uint16_t*>(p)[i] == kPoisonBF16;
  }
}

__global__ void FillInputKernel(void* data, Elem e, int64_t n, uint64_t seed, InputFillSpec fill) {
  const double ramp_step =
      fill.ramp_extent > 1 ? (fill.ramp_to - fill.ramp_from) / double(fill.ramp_extent - 1) : 0.0;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    uint64_t h1 = Mix64(seed + 0x9E3779B97F4A7C15ull * (2 * static_cast<uint64_t>(i) + 1));
    uint64_t h2 = Mix64(h1 ^ 0xD1B54A32D192ED03ull);
    // u1 in (0, 1] keeps log finite; u2 in [0, 1).
    double u1 = (static_cast<double>(h1 >> 11) + 1.0) * 0x1.0p-53;
    double u2 = static_cast<double>(h2 >> 11) * 0x1.0p-53;
    double x = fill.mean + fill.std * (sqrt(-2.0 * log(u1)) * cospi(2.0 * u2));
    if (fill.ramp_stride > 0) {
      x += fill.ramp_from + ramp_step * double((i / fill.ramp_stride) % fill.ramp_extent);
    }
    float v = static_cast<float>(x);
    switch (e) {
      case Elem::kF32:
        static_cast<float*>(data)[i] = v;
        break;
      case Elem::kF16:
        static_cast<__half*>(data)[i] = __float2half_rn(v);
        break;
      default:
        static_cast<__nv_bfloat16*>(data)[i] = __float2bfloat16_rn(v);
        break;
    }
  }
}

__global__ void FillPoisonKernel(void* data, Elem e, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    if (e == Elem::kF32) {
      static_cast<uint32_t*>(data)[i] = kPoisonF32;
    } else {
      static_cast<uint16_t*>(data)[i] = e == Elem::kF16 ? kPoisonF16 : kPoisonBF16;
    }
  }
}

__global__ void ConvertKernel(const void* src, Elem e, int64_t n, float* dst) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    dst[i] = Load(src, e, i);
  }
}

struct CompareStats {
  unsigned long long unwritten;
  unsigned long long nan;
  unsigned long long inf_mismatch;
  unsigned long long lowprec_nonfinite;
  unsigned long long max_err_bits;     // bits of a non-negative double
  unsigned long long lp_max_err_bits;  // bits of a non-negative double
  double sum_sq_err;
  double sum_sq_ref;
};

__device__ __forceinline__ double WarpSum(double v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ double WarpMax(double v) {
  for (int o = 16; o > 0; o /= 2) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__global__ void CompareKernel(const void* cand, const void* lowprec, const float* exact, Elem e,
                              int64_t n, CompareStats* stats) {
  unsigned long long unwritten = 0, nan = 0, inf_mismatch = 0, lp_bad = 0;
  double max_err = 0, lp_max_err = 0, sum_sq_err = 0, sum_sq_ref = 0;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    if (IsPoison(cand, e, i)) {
      ++unwritten;
      continue;
    }
    float c = Load(cand, e, i);
    float r = exact[i];
    float l = Load(lowprec, e, i);
    if (isnan(c)) {
      ++nan;
      continue;
    }
    if (isinf(r)) {
      if (c != r) ++inf_mismatch;
      continue;
    }
    if (isinf(c)) {
      ++inf_mismatch;
      continue;
    }
    double err = fabs(static_cast<double>(c) - r);
    max_err = fmax(max_err, err);
    sum_sq_err += err * err;
    sum_sq_ref += static_cast<double>(r) * r;
    if (isfinite(l)) {
      lp_max_err = fmax(lp_max_err, fabs(static_cast<double>(l) - r));
    } else {
      ++lp_bad;
    }
  }
  max_err = WarpMax(max_err);
  lp_max_err = WarpMax(lp_max_err);
  sum_sq_err = WarpSum(sum_sq_err);
  sum_sq_ref = WarpSum(sum_sq_ref);
  if (unwritten) atomicAdd(&stats->unwritten, unwritten);
  if (nan) atomicAdd(&stats->nan, nan);
  if (inf_mismatch) atomicAdd(&stats->inf_mismatch, inf_mismatch);
  if (lp_bad) atomicAdd(&stats->lowprec_nonfinite, lp_bad);
  if ((threadIdx.x & 31) == 0) {
    atomicMax(&stats->max_err_bits, static_cast<unsigned long long>(__double_as_longlong(max_err)));
    atomicMax(&stats->lp_max_err_bits,
              static_cast<unsigned long long>(__double_as_longlong(lp_max_err)));
    atomicAdd(&stats->sum_sq_err, sum_sq_err);
    atomicAdd(&stats->sum_sq_ref, sum_sq_ref);
  }
}

__global__ void CountDifferentKernel(const unsigned char* a, const unsigned char* b, size_t n,
                                     unsigned long long* count) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    local += a[i] != b[i];
  }
  if (local) atomicAdd(count, local);
}

}  // namespace

absl::Status FillInput(void* data, TensorDtype dtype, int64_t n, uint64_t seed,
                       const InputFillSpec& fill, cudaStream_t stream) {
  absl::StatusOr<Elem> e = ElemOf(dtype);
  if (!e.ok()) return e.status();
  if (n == 0) return absl::OkStatus();
  FillInputKernel<<<Blocks(n), kThreads, 0, stream>>>(data, *e, n, seed, fill);
  return CudaStatus(cudaGetLastError(), "FillInputKernel launch");
}

absl::Status FillPoison(void* data, TensorDtype dtype, int64_t n, cudaStream_t stream) {
  absl::StatusOr<Elem> e = ElemOf(dtype);
  if (!e.ok()) return e.status();
  if (n == 0) return absl::OkStatus();
  FillPoisonKernel<<<Blocks(n), kThreads, 0, stream>>>(data, *e, n);
  return CudaStatus(cudaGetLastError(), "FillPoisonKernel launch");
}

absl::Status ConvertToF32(const void* src, TensorDtype dtype, int64_t n, float* dst,
                          cudaStream_t stream) {
  absl::StatusOr<Elem> e = ElemOf(dtype);
  if (!e.ok()) return e.status();
  if (n == 0) return absl::OkStatus();
  ConvertKernel<<<Blocks(n), kThreads, 0, stream>>>(src, *e, n, dst);
  return CudaStatus(cudaGetLastError(), "ConvertKernel launch");
}

absl::StatusOr<OutputErrors> CompareOutput(const void* candidate, const void* lowprec,
                                           const float* exact, TensorDtype dtype, int64_t n,
                                           cudaStream_t stream) {
  absl::StatusOr<Elem> e = ElemOf(dtype);
  if (!e.ok()) return e.status();
  absl::StatusOr<DeviceBuffer> stats = DeviceBuffer::Allocate(sizeof(CompareStats));
  if (!stats.ok()) return stats.status();
  KSEEK_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(stats->data(), 0, sizeof(CompareStats), stream));
  if (n > 0) {
    CompareKernel<<<Blocks(n), kThreads, 0, stream>>>(candidate, lowprec, exact, *e, n,
                                                      stats->as<CompareStats>());
    KSEEK_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  }
  CompareStats host;
  KSEEK_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(&host, stats->data(), sizeof(host), cudaMemcpyDeviceToHost, stream));
  KSEEK_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  OutputErrors out;
  out.elements = n;
  out.unwritten = static_cast<int64_t>(host.unwritten);
  out.nan = static_cast<int64_t>(host.nan);
  out.inf_mismatch = static_cast<int64_t>(host.inf_mismatch);
  out.lowprec_nonfinite = static_cast<int64_t>(host.lowprec_nonfinite);
  static_assert(sizeof(double) == sizeof(unsigned long long));
  std::memcpy(&out.max_abs_err, &host.max_err_bits, sizeof(double));
  std::memcpy(&out.lowprec_max_abs_err, &host.lp_max_err_bits, sizeof(double));
  out.sum_sq_err = host.sum_sq_err;
  out.sum_sq_ref = host.sum_sq_ref;
  return out;
}

absl::StatusOr<int64_t> CountDifferentBytes(const void* a, const void* b, size_t bytes,
                                            cudaStream_t stream) {
  absl::StatusOr<DeviceBuffer> count = DeviceBuffer::Allocate(sizeof(unsigned long long));
  if (!count.ok()) return count.status();
  KSEEK_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(count->data(), 0, sizeof(unsigned long long), stream));
  if (bytes > 0) {
    CountDifferentKernel<<<Blocks(static_cast<int64_t>(bytes)), kThreads, 0, stream>>>(
        static_cast<const unsigned char*>(a), static_cast<const unsigned char*>(b), bytes,
        count->as<unsigned long long>());
    KSEEK_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  }
  unsigned long long host = 0;
  KSEEK_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(&host, count->data(), sizeof(host), cudaMemcpyDeviceToHost, stream));
  KSEEK_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return static_cast<int64_t>(host);
}

}  // namespace kseek::runner
