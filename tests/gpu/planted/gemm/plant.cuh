// Shared by the planted-wrong gemm kernels: each one is kernels/gemm/naive.cu
// (correct) with one defect added around it, so that a harness that passes it
// has a hole. The correct kernel is renamed NaiveGemm; each plant defines gemm.
// Built with -I kernels/gemm.
#pragma once
#define gemm NaiveGemm
#include "naive.cu"
#undef gemm

inline int64_t Bytes(const KseekTensor& t) {
  int64_t n = 1;
  for (int i = 0; i < t.rank; ++i) n *= t.shape[i];
  return n * (t.dtype == KSEEK_F32 ? 4 : 2);
}
