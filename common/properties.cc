#include "common/properties.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kseek {
namespace {

constexpr std::array<absl::string_view, 8> kKnownKeys = {"arch", "baselines", "compile", "driver",
                                                         "gpu",  "ncu",       "nvcc",    "problems"};
constexpr size_t kMaxValueBytes = 512;

// sm_<digits>[letter]: sm_90, sm_90a, sm_100f.
bool IsArchName(absl::string_view name) {
  if (!absl::ConsumePrefix(&name, "sm_") || name.empty()) return false;
  if (std::islower(static_cast<unsigned char>(name.back()))) name.remove_suffix(1);
  return !name.empty() &&
         std::all_of(name.begin(), name.end(), [](char c) { return absl::ascii_isdigit(c); });
}

// NAME@HEX16: a problem and the short digest of its files (problem/problem_digest.h).
bool IsProblemEntry(absl::string_view entry) {
  std::vector<absl::string_view> parts = absl::StrSplit(entry, '@');
  if (parts.size() != 2 || parts[0].empty() || parts[1].size() != 16) return false;
  return std::all_of(parts[0].begin(), parts[0].end(),
                     [](char c) { return absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '_'; }) &&
         std::all_of(parts[1].begin(), parts[1].end(),
                     [](char c) { return absl::ascii_isdigit(c) || (c >= 'a' && c <= 'f'); });
}

absl::Status ValidateValue(const kernelseek::v1::Property& p) {
  const std::string& value = p.value();
  if (value.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("property '", p.key(), "' has an empty value"));
  }
  if (value.size() > kMaxValueBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("property '", p.key(), "' value is longer than ", kMaxValueBytes, " bytes"));
  }
  if (absl::ascii_isspace(value.front()) || absl::ascii_isspace(value.back()) ||
      std::any_of(value.begin(), value.end(), [](char c) { return absl::ascii_iscntrl(c); })) {
    return absl::InvalidArgumentError(
        absl::StrCat("property '", p.key(), "' value '", value,
                     "' has surrounding space or control characters"));
  }
  // "*" is the any-value requirement; it names no architecture to check.
  if (value == kAnyValue) return absl::OkStatus();
  if (p.key() == "arch" && !IsArchName(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("property 'arch' value '", value, "' is not an architecture like sm_90"));
  }
  if (p.key() == "compile") {
    for (const std::string& arch : SplitArchList(value)) {
      if (!IsArchName(arch)) {
        return absl::InvalidArgumentError(
            absl::StrCat("property 'compile' value '", value, "' lists '", arch,
                         "', which is not an architecture like sm_90a"));
      }
    }
  }
  if (p.key() == "problems") {
    for (absl::string_view entry : absl::StrSplit(value, ',')) {
      if (!IsProblemEntry(entry)) {
        return absl::InvalidArgumentError(
            absl::StrCat("property 'problems' value '", value, "' lists '", entry,
                         "', which is not a problem and its digest like attention_fwd@0123456789abcdef"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool IsKnownPropertyKey(absl::string_view key) {
  return std::find(kKnownKeys.begin(), kKnownKeys.end(), key) != kKnownKeys.end();
}

void SortProperties(PropertyList* properties) {
  std::stable_sort(properties->begin(), properties->end(),
                   [](const kernelseek::v1::Property& a, const kernelseek::v1::Property& b) {
                     return a.key() < b.key();
                   });
}

std::vector<std::string> SplitArchList(absl::string_view value) {
  return absl::StrSplit(value, ',');
}

absl::Status ValidateProperties(const PropertyList& properties) {
  const kernelseek::v1::Property* previous = nullptr;
  for (const kernelseek::v1::Property& p : properties) {
    if (!IsKnownPropertyKey(p.key())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown property key '", p.key(), "' (known: arch, baselines, compile, driver, gpu, ncu, nvcc, problems)"));
    }
    if (previous != nullptr && previous->key() == p.key()) {
      return absl::InvalidArgumentError(absl::StrCat("property '", p.key(), "' appears twice"));
    }
    if (previous != nullptr && p.key() < previous->key()) {
      return absl::InvalidArgumentError(absl::StrCat("properties must be sorted by key: '", p.key(),
                                                     "' comes after '", previous->key(), "'"));
    }
    if (absl::Status s = ValidateValue(p); !s.ok()) return s;
    previous = &p;
  }
  return absl::OkStatus();
}

bool RequirementsMatch(const PropertyList& requirements, const PropertyList& capabilities) {
  for (const kernelseek::v1::Property& need : requirements) {
    auto have =
        std::find_if(capabilities.begin(), capabilities.end(),
                     [&](const kernelseek::v1::Property& p) { return p.key() == need.key(); });
    if (have == capabilities.end()) return false;
    if (need.value() == kAnyValue) continue;
    if (need.key() == "compile" || need.key() == "problems") {
      std::vector<std::string> offered = absl::StrSplit(have->value(), ',');
      for (absl::string_view item : absl::StrSplit(need.value(), ',')) {
        if (std::find(offered.begin(), offered.end(), item) == offered.end()) return false;
      }
    } else if (need.value() != have->value()) {
      return false;
    }
  }
  return true;
}

}  // namespace kseek
