#include "problem/compile_policy.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "problem/arch.h"

namespace kseek {
namespace {

// Characters a define's value may use: enough for numbers, expressions and
// type names, but no whitespace, quotes, backslash or comma, so the value
// stays one token for nvcc, cudafe and the host compiler.
constexpr absl::string_view kDefineValuePunctuation = "_.+-*/()<>:%!~^&|[]{}?=#@";

bool IsIdentifierStart(char c) { return absl::ascii_isalpha(c) || c == '_'; }
bool IsIdentifierChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }

absl::Status ValidateDefine(const std::string& define) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("define '", define, "' is not allowed: ", why));
  };
  if (define.size() > kMaxDefineBytes) {
    return bad(absl::StrCat("longer than ", kMaxDefineBytes, " bytes"));
  }
  if (define.empty() || !IsIdentifierStart(define[0])) {
    return bad("it must start with a letter or '_' (NAME or NAME=VALUE)");
  }
  size_t eq = define.find('=');
  absl::string_view name = absl::string_view(define).substr(0, eq);
  if (!std::all_of(name.begin(), name.end(), IsIdentifierChar)) {
    return bad("the name must be letters, digits and '_'");
  }
  if (eq == std::string::npos) return absl::OkStatus();
  absl::string_view value = absl::string_view(define).substr(eq + 1);
  for (char c : value) {
    if (!absl::ascii_isalnum(c) && kDefineValuePunctuation.find(c) == absl::string_view::npos) {
      return bad(absl::StrCat("the value may not contain '", std::string(1, c),
                              "' (no spaces, quotes, commas, backslashes or ';')"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateCompileOptions(const kernelseek::v1::CompileOptions& options,
                                    const std::vector<std::string>& supported_archs) {
  const std::string& arch = options.arch();
  if (arch.empty()) {
    return absl::InvalidArgumentError("compile options: arch is required (e.g. sm_90a)");
  }
  if (FindKnownArch(arch) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("arch '", arch, "' is not a known architecture (", KnownArchNames(), ")"));
  }
  if (std::find(supported_archs.begin(), supported_archs.end(), arch) == supported_archs.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "arch '", arch, "' is not supported by this worker's nvcc (supports: ",
        supported_archs.empty() ? "nothing" : absl::StrJoin(supported_archs, ","), ")"));
  }
  if (options.opt_level() < 0 || options.opt_level() > 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("opt_level ", options.opt_level(), " is outside 0..3 (0 means -O3)"));
  }
  if (options.max_registers() != 0 &&
      (options.max_registers() < kMinMaxRegisters || options.max_registers() > kMaxMaxRegisters)) {
    return absl::InvalidArgumentError(absl::StrCat("max_registers ", options.max_registers(),
                                                   " is outside ", kMinMaxRegisters, "..",
                                                   kMaxMaxRegisters, " (0 = unset)"));
  }
  if (options.defines_size() > kMaxDefines) {
    return absl::InvalidArgumentError(
        absl::StrCat(options.defines_size(), " defines given, at most ", kMaxDefines, " allowed"));
  }
  for (const std::string& define : options.defines()) {
    if (absl::Status s = ValidateDefine(define); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ValidateCompileOptions(const kernelseek::v1::CompileOptions& options) {
  static const std::vector<std::string>* const kAll = [] {
    auto* all = new std::vector<std::string>;
    for (const KnownArch& arch : KnownArchs()) all->emplace_back(arch.name);
    return all;
  }();
  return ValidateCompileOptions(options, *kAll);
}

}  // namespace kseek
