#include "common/untrusted_json.h"

namespace kseek {

nlohmann::json ParseUntrustedJson(std::string_view text, int max_depth) {
  bool too_deep = false;
  nlohmann::json::parser_callback_t guard = [&too_deep, max_depth](int depth, nlohmann::json::parse_event_t event,
                                                                   nlohmann::json&) {
    if ((event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start) &&
        depth >= max_depth) {
      too_deep = true;
    }
    // Once too deep, nothing more is kept: the result is thrown away anyway.
    return !too_deep;
  };
  nlohmann::json parsed = nlohmann::json::parse(text.begin(), text.end(), guard, /*allow_exceptions=*/false);
  if (too_deep) return nlohmann::json(nlohmann::json::value_t::discarded);
  return parsed;
}

}  // namespace kseek
