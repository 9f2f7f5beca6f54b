// Defect: the last head of O is off by 0.02 — small, but beyond what bf16 or fp16 rounding explains.
#include "plant.cuh"

__global__ void Nudge(KseekTensor o) {
  const int64_t b = o.shape[0], s = o.shape[1], h = o.shape[2] - 1, d = o.shape[3];
  for (int64_t n = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; n < b * s * d; n += int64_t(gridDim.x) * blockDim.x) {
    int64_t idx = OutIndex(o, n / (s * d), (n / d) % s, h, n % d);
    StoreOut(o, idx, LoadOut(o, idx) + 0.02f);
  }
}

extern "C" int attention_fwd(const KseekArgs* args, cudaStream_t stream) {
  if (int rc = NaiveAttention(args, stream); rc != 0) return rc;
  Nudge<<<256, 256, 0, stream>>>(args->tensors[3]);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
