// Seeds for a scenario's random inputs. A recorded seed is used as written;
// a hidden one is derived from a key that only the worker holds and the
// scenario id, so a kernel's author cannot know the inputs in advance.
// Plain functions.
#ifndef KERNELSEEK_WORKER_RUNNER_SEEDS_H_
#define KERNELSEEK_WORKER_RUNNER_SEEDS_H_

#include <cstdint>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"

namespace kseek::runner {

// A well-mixed 64-bit function of (a, b) (splitmix64 finaliser).
uint64_t MixSeed(uint64_t a, uint64_t b);

// Seed of a hidden-seed scenario. `key_hex` is at least 32 hex digits (128
// bits); INVALID_ARGUMENT otherwise.
absl::StatusOr<uint64_t> HiddenSeed(absl::string_view key_hex, absl::string_view scenario_id);

// Seed of input set `index` (0 or 1) of a scenario whose seed is `seed`; set 0
// uses the seed itself so a recorded seed reproduces the first run exactly.
uint64_t InputSetSeed(uint64_t seed, int index);

}  // namespace kseek::runner

#endif  // KERNELSEEK_WORKER_RUNNER_SEEDS_H_
