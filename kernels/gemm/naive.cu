// naive.cu: a plain GEMM kernel, the starting point a user would have before
// optimising. Correct on everything the gemm problem asks for, with no attempt
// at speed beyond staging tiles of A and B through shared memory: no tensor
// cores, no vector loads, no pipelining.
//
//   C = A B,  A [m, k], B [k, n], C [m, n], row-major (rows through stride[0])
//   bf16 or fp16 in and out, fp32 accumulation; any m, n, k >= 1.
//
// One block of 32 x 8 threads per 32 x 32 tile of C. Per step of 32 along k,
// the block loads a 32 x 32 tile of A and of B into shared memory as fp32
// (zeros past the matrix edges, so ragged tails need no other case); thread
// (x, y) accumulates C's column x for rows y, y + 8, y + 16, y + 24 in fp32
// registers, and writes the elements that lie inside C, rounded once.
//
// Build: nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -shared
//        -Xcompiler -fPIC -cudart shared -o naive.so naive.cu
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

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

constexpr int kTile = 32;                       // C tile edge, and the k step
constexpr int kThreadRows = 8;                  // blockDim.y
constexpr int kRowsPerThread = kTile / kThreadRows;

__device__ __forceinline__ float ToFloat(__half x) { return __half2float(x); }
__device__ __forceinline__ float ToFloat(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T>
__device__ __forceinline__ T FromFloat(float x);
template <>
__device__ __forceinline__ __half FromFloat<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

template <typename T>
__global__ void __launch_bounds__(kTile * kThreadRows)
    GemmKernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int64_t m, int64_t n,
               int64_t k, int64_t lda, int64_t ldb, int64_t ldc) {
  // A warp is one ty: it reads one A element (a broadcast) and 32
  // consecutive B elements per step, so neither tile has bank conflicts.
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * kTile;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  float acc[kRowsPerThread] = {};
  for (int64_t l0 = 0; l0 < k; l0 += kTile) {
    for (int r = ty; r < kTile; r += kThreadRows) {
      const int64_t a_row = row0 + r, a_col = l0 + tx;
      a_tile[r][tx] = (a_row < m && a_col < k) ? ToFloat(a[a_row * lda + a_col]) : 0.0f;
      const int64_t b_row = l0 + r;
      b_tile[r][tx] = (b_row < k && col < n) ? ToFloat(b[b_row * ldb + col]) : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int l = 0; l < kTile; ++l) {
      const float bv = b_tile[l][tx];
#pragma unroll
      for (int i = 0; i < kRowsPerThread; ++i) acc[i] = fmaf(a_tile[ty + i * kThreadRows][l], bv, acc[i]);
    }
    __syncthreads();
  }
  if (col >= n) return;
#pragma unroll
  for (int i = 0; i < kRowsPerThread; ++i) {
    const int64_t row = row0 + ty + i * kThreadRows;
    if (row < m) c[row * ldc + col] = FromFloat<T>(acc[i]);
  }
}

template <typename T>
int Launch(const KseekTensor& a, const KseekTensor& b, const KseekTensor& c, cudaStream_t stream) {
  const int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  const dim3 grid(static_cast<unsigned>((n + kTile - 1) / kTile), static_cast<unsigned>((m + kTile - 1) / kTile));
  GemmKernel<T><<<grid, dim3(kTile, kThreadRows), 0, stream>>>(
      static_cast<const T*>(a.data), static_cast<const T*>(b.data), static_cast<T*>(c.data), m, n, k, a.stride[0],
      b.stride[0], c.stride[0]);
  return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

}  // namespace

// Returns 0 after enqueueing the work on `stream`; 1 for arguments it does not
// understand (including a row that is not contiguous, or more row tiles than a
// grid's y dimension holds), 4 if the launch failed.
extern "C" int gemm(const KseekArgs* args, cudaStream_t stream) {
  if (args == nullptr || args->abi_version != KSEEK_ABI_VERSION || args->num_tensors != 3) return 1;
  const KseekTensor& a = args->tensors[0];
  const KseekTensor& b = args->tensors[1];
  const KseekTensor& c = args->tensors[2];
  if (a.rank != 2 || b.rank != 2 || c.rank != 2) return 1;
  if (a.dtype != b.dtype || a.dtype != c.dtype) return 1;
  const int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  if (b.shape[0] != k || c.shape[0] != m || c.shape[1] != n || m < 1 || n < 1 || k < 1) return 1;
  if (a.stride[1] != 1 || b.stride[1] != 1 || c.stride[1] != 1) return 1;
  if ((m + kTile - 1) / kTile > 65535) return 1;
  if (a.dtype == KSEEK_BF16) return Launch<__nv_bfloat16>(a, b, c, stream);
  if (a.dtype == KSEEK_F16) return Launch<__half>(a, b, c, stream);
  return 1;
}
