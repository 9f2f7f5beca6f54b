// Defect: only the full 64 x 64 tiles of C are computed; rows and columns past
// the last full tile (the ragged tail) are never written. Fine on every size
// that is a multiple of 64.
#include "plant.cuh"

extern "C" int gemm(const KseekArgs* args, cudaStream_t stream) {
  KseekArgs full = *args;
  const int64_t m = args->tensors[0].shape[0] / 64 * 64;
  const int64_t n = args->tensors[1].shape[1] / 64 * 64;
  if (m == 0 || n == 0) return 0;  // no full tile: nothing at all is written
  full.tensors[0].shape[0] = m;
  full.tensors[1].shape[1] = n;
  full.tensors[2].shape[0] = m;
  full.tensors[2].shape[1] = n;
  return NaiveGemm(&full, stream);
}
