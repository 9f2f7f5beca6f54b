#include "worker/ptxas_report.h"

#include <map>
#include <regex>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace kseek {
namespace {

using kernelseek::v1::Diagnostic;
using kernelseek::v1::KernelResources;

int ToInt(const std::string& digits) {
  int value = 0;
  // The regexes only capture digits; a value past INT_MAX is left at 0.
  if (!absl::SimpleAtoi(digits, &value)) return 0;
  return value;
}

absl::string_view BaseName(absl::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::vector<KernelResources> ParsePtxasReport(absl::string_view nvcc_stderr) {
  static const std::regex kCompiling(
      R"(^ptxas info\s*: Compiling entry function '([^']+)' for '([^']+)')");
  static const std::regex kProperties(R"(^ptxas info\s*: Function properties for (\S+))");
  static const std::regex kStack(
      R"(^\s*(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex kUsed(R"(^ptxas info\s*: Used (\d+) registers(.*)$)");
  static const std::regex kBarriers(R"(used (\d+) barriers)");
  static const std::regex kSmem(R"((\d+) bytes smem)");
  static const std::regex kCmem(R"((\d+) bytes cmem\[\d+\])");

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
    std::string line(absl::StripSuffix(line_view, "\r"));
    std::smatch m;
    if (std::regex_search(line, m, kCompiling)) {
      arch = m[2];
      archs.insert(arch);
      current = record(m[1]);
    } else if (std::regex_search(line, m, kProperties)) {
      current = record(m[1]);
    } else if (current != nullptr && std::regex_search(line, m, kStack)) {
      current->set_stack_frame_bytes(ToInt(m[1]));
      current->set_spill_store_bytes(ToInt(m[2]));
      current->set_spill_load_bytes(ToInt(m[3]));
    } else if (current != nullptr && std::regex_search(line, m, kUsed)) {
      current->set_registers(ToInt(m[1]));
      const std::string rest = m[2];
      std::smatch part;
      if (std::regex_search(rest, part, kBarriers)) current->set_barriers(ToInt(part[1]));
      if (std::regex_search(rest, part, kSmem)) current->set_shared_bytes(ToInt(part[1]));
      int cmem = 0;
      for (std::sregex_iterator it(rest.begin(), rest.end(), kCmem), end; it != end; ++it) {
        cmem += ToInt((*it)[1]);
      }
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
  static const std::regex kEdg(
      R"(^(.+)\((\d+)\): (catastrophic error|error|warning|remark|note)(?: #([\w-]+))?: (.*)$)");
  // gcc: file:12:5: error: msg / file:12: error: msg / <command-line>: error: msg
  static const std::regex kGcc(
      R"(^([^\s:][^:]*?):(?:(\d+):(?:\d+:)? )?\s*(fatal error|error|warning|note): (.*)$)");
  // ptxas file.ptx, line 24; error   : msg
  static const std::regex kPtxLine(R"(^ptxas (.+), line (\d+); (error|warning|fatal)\s*: (.*)$)");
  // ptxas error   : msg, nvcc fatal   : msg, nvlink warning : msg
  static const std::regex kTool(
      R"(^(ptxas|nvcc|nvlink|fatbinary|cudafe\+\+|cicc|nvdisasm)\s+(error|warning|fatal)\s*: (.*)$)");

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
    std::string line(absl::StripSuffix(line_view, "\r"));
    std::smatch m;
    Diagnostic d;
    if (std::regex_match(line, m, kPtxLine)) {
      d.set_file("ptxas");
      d.set_severity(severity(m[3]));
      d.set_message(absl::StrCat("PTX line ", m[2].str(), ": ", m[4].str()));
    } else if (std::regex_match(line, m, kTool)) {
      d.set_file(m[1]);
      d.set_severity(severity(m[2]));
      d.set_message(m[3]);
    } else if (std::regex_match(line, m, kEdg)) {
      d.set_file(display(m[1]));
      d.set_line(ToInt(m[2]));
      d.set_severity(severity(m[3]));
      d.set_message(m[4].matched ? absl::StrCat(m[5].str(), " [#", m[4].str(), "]") : m[5].str());
    } else if (std::regex_match(line, m, kGcc)) {
      d.set_file(display(m[1]));
      if (m[2].matched) d.set_line(ToInt(m[2]));
      d.set_severity(severity(m[3]));
      d.set_message(m[4]);
    } else {
      continue;
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace kseek
