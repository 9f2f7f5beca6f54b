// ScenarioLayout: the concrete tensors and scalars of one scenario (shapes,
// strides, dtypes, byte sizes), and the packing of them into the KseekArgs
// block a candidate receives. Plain data; no GPU needed.
#ifndef KERNELSEEK_WORKER_RUNNER_SCENARIO_LAYOUT_H_
#define KERNELSEEK_WORKER_RUNNER_SCENARIO_LAYOUT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/problem.pb.h"
#include "problem/expression.h"
#include "worker/runner/kernel_abi.h"
#include "problem/problem.h"

namespace kseek::runner {

// How an input's values are drawn (the scenario's InputFill, resolved):
// mean + std * (standard normal) + a ramp along one axis, which runs from
// ramp_from at index 0 to ramp_to at index ramp_extent - 1 (ramp_stride
// elements apart; 0: no ramp).
struct InputFillSpec {
  double mean = 0;
  double std = 1;
  int64_t ramp_stride = 0;
  int64_t ramp_extent = 1;
  double ramp_from = 0;
  double ramp_to = 0;
};

struct TensorLayout {
  std::string name;
  kernelseek::v1::TensorRole role = kernelseek::v1::TENSOR_ROLE_UNSPECIFIED;
  kernelseek::v1::TensorDtype dtype = kernelseek::v1::DTYPE_UNSPECIFIED;  // never SCENARIO
  std::vector<int64_t> shape;
  std::vector<int64_t> stride;  // elements, contiguous row-major
  int64_t elements = 0;
  size_t bytes = 0;
  InputFillSpec fill;  // inputs only
};

struct ScenarioLayout {
  std::string scenario_id;
  kernelseek::v1::TensorDtype dtype = kernelseek::v1::DTYPE_UNSPECIFIED;
  std::vector<TensorLayout> tensors;                    // manifest order
  std::vector<std::pair<std::string, double>> scalars;  // manifest order
  Bindings bindings;                                    // symbols and scalars
  double flops = 0;

  // Index into `tensors` of the tensor called `name`, or -1.
  int TensorIndex(absl::string_view name) const;
};

// Bytes per element; 0 for DTYPE_UNSPECIFIED/SCENARIO.
size_t DtypeBytes(kernelseek::v1::TensorDtype dtype);
// "f32", "f16", "bf16".
std::string DtypeName(kernelseek::v1::TensorDtype dtype);
// The KseekDtype code of kernel_abi.h.
int32_t AbiDtype(kernelseek::v1::TensorDtype dtype);

absl::StatusOr<ScenarioLayout> BuildScenarioLayout(const Problem& problem,
                                                   const kernelseek::v1::ScenarioSpec& scenario);

// The argument block for one launch; `data[i]` is tensor i's device pointer.
// INVALID_ARGUMENT if `data` does not match the layout's tensor count.
absl::StatusOr<KseekArgs> PackKseekArgs(const ScenarioLayout& layout,
                                        const std::vector<void*>& data);

}  // namespace kseek::runner

#endif  // KERNELSEEK_WORKER_RUNNER_SCENARIO_LAYOUT_H_
