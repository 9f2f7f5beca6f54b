// References: the trusted implementations a candidate is compared with, by
// the name a manifest's `reference` field gives. Each computes every output
// twice: `exact` in fp32 from fp32-accumulated math, and `lowprec` the plain
// way in the output's own dtype, whose error sets the tolerance bar.
// Adding an operator means adding one function here (see docs/problems.md).
#ifndef KERNELSEEK_WORKER_RUNNER_REFERENCE_H_
#define KERNELSEEK_WORKER_RUNNER_REFERENCE_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/status.h"
#include "worker/runner/scenario_layout.h"

namespace kseek::runner {

// Buffers for one reference call; all vectors are indexed like
// layout->tensors. Inputs hold the same values the candidate received.
struct ReferenceBuffers {
  const ScenarioLayout* layout = nullptr;
  std::vector<const void*> inputs;  // device; nullptr for outputs
  std::vector<float*> exact;        // device fp32; nullptr for inputs
  std::vector<void*> lowprec;       // device, output dtype; nullptr for inputs
};

struct ReferenceContext {
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;  // already bound to `stream`
  size_t workspace_bytes = 0;       // how much scratch the reference may allocate
};

using ReferenceFn = absl::Status (*)(const ReferenceBuffers& buffers,
                                     const ReferenceContext& context);

// nullptr for an unknown name.
ReferenceFn FindReference(absl::string_view name);

// The attention_fwd reference (attention_reference.cu).
absl::Status AttentionFwdReference(const ReferenceBuffers& buffers,
                                   const ReferenceContext& context);

}  // namespace kseek::runner

#endif  // KERNELSEEK_WORKER_RUNNER_REFERENCE_H_
