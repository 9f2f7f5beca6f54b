// Reference for gemm: C = A B with row-major A [m, k], B [k, n], C [m, n].
//
// cuBLAS rather than a kernel of our own: the runner already links it (the
// attention reference uses it), and the exact path must stay fast at the
// largest scenarios (Llama-3 70B's MLP at 4096 tokens is 3.9 TFLOP): cuBLAS's
// fp32 SGEMM does that in a fraction of a second, a simple fp32 kernel would
// take seconds per input set. Its accuracy is what we control through the
// compute type, not its code:
//   exact:   fp32 copies of A and B, CUBLAS_COMPUTE_32F_PEDANTIC (fp32 products
//            and sums, no TF32, no reduced-precision tricks) into fp32 C.
//   lowprec: what a user's bf16/fp16 GEMM gives (torch.matmul): the inputs as
//            they are, fp32 compute, C rounded once to the dtype; with
//            reduced-precision split-K reductions turned off, so the bar is
//            the rounding of an fp32-accumulated result and no looser.
// cuBLAS is column-major and sees a row-major X as X^T, so both paths compute
// C^T = B^T A^T: cuBLAS's (m, n, k) are our (n, m, k), B first.
#include <climits>

#include "absl/strings/str_cat.h"
#include "worker/runner/cuda_check.h"
#include "worker/runner/device_buffer.h"
#include "worker/runner/device_tensors.h"
#include "worker/runner/reference.h"

namespace kseek::runner {
namespace {

struct GemmDims {
  int64_t m, n, k;
  int a, b, c;  // tensor indices
};

absl::StatusOr<GemmDims> ReadDims(const ScenarioLayout& layout) {
  const Bindings& v = layout.bindings;
  for (const char* name : {"m", "n", "k"}) {
    if (v.find(name) == v.end()) {
      return absl::InvalidArgumentError(absl::StrCat("gemm reference: the manifest has no '", name, "'"));
    }
  }
  GemmDims dims;
  dims.m = static_cast<int64_t>(v.at("m"));
  dims.n = static_cast<int64_t>(v.at("n"));
  dims.k = static_cast<int64_t>(v.at("k"));
  for (int64_t x : {dims.m, dims.n, dims.k}) {
    if (x < 1 || x > INT_MAX) {
      return absl::InvalidArgumentError(
          absl::StrCat("gemm reference: m, n, k must be in [1, ", INT_MAX, "] for cuBLAS; got m = ", dims.m,
                       ", n = ", dims.n, ", k = ", dims.k));
    }
  }
  dims.a = layout.TensorIndex("a");
  dims.b = layout.TensorIndex("b");
  dims.c = layout.TensorIndex("c");
  if (dims.a < 0 || dims.b < 0 || dims.c < 0) {
    return absl::InvalidArgumentError("gemm reference: the manifest needs tensors a, b, c");
  }
  const auto& t = layout.tensors;
  if (t[dims.a].shape != std::vector<int64_t>{dims.m, dims.k} ||
      t[dims.b].shape != std::vector<int64_t>{dims.k, dims.n} ||
      t[dims.c].shape != std::vector<int64_t>{dims.m, dims.n} || t[dims.b].dtype != t[dims.a].dtype ||
      t[dims.c].dtype != t[dims.a].dtype) {
    return absl::InvalidArgumentError(
        "gemm reference: tensors differ from a [m,k], b [k,n], c [m,n], all of one dtype");
  }
  return dims;
}

// C^T (n x m, column-major, ld n) = B^T (n x k, ld n) . A^T (k x m, ld k).
absl::Status RowMajorGemm(cublasHandle_t handle, const GemmDims& d, const void* a, const void* b,
                          cudaDataType_t in_type, void* c, cudaDataType_t out_type,
                          cublasComputeType_t compute) {
  const float one = 1.0f, zero = 0.0f;
  const int m = static_cast<int>(d.m), n = static_cast<int>(d.n), k = static_cast<int>(d.k);
  return CublasStatus(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, in_type, n, a, in_type, k,
                                   &zero, c, out_type, n, compute, CUBLAS_GEMM_DEFAULT),
                      "cublasGemmEx");
}

absl::Status GemmReference(const ReferenceBuffers& buffers, const ReferenceContext& ctx) {
  absl::StatusOr<GemmDims> dims_or = ReadDims(*buffers.layout);
  if (!dims_or.ok()) return dims_or.status();
  const GemmDims& dims = *dims_or;
  const auto& tensors = buffers.layout->tensors;
  const kernelseek::v1::TensorDtype dtype = tensors[dims.a].dtype;
  cudaDataType_t type;
  if (dtype == kernelseek::v1::DTYPE_BF16) {
    type = CUDA_R_16BF;
  } else if (dtype == kernelseek::v1::DTYPE_F16) {
    type = CUDA_R_16F;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("gemm reference: dtype ", DtypeName(dtype), " is not bf16 or f16"));
  }

  // Exact path on fp32 copies of the inputs.
  {
    DeviceBuffer f32[2];
    const int index[2] = {dims.a, dims.b};
    for (int t = 0; t < 2; ++t) {
      absl::StatusOr<DeviceBuffer> buf = DeviceBuffer::Allocate(tensors[index[t]].elements * sizeof(float));
      if (!buf.ok()) return buf.status();
      f32[t] = *std::move(buf);
      KSEEK_RETURN_IF_ERROR(ConvertToF32(buffers.inputs[index[t]], dtype, tensors[index[t]].elements,
                                         f32[t].as<float>(), ctx.stream));
    }
    KSEEK_RETURN_IF_ERROR(RowMajorGemm(ctx.cublas, dims, f32[0].data(), f32[1].data(), CUDA_R_32F,
                                       buffers.exact[dims.c], CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC));
    // The fp32 copies are freed at the end of this scope; finish using them first.
    KSEEK_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(ctx.stream));
  }

  // Low-precision path, with the handle's math mode restored afterwards: the
  // handle is shared with every other reference this runner calls.
  cublasMath_t mode;
  KSEEK_CUBLAS_RETURN_IF_ERROR(cublasGetMathMode(ctx.cublas, &mode));
  KSEEK_CUBLAS_RETURN_IF_ERROR(cublasSetMathMode(
      ctx.cublas, static_cast<cublasMath_t>(mode | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  absl::Status lowprec = RowMajorGemm(ctx.cublas, dims, buffers.inputs[dims.a], buffers.inputs[dims.b], type,
                                      buffers.lowprec[dims.c], type, CUBLAS_COMPUTE_32F);
  KSEEK_CUBLAS_RETURN_IF_ERROR(cublasSetMathMode(ctx.cublas, mode));
  KSEEK_RETURN_IF_ERROR(lowprec);
  return CudaStatus(cudaStreamSynchronize(ctx.stream), "gemm reference");
}

}  // namespace

KSEEK_REGISTER_REFERENCE("gemm", GemmReference);

}  // namespace kseek::runner
