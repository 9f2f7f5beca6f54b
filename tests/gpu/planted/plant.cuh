// Shared by the planted-wrong kernels: each one is naive.cu (correct) with one
// defect added around it, so that a harness that passes it has a hole. The
// correct kernel is renamed NaiveAttention; each plant defines attention_fwd.
#pragma once
#define attention_fwd NaiveAttention
#include "naive.cu"
#undef attention_fwd

// Element (b, s, h, i) of the [b, s, h, d] output, through its strides.
__device__ inline int64_t OutIndex(const KseekTensor& o, int64_t b, int64_t s, int64_t h, int64_t i) {
  return b * o.stride[0] + s * o.stride[1] + h * o.stride[2] + i * o.stride[3];
}

__device__ inline float LoadOut(const KseekTensor& o, int64_t idx) {
  return o.dtype == KSEEK_BF16 ? __bfloat162float(static_cast<__nv_bfloat16*>(o.data)[idx])
                               : __half2float(static_cast<__half*>(o.data)[idx]);
}

__device__ inline void StoreOut(const KseekTensor& o, int64_t idx, float value) {
  if (o.dtype == KSEEK_BF16) {
    static_cast<__nv_bfloat16*>(o.data)[idx] = __float2bfloat16(value);
  } else {
    static_cast<__half*>(o.data)[idx] = __float2half(value);
  }
}

inline int64_t NumElements(const KseekTensor& t) {
  int64_t n = 1;
  for (int i = 0; i < t.rank; ++i) n *= t.shape[i];
  return n;
}

inline int64_t Bytes(const KseekTensor& t) { return NumElements(t) * (t.dtype == KSEEK_F32 ? 4 : 2); }
