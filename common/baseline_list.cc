#include "common/baseline_list.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace kseek {

namespace {

bool IsBaselineName(absl::string_view name) {
  return std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

// `known` nullptr: any well-formed name.
absl::StatusOr<std::vector<std::string>> Parse(absl::string_view value, const std::vector<std::string>* known_names) {
  if (value == "none") return std::vector<std::string>{};
  const std::string known = known_names == nullptr ? "the problem's baselines"
                            : known_names->empty() ? "none declared"
                                                   : absl::StrJoin(*known_names, ", ");
  std::vector<std::string> names;
  for (absl::string_view part : absl::StrSplit(value, ',')) {
    if (part.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("baseline list \"", value, "\" has an empty entry; known: ", known, ", or none alone"));
    }
    if (part == "none") {
      return absl::InvalidArgumentError(
          absl::StrCat("baseline list \"", value, "\": none stands alone, not beside other baselines"));
    }
    if (known_names == nullptr && !IsBaselineName(part)) {
      return absl::InvalidArgumentError(absl::StrCat("baseline \"", part, "\" in \"", value,
                                                     "\" is not a name (letters, digits, '-', '_', '.')"));
    }
    if (known_names != nullptr && std::find(known_names->begin(), known_names->end(), part) == known_names->end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown baseline \"", part, "\" in \"", value, "\"; known: ", known, ", or none"));
    }
    if (std::find(names.begin(), names.end(), part) != names.end()) {
      return absl::InvalidArgumentError(absl::StrCat("baseline \"", part, "\" appears twice in \"", value, "\""));
    }
    names.emplace_back(part);
  }
  return names;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ParseBaselineList(absl::string_view value) {
  const std::vector<std::string> known(std::begin(kKnownBaselines), std::end(kKnownBaselines));
  return Parse(value, &known);
}

absl::StatusOr<std::vector<std::string>> ParseBaselineList(absl::string_view value,
                                                           const std::vector<std::string>& known_names) {
  return Parse(value, &known_names);
}

absl::StatusOr<std::vector<std::string>> SplitBaselineList(absl::string_view value) {
  return Parse(value, nullptr);
}

}  // namespace kseek
