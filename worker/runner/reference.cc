#include "worker/runner/reference.h"

#include <cstdio>
#include <cstdlib>
#include <map>

namespace kseek::runner {
namespace {

// Built on first use, so registrars in other files may run in any order.
std::map<std::string, ReferenceFn, std::less<>>& Registry() {
  static auto* registry = new std::map<std::string, ReferenceFn, std::less<>>();
  return *registry;
}

}  // namespace

ReferenceRegistrar::ReferenceRegistrar(const char* name, ReferenceFn fn) {
  if (!Registry().emplace(name, fn).second) {
    // Two *_reference.cu files claim one name: a build mistake no input can cause.
    std::fprintf(stderr, "kseek-runner: two references are registered as '%s'\n", name);
    std::abort();
  }
}

ReferenceFn FindReference(absl::string_view name) {
  auto it = Registry().find(name);
  return it == Registry().end() ? nullptr : it->second;
}

std::vector<std::string> ReferenceNames() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : Registry()) names.push_back(name);
  return names;
}

}  // namespace kseek::runner
