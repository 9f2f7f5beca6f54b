#include "client/compile_request.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace kseek {
namespace {

// Architectures look like sm_90, sm_90a, sm_100a or sm_100f.
bool IsArchName(const std::string& arch) {
  if (!absl::StartsWith(arch, "sm_") || arch.size() < 5) return false;
  size_t i = 3;
  while (i < arch.size() && absl::ascii_isdigit(static_cast<unsigned char>(arch[i]))) ++i;
  if (i < 5) return false;  // at least two digits
  return i == arch.size() ||
         (i + 1 == arch.size() && absl::ascii_islower(static_cast<unsigned char>(arch[i])));
}

bool IsIdentifier(absl::string_view name) {
  if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

absl::Status CheckDefine(const std::string& define) {
  absl::string_view name = define;
  if (size_t eq = define.find('='); eq != std::string::npos) name = name.substr(0, eq);
  if (!IsIdentifier(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--define \"", define, "\" is not NAME or NAME=VALUE with NAME an identifier"));
  }
  if (define.find('\n') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("--define \"", define, "\" contains a newline"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadSource(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read ", path, ": it is a directory"));
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (file == nullptr) {
    int error = errno;
    std::string message = absl::StrCat("cannot read ", path, ": ", std::strerror(error));
    if (error == ENOENT) return absl::NotFoundError(message);
    if (error == EACCES) return absl::PermissionDeniedError(message);
    return absl::InvalidArgumentError(message);
  }
  std::string text;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file.get())) > 0) text.append(buffer, n);
  if (std::ferror(file.get())) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read ", path, ": read error"));
  }
  return text;
}

}  // namespace

absl::StatusOr<kernelseek::v1::JobSpec> MakeCompileSpec(const CompileRequest& request) {
  if (request.arch.empty()) {
    return absl::InvalidArgumentError("--arch is required, e.g. --arch sm_90a");
  }
  if (!IsArchName(request.arch)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--arch \"", request.arch, "\" is not an architecture like sm_90a or sm_100a"));
  }
  // The protocol reads opt_level 0 as "the default", so -O0 cannot be asked
  // for; refusing it beats silently compiling with -O3.
  if (request.opt_level == 0) {
    return absl::InvalidArgumentError(
        "--opt-level 0 cannot be requested (the server treats 0 as its default, -O3); use 1..3");
  }
  if (request.opt_level != -1 && (request.opt_level < 1 || request.opt_level > 3)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--opt-level wants 1, 2 or 3, got ", request.opt_level));
  }
  if (request.max_registers < 0 || request.max_registers > 255) {
    return absl::InvalidArgumentError(
        absl::StrCat("--maxrregcount wants 1..255, got ", request.max_registers));
  }
  for (const std::string& define : request.defines) {
    if (absl::Status s = CheckDefine(define); !s.ok()) return s;
  }
  absl::StatusOr<std::string> source = ReadSource(request.path);
  if (!source.ok()) return source.status();

  kernelseek::v1::JobSpec spec;
  spec.set_kind(kernelseek::v1::JOB_KIND_COMPILE);
  spec.set_source_name(std::filesystem::path(request.path).filename().string());
  spec.set_source(*std::move(source));
  kernelseek::v1::CompileOptions* options = spec.mutable_compile();
  options->set_arch(request.arch);
  if (request.opt_level > 0) options->set_opt_level(static_cast<int32_t>(request.opt_level));
  options->set_line_info(request.line_info);
  for (const std::string& define : request.defines) options->add_defines(define);
  options->set_max_registers(static_cast<int32_t>(request.max_registers));
  return spec;
}

}  // namespace kseek
