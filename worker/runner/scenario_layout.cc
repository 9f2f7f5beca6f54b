#include "worker/runner/scenario_layout.h"

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

// Problem::Load refuses manifests by these limits; packing relies on them.
static_assert(KSEEK_MAX_RANK == kseek::kMaxTensorRank, "problem/problem.h and kernel_abi.h disagree on the rank");
static_assert(KSEEK_MAX_TENSORS == kseek::kMaxTensors, "problem/problem.h and kernel_abi.h disagree on tensors");
static_assert(KSEEK_MAX_SCALARS == kseek::kMaxScalars, "problem/problem.h and kernel_abi.h disagree on scalars");

namespace kseek::runner {

using kernelseek::v1::TensorDtype;

int ScenarioLayout::TensorIndex(absl::string_view name) const {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

size_t DtypeBytes(TensorDtype dtype) {
  switch (dtype) {
    case kernelseek::v1::DTYPE_F32:
      return 4;
    case kernelseek::v1::DTYPE_F16:
    case kernelseek::v1::DTYPE_BF16:
      return 2;
    default:
      return 0;
  }
}

std::string DtypeName(TensorDtype dtype) {
  switch (dtype) {
    case kernelseek::v1::DTYPE_F32:
      return "f32";
    case kernelseek::v1::DTYPE_F16:
      return "f16";
    case kernelseek::v1::DTYPE_BF16:
      return "bf16";
    default:
      return "unspecified";
  }
}

int32_t AbiDtype(TensorDtype dtype) {
  switch (dtype) {
    case kernelseek::v1::DTYPE_F32:
      return KSEEK_F32;
    case kernelseek::v1::DTYPE_F16:
      return KSEEK_F16;
    case kernelseek::v1::DTYPE_BF16:
      return KSEEK_BF16;
    default:
      return -1;
  }
}

absl::StatusOr<ScenarioLayout> BuildScenarioLayout(const Problem& problem,
                                                   const kernelseek::v1::ScenarioSpec& scenario) {
  ScenarioLayout layout;
  layout.scenario_id = scenario.id();
  layout.dtype = scenario.dtype();
  absl::StatusOr<Bindings> bindings = problem.BindingsFor(scenario);
  if (!bindings.ok()) return bindings.status();
  layout.bindings = *bindings;
  const auto& manifest = problem.manifest();
  for (int i = 0; i < manifest.tensor_size(); ++i) {
    const auto& spec = manifest.tensor(i);
    TensorLayout t;
    t.name = spec.name();
    t.role = spec.role();
    t.dtype = spec.dtype() == kernelseek::v1::DTYPE_SCENARIO ? scenario.dtype() : spec.dtype();
    if (DtypeBytes(t.dtype) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "scenario '", scenario.id(), "': tensor '", t.name, "' has no concrete dtype"));
    }
    absl::StatusOr<std::vector<int64_t>> shape = problem.TensorShape(i, layout.bindings);
    if (!shape.ok()) return shape.status();
    t.shape = *shape;
    t.stride.assign(t.shape.size(), 1);
    for (int d = static_cast<int>(t.shape.size()) - 2; d >= 0; --d) {
      t.stride[d] = t.stride[d + 1] * t.shape[d + 1];
    }
    t.elements = t.shape.empty() ? 0 : t.stride[0] * t.shape[0];
    t.bytes = static_cast<size_t>(t.elements) * DtypeBytes(t.dtype);
    for (const kernelseek::v1::InputFill& f : scenario.fill()) {
      if (f.tensor() != t.name) continue;
      if (t.role != kernelseek::v1::TENSOR_ROLE_INPUT) {
        return absl::InvalidArgumentError(absl::StrCat(
            "scenario '", scenario.id(), "': fill of '", t.name, "', which is not an input"));
      }
      if (f.has_mean()) t.fill.mean = f.mean();
      if (f.has_std()) t.fill.std = f.std();
      if (f.has_ramp()) {
        const int axis = f.ramp().axis();
        if (axis < 0 || axis >= static_cast<int>(t.shape.size())) {
          return absl::InvalidArgumentError(absl::StrCat("scenario '", scenario.id(),
                                                         "': fill of '", t.name,
                                                         "': ramp axis ", axis, " out of range"));
        }
        t.fill.ramp_stride = t.stride[axis];
        t.fill.ramp_extent = t.shape[axis];
        t.fill.ramp_from = f.ramp().from();
        t.fill.ramp_to = f.ramp().to();
      }
    }
    layout.tensors.push_back(std::move(t));
  }
  for (const auto& spec : manifest.scalar()) {
    layout.scalars.emplace_back(spec.name(), layout.bindings.at(spec.name()));
  }
  absl::StatusOr<double> flops = problem.Flops(scenario);
  if (!flops.ok()) return flops.status();
  layout.flops = *flops;
  return layout;
}

absl::StatusOr<KseekArgs> PackKseekArgs(const ScenarioLayout& layout,
                                        const std::vector<void*>& data) {
  if (data.size() != layout.tensors.size()) {
    return absl::InvalidArgumentError(absl::StrCat("PackKseekArgs: ", data.size(),
                                                   " pointers for ", layout.tensors.size(),
                                                   " tensors"));
  }
  if (layout.tensors.size() > KSEEK_MAX_TENSORS || layout.scalars.size() > KSEEK_MAX_SCALARS) {
    return absl::InvalidArgumentError("PackKseekArgs: more tensors or scalars than the ABI holds");
  }
  KseekArgs args;
  std::memset(&args, 0, sizeof(args));
  args.abi_version = KSEEK_ABI_VERSION;
  args.num_tensors = static_cast<int32_t>(layout.tensors.size());
  for (size_t i = 0; i < layout.tensors.size(); ++i) {
    const TensorLayout& t = layout.tensors[i];
    if (t.shape.size() > KSEEK_MAX_RANK) {
      return absl::InvalidArgumentError(absl::StrCat("tensor '", t.name, "' has rank ",
                                                     t.shape.size()));
    }
    KseekTensor& out = args.tensors[i];
    out.data = data[i];
    out.dtype = AbiDtype(t.dtype);
    out.rank = static_cast<int32_t>(t.shape.size());
    for (size_t d = 0; d < t.shape.size(); ++d) {
      out.shape[d] = t.shape[d];
      out.stride[d] = t.stride[d];
    }
  }
  args.num_scalars = static_cast<int32_t>(layout.scalars.size());
  for (size_t i = 0; i < layout.scalars.size(); ++i) {
    const std::string& name = layout.scalars[i].first;
    if (name.size() >= sizeof(args.scalars[i].name)) {
      return absl::InvalidArgumentError(absl::StrCat("scalar name '", name, "' is too long"));
    }
    std::memcpy(args.scalars[i].name, name.data(), name.size());
    args.scalars[i].value = layout.scalars[i].second;
  }
  return args;
}

}  // namespace kseek::runner
