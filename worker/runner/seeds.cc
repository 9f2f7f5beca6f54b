#include "worker/runner/seeds.h"

#include <cctype>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kseek::runner {

uint64_t MixSeed(uint64_t a, uint64_t b) {
  uint64_t z = a + 0x9E3779B97F4A7C15ull * (b + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

absl::StatusOr<uint64_t> HiddenSeed(absl::string_view key_hex, absl::string_view scenario_id) {
  if (key_hex.size() < 32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--hidden-seed-key has ", key_hex.size(), " hex digits; at least 32 are needed"));
  }
  uint64_t state = 0x6B7365656B2D7631ull;  // "kseek-v1"
  for (char c : key_hex) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError(
          absl::StrCat("--hidden-seed-key: '", std::string(1, c), "' is not a hex digit"));
    }
    int nibble = std::isdigit(static_cast<unsigned char>(c))
                     ? c - '0'
                     : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
    state = MixSeed(state, static_cast<uint64_t>(nibble));
  }
  state = MixSeed(state, scenario_id.size());
  for (char c : scenario_id) state = MixSeed(state, static_cast<unsigned char>(c));
  return state == 0 ? 1 : state;
}

uint64_t InputSetSeed(uint64_t seed, int index) {
  return index == 0 ? seed : MixSeed(seed, 0x5EC0D5E7ull + static_cast<uint64_t>(index));
}

}  // namespace kseek::runner
