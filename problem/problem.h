// Problem: a problem manifest and its scenario file, parsed with the schema in
// proto/problem.proto and checked together, so that a typo or an impossible
// scenario is an error naming the file and line before any GPU work starts.
// Immutable after Load/Parse; safe to share between threads.
#ifndef KERNELSEEK_PROBLEM_PROBLEM_H_
#define KERNELSEEK_PROBLEM_PROBLEM_H_

#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "proto/problem.pb.h"
#include "problem/expression.h"
#include "problem/problem_digest.h"

namespace kseek {

// What the kernel ABI (worker/runner/kernel_abi.h, KSEEK_MAX_*) can carry, so
// that a manifest the runner could not pack is refused when it is loaded. The
// runner checks at compile time that these match its macros.
inline constexpr int kMaxTensorRank = 8;
inline constexpr int kMaxTensors = 16;
inline constexpr int kMaxScalars = 16;

class Problem {
 public:
  // Reads the manifest and the scenario file it names (relative to the
  // manifest's directory). NOT_FOUND if a file cannot be read;
  // INVALID_ARGUMENT listing every error as "FILE:LINE:COLUMN: message".
  static absl::StatusOr<Problem> Load(const std::string& manifest_path);

  // As Load, from text; the names are used in error messages only.
  static absl::StatusOr<Problem> Parse(absl::string_view manifest_text,
                                       absl::string_view manifest_name,
                                       absl::string_view scenarios_text,
                                       absl::string_view scenarios_name);

  const kernelseek::v1::ProblemManifest& manifest() const { return manifest_; }
  const std::vector<kernelseek::v1::ScenarioSpec>& scenarios() const { return scenarios_; }
  // SHA-256 of the manifest and scenario text as read, with their names.
  const kernelseek::v1::ProblemDigest& digest() const { return digest_; }

  // nullptr when no scenario has that id.
  const kernelseek::v1::ScenarioSpec* FindScenario(absl::string_view id) const;

  // `selection` is "all", or a comma-separated list of set names (e.g.
  // "perf", "square,llm") and scenario ids, in that order, each scenario once.
  // INVALID_ARGUMENT naming an item that is neither.
  absl::StatusOr<std::vector<const kernelseek::v1::ScenarioSpec*>> Select(
      absl::string_view selection) const;

  // What a verify (bench = false) or bench job that names no scenarios runs:
  // the manifest's default_*_scenarios, else "all".
  const std::string& DefaultScenarios(bool bench) const;
  // What a bench that names no baseline is timed against: the manifest's
  // default_baseline, else "none".
  const std::string& DefaultBaseline() const;
  // nullptr when the manifest declares no baseline called `name`.
  const kernelseek::v1::BaselineSpec* FindBaseline(absl::string_view name) const;
  // The names of the manifest's baselines, in its order.
  std::vector<std::string> BaselineNames() const;

  // Every symbol and every scalar of `scenario` (defaults applied) by name.
  absl::StatusOr<Bindings> BindingsFor(const kernelseek::v1::ScenarioSpec& scenario) const;

  // The manifest's FLOP formula for `scenario`.
  absl::StatusOr<double> Flops(const kernelseek::v1::ScenarioSpec& scenario) const;

  // Dimensions of tensor `tensor_index` (manifest order) for `bindings`.
  absl::StatusOr<std::vector<int64_t>> TensorShape(int tensor_index,
                                                   const Bindings& bindings) const;

  // The tolerance rule for output `name`; nullptr if none (validation makes
  // sure every output has one).
  const kernelseek::v1::ToleranceRule* ToleranceFor(absl::string_view name) const;

 private:
  Problem() = default;

  kernelseek::v1::ProblemManifest manifest_;
  kernelseek::v1::ProblemDigest digest_;
  std::vector<kernelseek::v1::ScenarioSpec> scenarios_;
  std::vector<std::vector<Expression>> tensor_shapes_;  // per tensor, per dim
  std::vector<Expression> scalar_defaults_;             // per scalar
  std::vector<Expression> constraints_;                 // per constraint
  std::optional<Expression> flops_;
};

}  // namespace kseek

#endif  // KERNELSEEK_PROBLEM_PROBLEM_H_
