// Defect: reads K far past its end (an illegal address), then computes normally.
#include "plant.cuh"

__global__ void ReadPastEnd(const float* k, float* sink) {
  // 2^40 bytes past the start: never mapped.
  sink[0] = k[int64_t(1) << 38];
}

extern "C" int attention_fwd(const KseekArgs* args, cudaStream_t stream) {
  ReadPastEnd<<<1, 1, 0, stream>>>(static_cast<const float*>(args->tensors[1].data),
                                  static_cast<float*>(args->tensors[4].data));
  return NaiveAttention(args, stream);
}
