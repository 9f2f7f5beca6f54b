// naive.cu: a plain attention forward kernel, the starting point a user would
// have before optimising. Correct on everything the attention_fwd problem asks
// for, with no attempt at speed beyond staging K/V through shared memory.
//
//   O = softmax(scale * Q K^T + mask) V,  LSE = log(sum_j exp(scale * q.k_j))
//   Q, O [b, s_q, h, d]; K, V [b, s_k, h_kv, d]; LSE [b, h, s_q] fp32
//   bf16 or fp16; d in {64, 96, 128, 192, 256}; K/V head = head / (h / h_kv);
//   causal masks aligned bottom-right (query i sees keys j <= i + s_k - s_q);
//   a row that sees no key gets O = 0 and LSE = -inf.
//
// One block of 4 warps per (query tile of 16 rows, head, batch). Each warp owns
// 4 query rows; per tile of 32 keys, lane j computes the score of key j for a
// row (Q and K from shared memory, fp32), the warp updates the row's online
// softmax (running max and sum in the log2 domain), and each lane accumulates
// d/32 columns of the row's output in fp32 registers.
//
// Build: nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -shared
//        -Xcompiler -fPIC -cudart shared -o naive.so naive.cu
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

// The kernel ABI, copied byte for byte from worker/runner/kernel_abi.h
// (version 1): kernels in kernels/ depend on nothing but the CUDA toolkit.
#define KSEEK_ABI_VERSION 1
#define KSEEK_MAX_RANK 8
#define KSEEK_MAX_TENSORS 16
#define KSEEK_MAX_SCALARS 16
enum KseekDtype { KSEEK_F32 = 0, KSEEK_F16 = 1, KSEEK_BF16 = 2, KSEEK_F64 = 3, KSEEK_I32 = 4, KSEEK_I64 = 5 };
typedef struct {
  void* data;
  int32_t dtype;
  int32_t rank;
  int64_t shape[KSEEK_MAX_RANK];
  int64_t stride[KSEEK_MAX_RANK];
} KseekTensor;
typedef struct {
  char name[32];
  double value;
} KseekScalar;
typedef struct {
  int32_t abi_version;
  int32_t num_tensors;
  KseekTensor tensors[KSEEK_MAX_TENSORS];
  int32_t num_scalars;
  KseekScalar scalars[KSEEK_MAX_SCALARS];
} KseekArgs;

