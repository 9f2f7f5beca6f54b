// ValidateJobSpec: what the server checks before it stores a submitted job.
//
// A job that passes is one a worker can be expected to run; one that fails is
// rejected with INVALID_ARGUMENT naming the bad field and stored nowhere.
#ifndef KERNELSEEK_SERVER_JOB_VALIDATION_H_
#define KERNELSEEK_SERVER_JOB_VALIDATION_H_

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kernelseek.pb.h"
#include "problem/problem_catalog.h"

namespace kseek {

inline constexpr size_t kMaxSourceBytes = 1 << 20;

inline constexpr double kDefaultSecondsPerScenario = 2.0;
inline constexpr double kMaxSecondsPerScenario = 60.0;

// The byte offset of the first byte that does not belong to well-formed
// UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF),
// or nullopt when all of `text` is UTF-8.
std::optional<size_t> FirstInvalidUtf8(std::string_view text);

// Fills in defaults (verify: all scenarios; bench: the perf set against cuDNN)
// and returns the job's requirements (sorted properties a worker must match).
// The source must be UTF-8 (INVALID_ARGUMENT naming the byte offset and
// line). A profile job must name exactly one scenario id and needs `ncu=*` (any
// Nsight Compute) besides the GPU and compiler a verify job needs; its
// `hotspots` is 0..kMaxProfileHotSpots, and only a profile job may set it.
absl::StatusOr<std::vector<kernelseek::v1::Property>> ValidateJobSpec(kernelseek::v1::JobSpec* spec,
                                                                     const ProblemCatalog& problems);

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_JOB_VALIDATION_H_
