#include "worker/nvcc_command.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

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

NvccCommand::NvccCommand(std::string nvcc_path, std::vector<std::string> supported_archs)
    : nvcc_path_(std::move(nvcc_path)), supported_archs_(std::move(supported_archs)) {}

absl::Status NvccCommand::Validate(const kernelseek::v1::CompileOptions& options) const {
  const std::string& arch = options.arch();
  if (arch.empty()) {
    return absl::InvalidArgumentError("compile options: arch is required (e.g. sm_90a)");
  }
  if (FindKnownArch(arch) == nullptr) {
    std::vector<absl::string_view> names;
    for (const KnownArch& known : KnownArchs()) names.push_back(known.name);
    return absl::InvalidArgumentError(absl::StrCat(
        "arch '", arch, "' is not a known architecture (", absl::StrJoin(names, ", "), ")"));
  }
  if (std::find(supported_archs_.begin(), supported_archs_.end(), arch) == supported_archs_.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "arch '", arch, "' is not supported by this worker's nvcc (supports: ",
        supported_archs_.empty() ? "nothing" : absl::StrJoin(supported_archs_, ","), ")"));
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

std::vector<std::string> NvccCommand::CommonFlags(
    const kernelseek::v1::CompileOptions& options) const {
  const KnownArch& arch = *FindKnownArch(options.arch());
  const int opt = options.opt_level() == 0 ? kDefaultOptLevel : options.opt_level();
  // nvcc's -O is for host code; ptxas takes the device optimization level.
  std::vector<std::string> flags = {
      absl::StrCat("-gencode=arch=", arch.compute, ",code=", arch.name),
      "-std=c++17",
      absl::StrCat("-O", opt),
      "-Xptxas",
      absl::StrCat("-O", opt),
      "-Xptxas",
      "-v",
  };
  if (options.line_info()) flags.push_back("-lineinfo");
  if (options.max_registers() != 0) {
    flags.push_back(absl::StrCat("-maxrregcount=", options.max_registers()));
  }
  for (const std::string& define : options.defines()) flags.push_back(absl::StrCat("-D", define));
  return flags;
}

absl::StatusOr<std::vector<std::string>> NvccCommand::CubinArgv(
    const kernelseek::v1::CompileOptions& options, const std::string& source_path,
    const std::string& cubin_path) const {
  if (absl::Status s = Validate(options); !s.ok()) return s;
  std::vector<std::string> argv = {nvcc_path_, "-cubin"};
  for (std::string& flag : CommonFlags(options)) argv.push_back(std::move(flag));
  argv.insert(argv.end(), {"-o", cubin_path, source_path});
  return argv;
}

absl::StatusOr<std::vector<std::string>> NvccCommand::SharedObjectArgv(
    const kernelseek::v1::CompileOptions& options, const std::string& source_path,
    const std::string& so_path) const {
  if (absl::Status s = Validate(options); !s.ok()) return s;
  // The shared CUDA runtime, as kseek-runner uses: one runtime instance in
  // the process, so the runner sees the candidate's launch errors.
  std::vector<std::string> argv = {nvcc_path_, "-shared", "-Xcompiler", "-fPIC", "-cudart", "shared"};
  for (std::string& flag : CommonFlags(options)) argv.push_back(std::move(flag));
  argv.insert(argv.end(), {"-o", so_path, source_path});
  return argv;
}

}  // namespace kseek
