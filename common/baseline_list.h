// The baselines a bench is timed against: "cudnn", "fa3,cudnn", or "none".
// One spelling for the CLI, the server's validation and the worker, so that
// all three read RunOptions.baseline alike. Stateless; thread-safe.
#ifndef KERNELSEEK_COMMON_BASELINE_LIST_H_
#define KERNELSEEK_COMMON_BASELINE_LIST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kseek {

// The baselines a worker can time, in the order `kseek workers` lists them.
inline constexpr const char* kKnownBaselines[] = {"cudnn", "fa2", "fa3", "fa4"};

// The names in `value`, in its order: "none" alone is the empty list; else
// one or more of kKnownBaselines, comma-separated, each at most once.
// INVALID_ARGUMENT naming the bad entry otherwise (empty, unknown, repeated,
// or "none" beside others).
absl::StatusOr<std::vector<std::string>> ParseBaselineList(absl::string_view value);

// As above, with the names a problem's manifest declares (Problem::BaselineNames)
// in place of kKnownBaselines.
absl::StatusOr<std::vector<std::string>> ParseBaselineList(absl::string_view value,
                                                           const std::vector<std::string>& known_names);

// As above for any names of letters, digits, '-', '_' and '.': the list's
// form only. For the CLI, which does not know a problem's baselines; the
// server checks the names against the manifest.
absl::StatusOr<std::vector<std::string>> SplitBaselineList(absl::string_view value);

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_BASELINE_LIST_H_
