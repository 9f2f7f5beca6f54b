#include "problem/problem_catalog.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kseek {

absl::StatusOr<ProblemCatalog> ProblemCatalog::Load(const std::string& scenarios_dir) {
  ProblemCatalog catalog;
  std::error_code error;
  if (!std::filesystem::is_directory(scenarios_dir, error)) return catalog;
  for (const auto& entry : std::filesystem::directory_iterator(scenarios_dir, error)) {
    std::filesystem::path manifest = entry.path() / "problem.textproto";
    if (!std::filesystem::exists(manifest, error)) continue;
    absl::StatusOr<Problem> problem = Problem::Load(manifest.string());
    if (!problem.ok()) return problem.status();
    std::string name = problem->manifest().name();
    catalog.problems_.emplace(name, *std::move(problem));
  }
  return catalog;
}

absl::StatusOr<const Problem*> ProblemCatalog::Find(const std::string& name) const {
  auto it = problems_.find(name);
  if (it == problems_.end()) {
    return absl::NotFoundError(absl::StrCat("unknown problem \"", name, "\"; known: ",
                                            problems_.empty() ? "none" : absl::StrJoin(Names(), ", ")));
  }
  return &it->second;
}

std::vector<std::string> ProblemCatalog::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, problem] : problems_) names.push_back(name);
  return names;
}

std::string ProblemCatalog::Capability() const {
  std::vector<std::string> entries;
  for (const auto& [name, problem] : problems_) entries.push_back(ProblemCapability(name, problem.digest()));
  return absl::StrJoin(entries, ",");
}

}  // namespace kseek