namespace {

constexpr int kWarps = 4;
constexpr int kRowsPerWarp = 4;
constexpr int kBlockRows = kWarps * kRowsPerWarp;
constexpr int kKeyTile = 32;  // one key per lane
constexpr float kLn2 = 0.69314718055994530942f;
constexpr float kLog2e = 1.44269504088896340736f;

struct Params {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  float* lse;
  int64_t q_stride[4], k_stride[4], v_stride[4], o_stride[4], lse_stride[3];
  int64_t s_q, s_k;
  int h, h_kv;
  float scale_log2;  // scale * log2(e): scores are kept in the log2 domain
  int causal;
};

__device__ __forceinline__ float ToFloat(__half x) { return __half2float(x); }
__device__ __forceinline__ float ToFloat(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T>
__device__ __forceinline__ T FromFloat(float x);
template <>
__device__ __forceinline__ __half FromFloat<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

__device__ __forceinline__ float WarpMax(float v) {
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float WarpSum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Number of keys query row i sees.
__device__ __forceinline__ int64_t VisibleKeys(int64_t i, const Params& p) {
  if (!p.causal) return p.s_k;
  int64_t n = i + 1 + p.s_k - p.s_q;
  return n < 0 ? 0 : (n > p.s_k ? p.s_k : n);
}

template <int D>
constexpr size_t SharedBytes() {
  return sizeof(float) * (kBlockRows * D + kKeyTile * (D + 1) + kKeyTile * D);
}

template <typename T, int D>
__global__ void __launch_bounds__(kWarps * 32) AttentionKernel(Params p) {
  constexpr int kCols = D / 32;  // output columns per lane
  extern __shared__ float smem[];
  float* q_s = smem;                      // [kBlockRows][D]
  float* k_s = q_s + kBlockRows * D;      // [kKeyTile][D + 1]; +1 avoids bank conflicts
  float* v_s = k_s + kKeyTile * (D + 1);  // [kKeyTile][D]

  const int64_t q0 = static_cast<int64_t>(blockIdx.x) * kBlockRows;
  const int head = blockIdx.y;
  const int64_t batch = blockIdx.z;
  const int kv_head = head / (p.h / p.h_kv);
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const T* q = static_cast<const T*>(p.q);
  const T* k = static_cast<const T*>(p.k);
  const T* v = static_cast<const T*>(p.v);

  for (int idx = threadIdx.x; idx < kBlockRows * D; idx += blockDim.x) {
    const int r = idx / D, c = idx % D;
    const int64_t i = q0 + r;
    q_s[idx] = i < p.s_q ? ToFloat(q[batch * p.q_stride[0] + i * p.q_stride[1] +
                                     head * p.q_stride[2] + c * p.q_stride[3]])
                         : 0.0f;
  }

  float m[kRowsPerWarp], l[kRowsPerWarp], acc[kRowsPerWarp][kCols];
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr) {
    m[rr] = -INFINITY;
    l[rr] = 0.0f;
#pragma unroll
    for (int t = 0; t < kCols; ++t) acc[rr][t] = 0.0f;
  }

  // Visible key counts grow with the row, so the block's last row bounds them.
  const int64_t last_row = (q0 + kBlockRows < p.s_q ? q0 + kBlockRows : p.s_q) - 1;
  const int64_t key_end = VisibleKeys(last_row, p);

  for (int64_t k0 = 0; k0 < key_end; k0 += kKeyTile) {
    __syncthreads();  // the previous tile has been consumed (and Q is stored)
    for (int idx = threadIdx.x; idx < kKeyTile * D; idx += blockDim.x) {
      const int j = idx / D, c = idx % D;
      const int64_t key = k0 + j;
      float kv = 0.0f, vv = 0.0f;
      if (key < p.s_k) {
        kv = ToFloat(k[batch * p.k_stride[0] + key * p.k_stride[1] + kv_head * p.k_stride[2] +
                       c * p.k_stride[3]]);
        vv = ToFloat(v[batch * p.v_stride[0] + key * p.v_stride[1] + kv_head * p.v_stride[2] +
                       c * p.v_stride[3]]);
      }
      k_s[j * (D + 1) + c] = kv;
      v_s[j * D + c] = vv;
    }
    __syncthreads();

#pragma unroll
    for (int rr = 0; rr < kRowsPerWarp; ++rr) {
      const int r = warp * kRowsPerWarp + rr;
      const int64_t i = q0 + r;
      const int64_t visible = i < p.s_q ? VisibleKeys(i, p) : 0;
      if (k0 < visible) {  // uniform across the warp
        const float* qr = q_s + r * D;
        const float* kr = k_s + lane * (D + 1);
        float dot = 0.0f;
#pragma unroll 8
        for (int c = 0; c < D; ++c) dot = fmaf(qr[c], kr[c], dot);
        const float t = k0 + lane < visible ? dot * p.scale_log2 : -INFINITY;
        // Key k0 is visible, so the tile maximum and m_new are finite.
        const float m_new = fmaxf(m[rr], WarpMax(t));
        const float correction = exp2f(m[rr] - m_new);  // 0 on the first tile
        const float prob = exp2f(t - m_new);            // 0 for masked keys
        l[rr] = l[rr] * correction + WarpSum(prob);
        m[rr] = m_new;
#pragma unroll
        for (int t2 = 0; t2 < kCols; ++t2) acc[rr][t2] *= correction;
        for (int j = 0; j < kKeyTile; ++j) {
          const float pj = __shfl_sync(0xffffffffu, prob, j);
#pragma unroll
          for (int t2 = 0; t2 < kCols; ++t2) {
            acc[rr][t2] = fmaf(pj, v_s[j * D + lane + 32 * t2], acc[rr][t2]);
          }
        }
      }
    }
  }

  T* o = static_cast<T*>(p.o);
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr) {
    const int64_t i = q0 + warp * kRowsPerWarp + rr;
    if (i < p.s_q) {
      // l == 0 exactly when the row sees no key: O = 0, LSE = log(0) = -inf.
      const float inv = l[rr] > 0.0f ? 1.0f / l[rr] : 0.0f;
#pragma unroll
      for (int t2 = 0; t2 < kCols; ++t2) {
        o[batch * p.o_stride[0] + i * p.o_stride[1] + head * p.o_stride[2] +
          (lane + 32 * t2) * p.o_stride[3]] = FromFloat<T>(acc[rr][t2] * inv);
      }
      if (lane == 0) {
        p.lse[batch * p.lse_stride[0] + head * p.lse_stride[1] + i * p.lse_stride[2]] =
            l[rr] > 0.0f ? m[rr] * kLn2 + logf(l[rr]) : -INFINITY;
      }
    }
  }
}

template <typename T, int D>
int Launch(const Params& p, int64_t batch, cudaStream_t stream) {
  const size_t smem = SharedBytes<D>();
  if (cudaFuncSetAttribute(AttentionKernel<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(smem)) != cudaSuccess) {
    return 3;
  }
  const dim3 grid(static_cast<unsigned>((p.s_q + kBlockRows - 1) / kBlockRows),
                  static_cast<unsigned>(p.h), static_cast<unsigned>(batch));
  AttentionKernel<T, D><<<grid, kWarps * 32, smem, stream>>>(p);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

template <typename T>
int LaunchForDim(const Params& p, int64_t batch, int64_t d, cudaStream_t stream) {
  switch (d) {
    case 64: return Launch<T, 64>(p, batch, stream);
    case 96: return Launch<T, 96>(p, batch, stream);
    case 128: return Launch<T, 128>(p, batch, stream);
    case 192: return Launch<T, 192>(p, batch, stream);
    case 256: return Launch<T, 256>(p, batch, stream);
    default: return 5;
  }
}

}  // namespace

// Returns 0 after enqueueing the work on `stream`; 1 for arguments it does not
// understand, 5 for an unsupported head dimension, 3/4 if the launch failed.
extern "C" int attention_fwd(const KseekArgs* args, cudaStream_t stream) {
  if (args == nullptr || args->abi_version != KSEEK_ABI_VERSION || args->num_tensors != 5) return 1;
  const KseekTensor& q = args->tensors[0];
  const KseekTensor& k = args->tensors[1];
  const KseekTensor& v = args->tensors[2];
  const KseekTensor& o = args->tensors[3];
  const KseekTensor& lse = args->tensors[4];
  if (q.rank != 4 || k.rank != 4 || v.rank != 4 || o.rank != 4 || lse.rank != 3) return 1;
  if (q.dtype != k.dtype || q.dtype != v.dtype || q.dtype != o.dtype || lse.dtype != KSEEK_F32) {
    return 1;
  }
  const int64_t b = q.shape[0], s_q = q.shape[1], h = q.shape[2], d = q.shape[3];
  const int64_t s_k = k.shape[1], h_kv = k.shape[2];
  for (int i = 0; i < 4; ++i) {
    if (k.shape[i] != v.shape[i] || o.shape[i] != q.shape[i]) return 1;
  }
  if (k.shape[0] != b || k.shape[3] != d || lse.shape[0] != b || lse.shape[1] != h ||
      lse.shape[2] != s_q || h_kv < 1 || h % h_kv != 0 || b < 1 || s_q < 1 || s_k < 1 ||
      h > 65535 || b > 65535) {
    return 1;
  }
  double scale = 1.0 / sqrt(static_cast<double>(d));
  int causal = 0;
  for (int i = 0; i < args->num_scalars; ++i) {
    if (strcmp(args->scalars[i].name, "scale") == 0) scale = args->scalars[i].value;
    if (strcmp(args->scalars[i].name, "causal") == 0) causal = args->scalars[i].value != 0;
  }
  Params p;
  p.q = q.data;
  p.k = k.data;
  p.v = v.data;
  p.o = o.data;
  p.lse = static_cast<float*>(lse.data);
  for (int i = 0; i < 4; ++i) {
    p.q_stride[i] = q.stride[i];
    p.k_stride[i] = k.stride[i];
    p.v_stride[i] = v.stride[i];
    p.o_stride[i] = o.stride[i];
  }
  for (int i = 0; i < 3; ++i) p.lse_stride[i] = lse.stride[i];
  p.s_q = s_q;
  p.s_k = s_k;
  p.h = static_cast<int>(h);
  p.h_kv = static_cast<int>(h_kv);
  p.scale_log2 = static_cast<float>(scale) * kLog2e;
  p.causal = causal;
  if (q.dtype == KSEEK_BF16) return LaunchForDim<__nv_bfloat16>(p, b, d, stream);
  if (q.dtype == KSEEK_F16) return LaunchForDim<__half>(p, b, d, stream);
  return 1;
}
