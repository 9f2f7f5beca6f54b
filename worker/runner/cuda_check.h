// absl::Status from CUDA runtime and cuBLAS return codes, so that every call's
// result is checked and its failure says which call and why.
#ifndef KERNELSEEK_WORKER_RUNNER_CUDA_CHECK_H_
#define KERNELSEEK_WORKER_RUNNER_CUDA_CHECK_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kseek::runner {

inline absl::Status CudaStatus(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat(what, ": ", cudaGetErrorName(err), " (", cudaGetErrorString(err), ")"));
}

inline absl::Status CublasStatus(cublasStatus_t err, const char* what) {
  if (err == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, ": ", cublasGetStatusName(err), " (",
                                          cublasGetStatusString(err), ")"));
}

}  // namespace kseek::runner

#define KSEEK_RETURN_IF_ERROR(expr)          \
  do {                                       \
    absl::Status kseek_status_ = (expr);     \
    if (!kseek_status_.ok()) return kseek_status_; \
  } while (0)

#define KSEEK_CUDA_RETURN_IF_ERROR(call) KSEEK_RETURN_IF_ERROR(::kseek::runner::CudaStatus((call), #call))
#define KSEEK_CUBLAS_RETURN_IF_ERROR(call) \
  KSEEK_RETURN_IF_ERROR(::kseek::runner::CublasStatus((call), #call))

#endif  // KERNELSEEK_WORKER_RUNNER_CUDA_CHECK_H_
