// The kernel ABI: how kseek-runner calls a candidate kernel.
//
// A candidate is one .cu file built into a shared object. It exports one
// `extern "C"` launch function, named by the problem manifest's `entry_point`:
//
//   extern "C" int attention_fwd(const KseekArgs* args, cudaStream_t stream);
//
// It must enqueue all of its work on `stream` and return 0, or return a
// non-zero code (without launching anything) for an input it does not support.
// Kernels in kernels/ are single files with no dependency beyond the CUDA
// toolkit, so they declare these structs themselves, byte for byte; the runner
// checks `abi_version` and `sizeof(KseekArgs)` is part of that version.
//
// Plain C layout, no pointers to runner-owned strings beyond the call.
#ifndef KERNELSEEK_RUNNER_KERNEL_ABI_H_
#define KERNELSEEK_RUNNER_KERNEL_ABI_H_

#include <stdint.h>

#define KSEEK_ABI_VERSION 1
#define KSEEK_MAX_RANK 8
#define KSEEK_MAX_TENSORS 16
#define KSEEK_MAX_SCALARS 16

enum KseekDtype {
  KSEEK_F32 = 0,
  KSEEK_F16 = 1,
  KSEEK_BF16 = 2,
  KSEEK_F64 = 3,
  KSEEK_I32 = 4,
  KSEEK_I64 = 5,
};

// One tensor, in the order the manifest lists them. Strides are in elements.
typedef struct {
  void* data;
  int32_t dtype;                    // KseekDtype
  int32_t rank;
  int64_t shape[KSEEK_MAX_RANK];
  int64_t stride[KSEEK_MAX_RANK];
} KseekTensor;

// One scalar parameter, in the order the manifest lists them.
typedef struct {
  char name[32];
  double value;
} KseekScalar;

typedef struct {
  int32_t abi_version;              // KSEEK_ABI_VERSION
  int32_t num_tensors;
  KseekTensor tensors[KSEEK_MAX_TENSORS];
  int32_t num_scalars;
  KseekScalar scalars[KSEEK_MAX_SCALARS];
} KseekArgs;

#endif  // KERNELSEEK_RUNNER_KERNEL_ABI_H_
