// Fuzz target: a problem manifest and its scenario file (text format), with
// the expression language in shapes and FLOP formulas.
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "problem/problem.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  // The manifest, a line "=====", then its scenarios.
  const size_t cut = text.find("\n=====\n");
  const absl::string_view manifest = cut == absl::string_view::npos ? text : text.substr(0, cut);
  const absl::string_view scenarios = cut == absl::string_view::npos ? "" : text.substr(cut + 7);
  auto problem = kseek::Problem::Parse(manifest, "problem.textproto", scenarios, "scenarios.textproto");
  if (problem.ok()) {
    for (const auto& scenario : problem->scenarios()) {
      (void)problem->Flops(scenario);
      (void)problem->BindingsFor(scenario);
    }
  }
  return 0;
}
