// Defect: one row of O (batch 0, middle query, head 0) is NaN.
#include "plant.cuh"

__global__ void PoisonRow(KseekTensor o) {
  int64_t row = o.shape[1] / 2;
  for (int64_t i = threadIdx.x; i < o.shape[3]; i += blockDim.x) StoreOut(o, OutIndex(o, 0, row, 0, i), __int_as_float(0x7fc00000));
}

extern "C" int attention_fwd(const KseekArgs* args, cudaStream_t stream) {
  if (int rc = NaiveAttention(args, stream); rc != 0) return rc;
  PoisonRow<<<1, 128, 0, stream>>>(args->tensors[3]);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
