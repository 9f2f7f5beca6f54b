// Reference for attention_fwd: O = softmax(scale * Q K^T + mask) V and the
// log-sum-exp of each row, per (batch, query head), with K/V head = head / g.
//
// Both paths use cuBLAS strided-batched GEMMs over the g query heads that share
// one K/V head (the K/V operand has stride 0), chunked over query rows so the
// score block stays within the workspace however long the sequence is:
//   exact:   fp32 copies of Q, K, V; fp32 GEMMs with CUBLAS_COMPUTE_32F_PEDANTIC
//            (no TF32); fp32 softmax with a double row sum.
//   lowprec: what a plain implementation in the input dtype does (FlashAttention's
//            attention_ref with upcast=False): scores rounded to the dtype, scaled
//            and rounded again, softmax in fp32 and the probabilities rounded to
//            the dtype, P V accumulated in fp32 and rounded to the dtype.
// Causal masking is bottom-right aligned: query i sees keys j <= i + s_k - s_q.
// A row that sees no key has O = 0 and LSE = -inf in both paths.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "worker/runner/cuda_check.h"
#include "worker/runner/device_buffer.h"
#include "worker/runner/device_tensors.h"
#include "worker/runner/reference.h"

namespace kseek::runner {
namespace {

constexpr int kSoftmaxThreads = 256;

struct AttentionDims {
  int64_t b, s_q, s_k, h, h_kv, d, g;
  float scale;
  bool causal;
  int q, k, v, o, lse;  // tensor indices
};

absl::StatusOr<AttentionDims> ReadDims(const ScenarioLayout& layout) {
  AttentionDims dims;
  const Bindings& v = layout.bindings;
  for (const char* name : {"b", "s_q", "s_k", "h", "h_kv", "d", "scale", "causal"}) {
    if (v.find(name) == v.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("attention_fwd reference: the manifest has no '", name, "'"));
    }
  }
  dims.b = static_cast<int64_t>(v.at("b"));
  dims.s_q = static_cast<int64_t>(v.at("s_q"));
  dims.s_k = static_cast<int64_t>(v.at("s_k"));
  dims.h = static_cast<int64_t>(v.at("h"));
  dims.h_kv = static_cast<int64_t>(v.at("h_kv"));
  dims.d = static_cast<int64_t>(v.at("d"));
  dims.scale = static_cast<float>(v.at("scale"));
  dims.causal = v.at("causal") != 0;
  if (dims.h_kv <= 0 || dims.h % dims.h_kv != 0) {
    return absl::InvalidArgumentError(absl::StrCat("h = ", dims.h, " is not a multiple of h_kv = ",
                                                   dims.h_kv));
  }
  dims.g = dims.h / dims.h_kv;
  dims.q = layout.TensorIndex("q");
  dims.k = layout.TensorIndex("k");
  dims.v = layout.TensorIndex("v");
  dims.o = layout.TensorIndex("o");
  dims.lse = layout.TensorIndex("lse");
  if (dims.q < 0 || dims.k < 0 || dims.v < 0 || dims.o < 0 || dims.lse < 0) {
    return absl::InvalidArgumentError(
        "attention_fwd reference: the manifest needs tensors q, k, v, o, lse");
  }
  const auto& t = layout.tensors;
  auto same = [](const TensorLayout& tl, std::vector<int64_t> shape) { return tl.shape == shape; };
  if (!same(t[dims.q], {dims.b, dims.s_q, dims.h, dims.d}) ||
      !same(t[dims.k], {dims.b, dims.s_k, dims.h_kv, dims.d}) ||
      !same(t[dims.v], {dims.b, dims.s_k, dims.h_kv, dims.d}) ||
      !same(t[dims.o], {dims.b, dims.s_q, dims.h, dims.d}) ||
      !same(t[dims.lse], {dims.b, dims.h, dims.s_q}) ||
      t[dims.lse].dtype != kernelseek::v1::DTYPE_F32 || t[dims.o].dtype != t[dims.q].dtype ||
      t[dims.k].dtype != t[dims.q].dtype || t[dims.v].dtype != t[dims.q].dtype) {
    return absl::InvalidArgumentError(
        "attention_fwd reference: tensor shapes or dtypes differ from q/k/v/o [b,s,h,d], "
        "lse [b,h,s_q] f32");
  }
  return dims;
}

template <typename T>
struct DtypeTraits;
template <>
struct DtypeTraits<__nv_bfloat16> {
  static constexpr cudaDataType_t kCuda = CUDA_R_16BF;
  __device__ static float ToFloat(__nv_bfloat16 x) { return __bfloat162float(x); }
  __device__ static __nv_bfloat16 FromFloat(float x) { return __float2bfloat16_rn(x); }
};
template <>
struct DtypeTraits<__half> {
  static constexpr cudaDataType_t kCuda = CUDA_R_16F;
  __device__ static float ToFloat(__half x) { return __half2float(x); }
  __device__ static __half FromFloat(float x) { return __float2half_rn(x); }
};

// Reduces over the block; every thread gets the result.
template <bool kIsMax>
__device__ float BlockReduce(float value) {
  __shared__ float partial[kSoftmaxThreads / 32];
  for (int o = 16; o > 0; o /= 2) {
    float other = __shfl_xor_sync(0xffffffffu, value, o);
    value = kIsMax ? fmaxf(value, other) : value + other;
  }
  __syncthreads();  // `partial` may still be read from the previous call
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = value;
  __syncthreads();
  value = partial[0];
  for (int w = 1; w < kSoftmaxThreads / 32; ++w) {
    value = kIsMax ? fmaxf(value, partial[w]) : value + partial[w];
  }
  return value;
}

__device__ double BlockSumDouble(double value) {
  __shared__ double partial[kSoftmaxThreads / 32];
  for (int o = 16; o > 0; o /= 2) value += __shfl_xor_sync(0xffffffffu, value, o);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = value;
  __syncthreads();
  value = 0;
  for (int w = 0; w < kSoftmaxThreads / 32; ++w) value += partial[w];
  return value;
}

// Keys row `i` may see.
__device__ __forceinline__ int64_t VisibleKeys(int64_t i, int64_t s_q, int64_t s_k, bool causal) {
  if (!causal) return s_k;
  return min(s_k, max(int64_t{0}, i + 1 + s_k - s_q));
}

// One block per score row of a chunk laid out [g][rows][s_k]; turns scores
// into probabilities in place and writes the row's LSE (natural log).
__global__ void SoftmaxExactKernel(float* scores, int64_t rows, int64_t q0, int64_t s_q,
                                   int64_t s_k, float scale, bool causal, float* lse_base) {
  int64_t r = blockIdx.x;
  int64_t head = r / rows;
  int64_t i = q0 + r % rows;
  float* row = scores + r * s_k;
  int64_t visible = VisibleKeys(i, s_q, s_k, causal);
  float m = -INFINITY;
  for (int64_t j = threadIdx.x; j < visible; j += blockDim.x) m = fmaxf(m, row[j] * scale);
  m = BlockReduce<true>(m);
  double sum = 0;
  for (int64_t j = threadIdx.x; j < visible; j += blockDim.x) sum += exp(double(row[j] * scale - m));
  sum = BlockSumDouble(sum);
  for (int64_t j = threadIdx.x; j < s_k; j += blockDim.x) {
    row[j] = j < visible ? static_cast<float>(exp(double(row[j] * scale - m)) / sum) : 0.0f;
  }
  if (threadIdx.x == 0) {
    lse_base[head * s_q + i] = visible == 0 ? -INFINITY : static_cast<float>(m + log(sum));
  }
}

template <typename T>
__global__ void SoftmaxLowPrecisionKernel(T* scores, int64_t rows, int64_t q0, int64_t s_q,
                                          int64_t s_k, float scale, bool causal,
                                          float* lse_base) {
  using Tr = DtypeTraits<T>;
  int64_t r = blockIdx.x;
  int64_t head = r / rows;
  int64_t i = q0 + r % rows;
  T* row = scores + r * s_k;
  int64_t visible = VisibleKeys(i, s_q, s_k, causal);
  auto scaled = [&](int64_t j) { return Tr::ToFloat(Tr::FromFloat(Tr::ToFloat(row[j]) * scale)); };
  float m = -INFINITY;
  for (int64_t j = threadIdx.x; j < visible; j += blockDim.x) m = fmaxf(m, scaled(j));
  m = BlockReduce<true>(m);
  float sum = 0;
  for (int64_t j = threadIdx.x; j < visible; j += blockDim.x) sum += expf(scaled(j) - m);
  sum = BlockReduce<false>(sum);
  for (int64_t j = threadIdx.x; j < s_k; j += blockDim.x) {
    row[j] = Tr::FromFloat(j < visible ? expf(scaled(j) - m) / sum : 0.0f);
  }
  if (threadIdx.x == 0) lse_base[head * s_q + i] = visible == 0 ? -INFINITY : m + logf(sum);
}

// C = op(A) op(B) for `batch` matrices, alpha = 1, beta = 0.
absl::Status Gemm(cublasHandle_t handle, cublasOperation_t ta, int64_t m, int64_t n, int64_t k,
                  const void* a, cudaDataType_t a_type, int64_t lda, int64_t stride_a,
                  const void* b, cudaDataType_t b_type, int64_t ldb, int64_t stride_b, void* c,
                  cudaDataType_t c_type, int64_t ldc, int64_t stride_c, int64_t batch,
                  cublasComputeType_t compute) {
  const float one = 1.0f, zero = 0.0f;
  return CublasStatus(
      cublasGemmStridedBatchedEx(handle, ta, CUBLAS_OP_N, static_cast<int>(m),
                                 static_cast<int>(n), static_cast<int>(k), &one, a, a_type,
                                 static_cast<int>(lda), stride_a, b, b_type,
                                 static_cast<int>(ldb), stride_b, &zero, c, c_type,
                                 static_cast<int>(ldc), stride_c, static_cast<int>(batch),
                                 compute, CUBLAS_GEMM_DEFAULT),
      "cublasGemmStridedBatchedEx");
}

// Runs one path (exact when T is float) over all (batch, K/V head, query chunk).
template <typename T>
absl::Status RunPath(const AttentionDims& dims, const T* q, const T* k, const T* v, T* o,
                     float* lse, DeviceBuffer& scores, const ReferenceContext& ctx) {
  constexpr bool kExact = std::is_same_v<T, float>;
  cudaDataType_t type;
  if constexpr (kExact) {
    type = CUDA_R_32F;
  } else {
    type = DtypeTraits<T>::kCuda;
  }
  const cublasComputeType_t compute = kExact ? CUBLAS_COMPUTE_32F_PEDANTIC : CUBLAS_COMPUTE_32F;
  const int64_t row_bytes = dims.g * dims.s_k * static_cast<int64_t>(sizeof(T));
  const int64_t chunk = std::clamp<int64_t>(static_cast<int64_t>(scores.bytes()) / row_bytes, 1,
                                            dims.s_q);
  T* s = scores.as<T>();
  for (int64_t b = 0; b < dims.b; ++b) {
    for (int64_t kvh = 0; kvh < dims.h_kv; ++kvh) {
      const T* k_head = k + (b * dims.s_k * dims.h_kv + kvh) * dims.d;
      const T* v_head = v + (b * dims.s_k * dims.h_kv + kvh) * dims.d;
      float* lse_base = lse + (b * dims.h + kvh * dims.g) * dims.s_q;
      for (int64_t q0 = 0; q0 < dims.s_q; q0 += chunk) {
        const int64_t rows = std::min(chunk, dims.s_q - q0);
        const int64_t q_offset = ((b * dims.s_q + q0) * dims.h + kvh * dims.g) * dims.d;
        // S^T (s_k x rows, column-major) = K (s_k x d) . Q^T (d x rows).
        KSEEK_RETURN_IF_ERROR(Gemm(ctx.cublas, CUBLAS_OP_T, dims.s_k, rows, dims.d, k_head, type,
                                   dims.h_kv * dims.d, 0, q + q_offset, type, dims.h * dims.d,
                                   dims.d, s, type, dims.s_k, rows * dims.s_k, dims.g, compute));
        const unsigned blocks = static_cast<unsigned>(dims.g * rows);
        if constexpr (kExact) {
          SoftmaxExactKernel<<<blocks, kSoftmaxThreads, 0, ctx.stream>>>(
              s, rows, q0, dims.s_q, dims.s_k, dims.scale, dims.causal, lse_base);
        } else {
          SoftmaxLowPrecisionKernel<T><<<blocks, kSoftmaxThreads, 0, ctx.stream>>>(
              s, rows, q0, dims.s_q, dims.s_k, dims.scale, dims.causal, lse_base);
        }
        KSEEK_CUDA_RETURN_IF_ERROR(cudaGetLastError());
        // O^T (d x rows, column-major, ld h*d) = V^T (d x s_k) . P^T (s_k x rows).
        KSEEK_RETURN_IF_ERROR(Gemm(ctx.cublas, CUBLAS_OP_N, dims.d, rows, dims.s_k, v_head, type,
                                   dims.h_kv * dims.d, 0, s, type, dims.s_k, rows * dims.s_k,
                                   o + q_offset, type, dims.h * dims.d, dims.d, dims.g,
                                   compute));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status AttentionFwdReference(const ReferenceBuffers& buffers,
                                   const ReferenceContext& ctx) {
  absl::StatusOr<AttentionDims> dims_or = ReadDims(*buffers.layout);
  if (!dims_or.ok()) return dims_or.status();
  const AttentionDims& dims = *dims_or;
  const auto& tensors = buffers.layout->tensors;
  const kernelseek::v1::TensorDtype dtype = tensors[dims.q].dtype;

  // Scores of at least one query row per head must fit, whatever the budget.
  const size_t min_scores = static_cast<size_t>(dims.g * dims.s_k) * sizeof(float);
  absl::StatusOr<DeviceBuffer> scores =
      DeviceBuffer::Allocate(std::max(ctx.workspace_bytes, min_scores));
  if (!scores.ok()) return scores.status();

  // Exact path on fp32 copies of the inputs.
  {
    DeviceBuffer f32[3];
    const int index[3] = {dims.q, dims.k, dims.v};
    for (int t = 0; t < 3; ++t) {
      absl::StatusOr<DeviceBuffer> buf =
          DeviceBuffer::Allocate(tensors[index[t]].elements * sizeof(float));
      if (!buf.ok()) return buf.status();
      f32[t] = *std::move(buf);
      KSEEK_RETURN_IF_ERROR(ConvertToF32(buffers.inputs[index[t]], dtype,
                                         tensors[index[t]].elements, f32[t].as<float>(),
                                         ctx.stream));
    }
    KSEEK_RETURN_IF_ERROR(RunPath<float>(dims, f32[0].as<float>(), f32[1].as<float>(),
                                         f32[2].as<float>(), buffers.exact[dims.o],
                                         buffers.exact[dims.lse], *scores, ctx));
    // The fp32 copies are freed at the end of this scope; finish using them first.
    KSEEK_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(ctx.stream));
  }

  float* lse_lowprec = static_cast<float*>(buffers.lowprec[dims.lse]);
  if (dtype == kernelseek::v1::DTYPE_BF16) {
    using T = __nv_bfloat16;
    KSEEK_RETURN_IF_ERROR(RunPath<T>(dims, static_cast<const T*>(buffers.inputs[dims.q]),
                                     static_cast<const T*>(buffers.inputs[dims.k]),
                                     static_cast<const T*>(buffers.inputs[dims.v]),
                                     static_cast<T*>(buffers.lowprec[dims.o]), lse_lowprec,
                                     *scores, ctx));
  } else if (dtype == kernelseek::v1::DTYPE_F16) {
    using T = __half;
    KSEEK_RETURN_IF_ERROR(RunPath<T>(dims, static_cast<const T*>(buffers.inputs[dims.q]),
                                     static_cast<const T*>(buffers.inputs[dims.k]),
                                     static_cast<const T*>(buffers.inputs[dims.v]),
                                     static_cast<T*>(buffers.lowprec[dims.o]), lse_lowprec,
                                     *scores, ctx));
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "attention_fwd reference: dtype ", DtypeName(dtype), " is not bf16 or f16"));
  }
  return CudaStatus(cudaStreamSynchronize(ctx.stream), "attention reference");
}

}  // namespace

KSEEK_REGISTER_REFERENCE("attention_fwd", AttentionFwdReference);

}  // namespace kseek::runner
