#include "client/scenario_table.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/text_table.h"

namespace kseek {
namespace {

using kernelseek::v1::ScenarioSpec;

// `names` plus `name` if it is not there yet, keeping first-seen order.
void AddOnce(std::vector<std::string>* names, const std::string& name) {
  if (std::find(names->begin(), names->end(), name) == names->end()) names->push_back(name);
}

}  // namespace

std::string DtypeLabel(kernelseek::v1::TensorDtype dtype) {
  switch (dtype) {
    case kernelseek::v1::DTYPE_BF16:
      return "bf16";
    case kernelseek::v1::DTYPE_F16:
      return "fp16";
    case kernelseek::v1::DTYPE_F32:
      return "fp32";
    case kernelseek::v1::DTYPE_SCENARIO:
      return "scenario";
    default:
      return absl::StrCat("dtype-", static_cast<int>(dtype));
  }
}

std::string FillLabel(const ScenarioSpec& scenario) {
  std::vector<std::string> parts;
  for (const kernelseek::v1::InputFill& f : scenario.fill()) {
    std::string part = f.tensor();
    if (f.has_mean()) absl::StrAppend(&part, " mean ", f.mean());
    if (f.has_std()) absl::StrAppend(&part, " sd ", f.std());
    if (f.has_ramp()) {
      absl::StrAppend(&part, " ramp[", f.ramp().axis(), "] ", f.ramp().from(), "..",
                      f.ramp().to());
    }
    parts.push_back(std::move(part));
  }
  return parts.empty() ? "normal" : absl::StrJoin(parts, "; ");
}

std::string FormatScenarioTable(const kernelseek::v1::ListScenariosResponse& response) {
  const kernelseek::v1::ProblemManifest& manifest = response.problem();
  // Symbols: the manifest's, then any a scenario names that the manifest
  // lacks, so that nothing the server sent is hidden.
  std::vector<std::string> symbols;
  for (const auto& symbol : manifest.symbol()) AddOnce(&symbols, symbol.name());
  for (const ScenarioSpec& s : response.scenarios()) {
    for (const auto& symbol : s.symbol()) AddOnce(&symbols, symbol.name());
  }
  // Scalars: only those some scenario overrides, in manifest order first.
  std::vector<std::string> overridden;
  for (const ScenarioSpec& s : response.scenarios()) {
    for (const auto& scalar : s.scalar()) AddOnce(&overridden, scalar.name());
  }
  std::vector<std::string> scalars;
  for (const auto& scalar : manifest.scalar()) {
    if (std::find(overridden.begin(), overridden.end(), scalar.name()) != overridden.end()) {
      scalars.push_back(scalar.name());
    }
  }
  for (const std::string& name : overridden) AddOnce(&scalars, name);

  // Inputs: a column only where some scenario draws them otherwise than normal.
  const bool fills = std::any_of(response.scenarios().begin(), response.scenarios().end(),
                                 [](const ScenarioSpec& s) { return s.fill_size() > 0; });

  std::vector<std::string> header = {"ID", "SET", "DTYPE"};
  header.insert(header.end(), symbols.begin(), symbols.end());
  header.insert(header.end(), scalars.begin(), scalars.end());
  header.push_back("SEED");
  if (fills) header.push_back("INPUTS");
  std::vector<Align> align(header.size(), Align::kRight);
  align[0] = align[1] = align[2] = Align::kLeft;
  if (fills) align.back() = Align::kLeft;

  std::vector<std::pair<std::string, int>> per_set;
  std::vector<std::vector<std::string>> rows;
  for (const ScenarioSpec& s : response.scenarios()) {
    std::vector<std::string> row = {s.id(), s.set(), DtypeLabel(s.dtype())};
    for (const std::string& name : symbols) {
      auto it = std::find_if(s.symbol().begin(), s.symbol().end(),
                             [&](const auto& v) { return v.name() == name; });
      row.push_back(it == s.symbol().end() ? "-" : absl::StrCat(it->value()));
    }
    for (const std::string& name : scalars) {
      auto it = std::find_if(s.scalar().begin(), s.scalar().end(),
                             [&](const auto& v) { return v.name() == name; });
      row.push_back(it == s.scalar().end() ? "-" : absl::StrCat(it->value()));
    }
    row.push_back(s.hidden_seed() ? "hidden" : absl::StrCat(s.seed()));
    if (fills) row.push_back(FillLabel(s));
    rows.push_back(std::move(row));

    auto set = std::find_if(per_set.begin(), per_set.end(),
                            [&](const auto& entry) { return entry.first == s.set(); });
    if (set == per_set.end()) {
      per_set.emplace_back(s.set(), 1);
    } else {
      ++set->second;
    }
  }

  std::string out = FormatTable(header, align, rows);
  std::vector<std::string> counts;
  for (const auto& [set, count] : per_set) {
    counts.push_back(absl::StrCat(set.empty() ? "(no set)" : set, " ", count));
  }
  absl::StrAppend(&out, "\n", response.scenarios_size(), " scenarios", counts.empty() ? "" : ": ",
                  absl::StrJoin(counts, ", "), "\n");
  // What a job that names no scenarios or baseline gets: the CLI sends none
  // and the server fills these in, so the listing is where a user sees them.
  const kernelseek::v1::ProblemManifest& m = response.problem();
  if (m.baseline_size() > 0 || !m.default_verify_scenarios().empty() || !m.default_bench_scenarios().empty() ||
      !m.default_baseline().empty()) {
    std::vector<std::string> baselines;
    for (const auto& b : m.baseline()) baselines.push_back(b.name());
    auto or_else = [](const std::string& value, const char* fallback) { return value.empty() ? fallback : value; };
    absl::StrAppend(&out, "defaults: verify ", or_else(m.default_verify_scenarios(), "all"), "; bench ",
                    or_else(m.default_bench_scenarios(), "all"), " against ", or_else(m.default_baseline(), "none"),
                    baselines.empty() ? "" : absl::StrCat(" (baselines: ", absl::StrJoin(baselines, ", "), ")"),
                    "\n");
  }
  return out;
}

}  // namespace kseek
