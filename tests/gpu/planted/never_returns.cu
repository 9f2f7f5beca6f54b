// Defect: waits forever on a flag nobody sets.
#include "plant.cuh"

__global__ void WaitForever(volatile int* flag) {
  while (*flag == 0) {
  }
}

extern "C" int attention_fwd(const KseekArgs* args, cudaStream_t stream) {
  static int* flag = nullptr;
  if (flag == nullptr && cudaMalloc(&flag, sizeof(int)) != cudaSuccess) return 1;
  cudaMemsetAsync(flag, 0, sizeof(int), stream);
  WaitForever<<<1, 1, 0, stream>>>(flag);
  return NaiveAttention(args, stream);
}
