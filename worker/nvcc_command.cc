#include "worker/nvcc_command.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace kseek {

NvccCommand::NvccCommand(std::string nvcc_path, std::vector<std::string> supported_archs)
    : nvcc_path_(std::move(nvcc_path)), supported_archs_(std::move(supported_archs)) {}

absl::Status NvccCommand::Validate(const kernelseek::v1::CompileOptions& options) const {
  return ValidateCompileOptions(options, supported_archs_);
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
