// Defect: the reduction stops at the last full step of 32 along k, dropping
// the products of the k tail; every element is written, some are wrong. Fine
// whenever k is a multiple of 32.
#include "plant.cuh"

extern "C" int gemm(const KseekArgs* args, cudaStream_t stream) {
  KseekArgs cut = *args;
  const int64_t k = args->tensors[0].shape[1] / 32 * 32;
  if (k == 0) {
    // Nothing left to sum: C = 0 (all-zero bits are +0 in bf16 and fp16).
    return cudaMemsetAsync(args->tensors[2].data, 0, Bytes(args->tensors[2]), stream) == cudaSuccess ? 0 : 4;
  }
  cut.tensors[0].shape[1] = k;  // the strides still address A's and B's true rows
  cut.tensors[1].shape[0] = k;
  return NaiveGemm(&cut, stream);
}
