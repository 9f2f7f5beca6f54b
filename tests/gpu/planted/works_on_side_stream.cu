// Defect: does its work on a stream of its own, after a short delay, and
// returns without tying it to the caller's stream.
#include "plant.cuh"

__global__ void Delay(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

extern "C" int attention_fwd(const KseekArgs* args, cudaStream_t) {
  static cudaStream_t side = nullptr;
  if (side == nullptr && cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) != cudaSuccess) return 1;
  Delay<<<1, 1, 0, side>>>(200'000'000);  // about 0.1 s
  return NaiveAttention(args, side);
}
