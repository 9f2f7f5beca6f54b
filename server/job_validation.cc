#include "server/job_validation.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "worker/nvcc_command.h"

namespace kseek {

absl::StatusOr<std::vector<kernelseek::v1::Property>> ValidateJobSpec(const kernelseek::v1::JobSpec& spec) {
  if (spec.kind() != kernelseek::v1::JOB_KIND_COMPILE) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported job kind ", kernelseek::v1::JobKind_Name(spec.kind())));
  }
  if (spec.source().empty()) return absl::InvalidArgumentError("the kernel source is empty");
  if (spec.source().size() > kMaxSourceBytes) {
    return absl::InvalidArgumentError(absl::StrCat("the kernel source is ", spec.source().size(),
                                                   " bytes; the limit is ", kMaxSourceBytes));
  }
  const std::string& name = spec.source_name();
  if (name.empty() || name.size() > 128 || name.find('/') != std::string::npos || name[0] == '.') {
    return absl::InvalidArgumentError(
        absl::StrCat("source_name \"", name, "\" must be a plain file name (no '/', not hidden, <= 128 bytes)"));
  }
  const KnownArch* arch = FindKnownArch(spec.compile().arch());
  if (arch == nullptr) {
    std::string known;
    for (const KnownArch& a : KnownArchs()) absl::StrAppend(&known, known.empty() ? "" : ", ", std::string(a.name));
    return absl::InvalidArgumentError(
        absl::StrCat("unknown arch \"", spec.compile().arch(), "\"; known: ", known));
  }
  // The same checks the worker makes, against every known arch, so that a
  // bad option is refused here rather than failing on a worker later.
  std::vector<std::string> all_archs;
  for (const KnownArch& a : KnownArchs()) all_archs.emplace_back(a.name);
  if (absl::Status s = NvccCommand("nvcc", all_archs).Validate(spec.compile()); !s.ok()) return s;

  kernelseek::v1::Property compile;
  compile.set_key("compile");
  compile.set_value(std::string(arch->name));
  return std::vector<kernelseek::v1::Property>{compile};
}

}  // namespace kseek
