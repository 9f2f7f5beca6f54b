// ProblemCatalog: the problems (manifests and their scenarios) in a
// scenarios/ folder holding PROBLEM/problem.textproto, loaded once.
//
// The server uses it to list scenarios to clients and to refuse a verify or
// bench job for an unknown problem or scenario before it is queued. Workers
// load their own copy of the same files; the hidden seeds are drawn there.
// Immutable after Load; thread-safe.
#ifndef KERNELSEEK_PROBLEM_PROBLEM_CATALOG_H_
#define KERNELSEEK_PROBLEM_PROBLEM_CATALOG_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "problem/problem.h"

namespace kseek {

class ProblemCatalog {
 public:
  ProblemCatalog() = default;
  // INVALID_ARGUMENT with file and line for a manifest that does not parse;
  // an empty or missing folder gives an empty catalog.
  static absl::StatusOr<ProblemCatalog> Load(const std::string& scenarios_dir);

  // NOT_FOUND naming the known problems.
  absl::StatusOr<const Problem*> Find(const std::string& name) const;
  std::vector<std::string> Names() const;
  // The `problems` property of a worker with these files: every problem's
  // ProblemCapability, by name, comma-separated; empty for an empty catalog.
  std::string Capability() const;

 private:
  std::map<std::string, Problem> problems_;
};

}  // namespace kseek

#endif  // KERNELSEEK_PROBLEM_PROBLEM_CATALOG_H_
