// ParseUntrustedJson: parses JSON that came from outside the process's trust
// (a model's reply, a tool call's arguments, a replayed trace, a runner's
// report, which a user's kernel can write into). nlohmann's parser keeps its
// own stack, but dump() and every recursive walk of a parsed value do not: a
// reply of a million nested brackets parses, then overflows the stack when
// it is stored. So nesting deeper than `max_depth` is refused like a syntax
// error. Thread-safe (no shared state).
#ifndef KERNELSEEK_COMMON_UNTRUSTED_JSON_H_
#define KERNELSEEK_COMMON_UNTRUSTED_JSON_H_

#include <string_view>

#include <nlohmann/json.hpp>

namespace kseek {

inline constexpr int kMaxUntrustedJsonDepth = 64;

// The parsed value, or a discarded one (is_discarded()) for text that is not
// JSON or nests deeper than `max_depth`. Never throws.
nlohmann::json ParseUntrustedJson(std::string_view text, int max_depth = kMaxUntrustedJsonDepth);

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_UNTRUSTED_JSON_H_
