#include "worker/sass_summary.h"

#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace kseek {
namespace {

// Strips a leading "/*01a0*/" address; false when the line has none, which
// is how cuobjdump's encoding-only continuation lines ("/* 0x000f... */"),
// headers and labels are told apart from instructions.
bool ConsumeAddress(absl::string_view* line) {
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(*line);
  if (!absl::ConsumePrefix(&rest, "/*")) return false;
  size_t end = rest.find("*/");
  if (end == 0 || end == absl::string_view::npos) return false;
  for (char c : rest.substr(0, end)) {
    if (!absl::ascii_isxdigit(c)) return false;
  }
  *line = rest.substr(end + 2);
  return true;
}

struct Counts {
  kernelseek::v1::SassSummary* summary;
  std::map<std::string, int> classes;
  int trailing_nops = 0;
};

void Finish(Counts& counts) {
  // NOPs after the last real instruction are alignment padding.
  counts.classes["NOP"] -= counts.trailing_nops;
  counts.summary->set_total(counts.summary->total() - counts.trailing_nops);
  if (counts.classes["NOP"] == 0) counts.classes.erase("NOP");
  for (const std::string& tracked : TrackedInstructionClasses()) counts.classes[tracked] += 0;
  for (const auto& [name, count] : counts.classes) {
    kernelseek::v1::InstructionCount* c = counts.summary->add_classes();
    c->set_name(name);
    c->set_count(count);
  }
}

}  // namespace

const std::vector<std::string>& TrackedInstructionClasses() {
  static const std::vector<std::string>* const kTracked =
      new std::vector<std::string>{"BAR",  "HGMMA", "HMMA", "LDG", "LDGSTS", "LDL",   "LDS",
                                   "MUFU", "SHFL",  "STG",  "STL", "STS",    "SYNCS", "UTMALDG"};
  return *kTracked;
}

std::string InstructionClass(absl::string_view instruction) {
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(instruction);
  // Kepler-era dual-issue braces.
  if (absl::ConsumePrefix(&rest, "{")) rest = absl::StripLeadingAsciiWhitespace(rest);
  if (absl::StartsWith(rest, "@")) {
    size_t space = rest.find_first_of(" \t");
    if (space == absl::string_view::npos) return "";
    rest = absl::StripLeadingAsciiWhitespace(rest.substr(space));
  }
  size_t end = 0;
  while (end < rest.size() && (absl::ascii_isalnum(rest[end]) || rest[end] == '_')) ++end;
  absl::string_view opcode = rest.substr(0, end);
  if (opcode.empty() || !absl::ascii_isupper(opcode[0])) return "";
  return std::string(opcode);
}

std::vector<kernelseek::v1::SassSummary> SummarizeSass(absl::string_view dump) {
  std::vector<kernelseek::v1::SassSummary> out;
  // Summaries are filled in place; `out` is reserved so pointers stay valid.
  size_t functions = 0;
  for (absl::string_view line : absl::StrSplit(dump, '\n')) {
    if (absl::StartsWith(absl::StripLeadingAsciiWhitespace(line), "Function : ")) ++functions;
  }
  out.reserve(functions);

  Counts counts{nullptr, {}, 0};
  for (absl::string_view line : absl::StrSplit(dump, '\n')) {
    absl::string_view stripped = absl::StripAsciiWhitespace(line);
    if (absl::ConsumePrefix(&stripped, "Function : ")) {
      if (counts.summary != nullptr) Finish(counts);
      out.emplace_back();
      counts = Counts{&out.back(), {}, 0};
      counts.summary->set_function(std::string(absl::StripAsciiWhitespace(stripped)));
      continue;
    }
    if (counts.summary == nullptr || !ConsumeAddress(&line)) continue;
    std::string name = InstructionClass(line);
    if (name.empty()) continue;
    counts.classes[name] += 1;
    counts.summary->set_total(counts.summary->total() + 1);
    counts.trailing_nops = name == "NOP" ? counts.trailing_nops + 1 : 0;
  }
  if (counts.summary != nullptr) Finish(counts);
  return out;
}

}  // namespace kseek
