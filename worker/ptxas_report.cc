#include "worker/ptxas_report.h"

#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "re2/re2.h"

namespace kseek {
namespace {

using kernelseek::v1::Diagnostic;
using kernelseek::v1::KernelResources;

// RE2, not std::regex: nvcc's output carries text of the user's (an #error
// line of any length), and RE2 matches in linear time without recursion,
// where std::regex's backtracking overflowed the stack on a 200 kB line.
int ToInt(const std::string& digits) {
  int value = 0;
  // The patterns only capture digits; a value past INT_MAX is left at 0.
  if (!absl::SimpleAtoi(digits, &value)) return 0;
  return value;
}

absl::string_view BaseName(absl::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::vector<KernelResources> ParsePtxasReport(absl::string_view nvcc_stderr) {
  static const RE2 kCompiling(R"(^ptxas info\s*: Compiling entry function '([^']+)' for '([^']+)')");
  static const RE2 kProperties(R"(^ptxas info\s*: Function properties for (\S+))");
  static const RE2 kStack(R"(^\s*(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const RE2 kUsed(R"(^ptxas info\s*: Used (\d+) registers(.*)$)");
  static const RE2 kBarriers(R"(used (\d+) barriers)");
  static const RE2 kSmem(R"((\d+) bytes smem)");
  static const RE2 kCmem(R"((\d+) bytes cmem\[\d+\])");

  std::vector<KernelResources> out;
  // (function, arch) -> index in `out`.
  std::map<std::pair<std::string, std::string>, size_t> index;
  std::set<std::string> archs;
  std::string arch;
  KernelResources* current = nullptr;
  auto record = [&](const std::string& function) {
    auto [it, inserted] = index.emplace(std::make_pair(function, arch), out.size());
    if (inserted) {
      out.emplace_back();
      out.back().set_function(function);
      out.back().set_arch(arch);
    }
    return &out[it->second];
  };

  for (absl::string_view line_view : absl::StrSplit(nvcc_stderr, '\n')) {
    const absl::string_view stripped = absl::StripSuffix(line_view, "\r");
    const re2::StringPiece line(stripped.data(), stripped.size());
    std::string a, b, c;
    if (RE2::PartialMatch(line, kCompiling, &a, &b)) {
      arch = b;
      archs.insert(arch);
      current = record(a);
    } else if (RE2::PartialMatch(line, kProperties, &a)) {
      current = record(a);
    } else if (current != nullptr && RE2::PartialMatch(line, kStack, &a, &b, &c)) {
      current->set_stack_frame_bytes(ToInt(a));
      current->set_spill_store_bytes(ToInt(b));
      current->set_spill_load_bytes(ToInt(c));
    } else if (current != nullptr && RE2::PartialMatch(line, kUsed, &a, &b)) {
      current->set_registers(ToInt(a));
      const std::string rest = b;
      if (RE2::PartialMatch(rest, kBarriers, &a)) current->set_barriers(ToInt(a));
      if (RE2::PartialMatch(rest, kSmem, &a)) current->set_shared_bytes(ToInt(a));
      int cmem = 0;
      re2::StringPiece input(rest);
      while (RE2::FindAndConsume(&input, kCmem, &a)) cmem += ToInt(a);
      current->set_constant_bytes(cmem);
    }
  }
  // Some nvcc versions list device functions before the first entry
  // function; with one arch in the whole report, that arch is theirs too.
  if (archs.size() == 1) {
    for (KernelResources& r : out) {
      if (r.arch().empty()) r.set_arch(*archs.begin());
    }
  }
  return out;
}

std::vector<Diagnostic> ParseNvccDiagnostics(absl::string_view nvcc_output,
                                             absl::string_view source_path,
                                             absl::string_view display_name) {
  // cudafe (EDG): file(12): error: msg / file(3): warning #177-D: msg
  static const RE2 kEdg(R"((.+)\((\d+)\): (catastrophic error|error|warning|remark|note)(?: #([\w-]+))?: (.*))");
  // gcc: file:12:5: error: msg / file:12: error: msg / <command-line>: error: msg
  static const RE2 kGcc(R"(([^\s:][^:]*?):(?:(\d+):(?:\d+:)? )?\s*(fatal error|error|warning|note): (.*))");
  // ptxas file.ptx, line 24; error   : msg
  static const RE2 kPtxLine(R"(ptxas (.+), line (\d+); (error|warning|fatal)\s*: (.*))");
  // ptxas error   : msg, nvcc fatal   : msg, nvlink warning : msg
  static const RE2 kTool(R"((ptxas|nvcc|nvlink|fatbinary|cudafe\+\+|cicc|nvdisasm)\s+(error|warning|fatal)\s*: (.*))");

  const absl::string_view source_base = BaseName(source_path);
  auto display = [&](const std::string& file) -> std::string {
    if (file == source_path || file == source_base) return std::string(display_name);
    return file;
  };
  auto severity = [](const std::string& word) {
    if (word == "warning") return Diagnostic::SEVERITY_WARNING;
    if (word == "note" || word == "remark") return Diagnostic::SEVERITY_NOTE;
    return Diagnostic::SEVERITY_ERROR;
  };

  std::vector<Diagnostic> out;
  for (absl::string_view line_view : absl::StrSplit(nvcc_output, '\n')) {
    const absl::string_view stripped = absl::StripSuffix(line_view, "\r");
    const re2::StringPiece line(stripped.data(), stripped.size());
    std::string m1, m2, m3, m4, m5;
    Diagnostic d;
    if (RE2::FullMatch(line, kPtxLine, &m1, &m2, &m3, &m4)) {
      d.set_file("ptxas");
      d.set_severity(severity(m3));
      d.set_message(absl::StrCat("PTX line ", m2, ": ", m4));
    } else if (RE2::FullMatch(line, kTool, &m1, &m2, &m3)) {
      d.set_file(m1);
      d.set_severity(severity(m2));
      d.set_message(m3);
    } else if (RE2::FullMatch(line, kEdg, &m1, &m2, &m3, &m4, &m5)) {
      d.set_file(display(m1));
      d.set_line(ToInt(m2));
      d.set_severity(severity(m3));
      // The code group matches only non-empty text: empty means absent.
      d.set_message(m4.empty() ? m5 : absl::StrCat(m5, " [#", m4, "]"));
    } else if (RE2::FullMatch(line, kGcc, &m1, &m2, &m3, &m4)) {
      d.set_file(display(m1));
      if (!m2.empty()) d.set_line(ToInt(m2));
      d.set_severity(severity(m3));
      d.set_message(m4);
    } else {
      continue;
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace kseek
