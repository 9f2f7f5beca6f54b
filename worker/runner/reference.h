// References: the trusted implementations a candidate is compared with, by
// the name a manifest's `reference` field gives. Each computes every output
// twice: `exact` in fp32 from fp32-accumulated math, and `lowprec` the plain
// way in the output's own dtype, whose error sets the tolerance bar.
//
// Adding an operator means adding one file, worker/runner/NAME_reference.cu,
// that defines its function and registers it with KSEEK_REGISTER_REFERENCE;
// CMake builds every *_reference.cu into kseek-runner, so nothing else in C++
// changes (see docs/problems.md). Registration happens during static
// initialisation, before main; lookups afterwards are thread-safe.
#ifndef KERNELSEEK_WORKER_RUNNER_REFERENCE_H_
#define KERNELSEEK_WORKER_RUNNER_REFERENCE_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

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

// The registered names, sorted, for messages.
std::vector<std::string> ReferenceNames();

// Registers `fn` under `name` when constructed; use KSEEK_REGISTER_REFERENCE.
// Two references with one name are a build mistake and abort at start.
class ReferenceRegistrar {
 public:
  ReferenceRegistrar(const char* name, ReferenceFn fn);
};

}  // namespace kseek::runner

// At namespace scope in a reference's .cu file, e.g.
//   KSEEK_REGISTER_REFERENCE("gemm", GemmReference);
// The file is linked into the executable itself (not a static library), so
// the registrar object is never dropped by the linker.
#define KSEEK_REGISTER_REFERENCE(name, fn) \
  static const ::kseek::runner::ReferenceRegistrar kseek_reference_registrar_##fn(name, &fn)

#endif  // KERNELSEEK_WORKER_RUNNER_REFERENCE_H_
