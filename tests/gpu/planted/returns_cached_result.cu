// Defect: computes once per shape, then returns the cached O and LSE for any
// later input of the same shape.
#include "plant.cuh"

extern "C" int attention_fwd(const KseekArgs* args, cudaStream_t stream) {
  static void* cached_o = nullptr;
  static void* cached_lse = nullptr;
  static int64_t cached_bytes = -1;
  const KseekTensor& o = args->tensors[3];
  const KseekTensor& lse = args->tensors[4];
  if (cached_bytes == Bytes(o)) {
    cudaMemcpyAsync(o.data, cached_o, Bytes(o), cudaMemcpyDeviceToDevice, stream);
    cudaMemcpyAsync(lse.data, cached_lse, Bytes(lse), cudaMemcpyDeviceToDevice, stream);
    return 0;
  }
  if (int rc = NaiveAttention(args, stream); rc != 0) return rc;
  cudaFree(cached_o);
  cudaFree(cached_lse);
  if (cudaMalloc(&cached_o, Bytes(o)) != cudaSuccess || cudaMalloc(&cached_lse, Bytes(lse)) != cudaSuccess) return 1;
  cudaMemcpyAsync(cached_o, o.data, Bytes(o), cudaMemcpyDeviceToDevice, stream);
  cudaMemcpyAsync(cached_lse, lse.data, Bytes(lse), cudaMemcpyDeviceToDevice, stream);
  cached_bytes = Bytes(o);
  return 0;
}
