#include "problem/arch.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kseek {

const std::vector<KnownArch>& KnownArchs() {
  static const std::vector<KnownArch>* const kArchs = new std::vector<KnownArch>{
      {"sm_75", "sm_75", "compute_75"},      {"sm_80", "sm_80", "compute_80"},
      {"sm_86", "sm_86", "compute_86"},      {"sm_87", "sm_87", "compute_87"},
      {"sm_89", "sm_89", "compute_89"},      {"sm_90", "sm_90", "compute_90"},
      {"sm_90a", "sm_90", "compute_90a"},    {"sm_100", "sm_100", "compute_100"},
      {"sm_100a", "sm_100", "compute_100a"}, {"sm_103", "sm_103", "compute_103"},
      {"sm_103a", "sm_103", "compute_103a"}, {"sm_110", "sm_110", "compute_110"},
      {"sm_110a", "sm_110", "compute_110a"}, {"sm_120", "sm_120", "compute_120"},
      {"sm_120a", "sm_120", "compute_120a"}, {"sm_121", "sm_121", "compute_121"},
      {"sm_121a", "sm_121", "compute_121a"},
  };
  return *kArchs;
}

const KnownArch* FindKnownArch(absl::string_view name) {
  for (const KnownArch& arch : KnownArchs()) {
    if (arch.name == name) return &arch;
  }
  return nullptr;
}

std::string KnownArchNames() {
  return absl::StrJoin(KnownArchs(), ", ",
                       [](std::string* out, const KnownArch& arch) { absl::StrAppend(out, arch.name); });
}

}  // namespace kseek
