#include "worker/job_executor.h"

#include "absl/strings/str_cat.h"
#include "worker/run_executor.h"

namespace kseek {

absl::StatusOr<kernelseek::v1::JobResult> KindDispatcher::Execute(const kernelseek::v1::JobSpec& spec,
                                                                  const StageReporter& report_stage) {
  switch (spec.kind()) {
    case kernelseek::v1::JOB_KIND_COMPILE: {
      report_stage(absl::StrCat("compiling for ", spec.compile().arch()), {});
      absl::StatusOr<kernelseek::v1::CompileResult> compiled = compiler_->Compile(spec);
      if (!compiled.ok()) return compiled.status();
      if (!compiled->cache().empty()) report_stage(absl::StrCat("compile: cache ", compiled->cache()), {});
      kernelseek::v1::JobResult result;
      *result.mutable_compile() = *std::move(compiled);
      return result;
    }
    case kernelseek::v1::JOB_KIND_VERIFY:
    case kernelseek::v1::JOB_KIND_BENCH: {
      if (runs_ == nullptr) return absl::FailedPreconditionError("this worker has no GPU to verify or bench on");
      absl::StatusOr<kernelseek::v1::RunResult> run = runs_->Run(spec, report_stage);
      if (!run.ok()) return run.status();
      kernelseek::v1::JobResult result;
      *result.mutable_run() = *std::move(run);
      return result;
    }
    case kernelseek::v1::JOB_KIND_PROFILE: {
      if (runs_ == nullptr) return absl::FailedPreconditionError("this worker has no GPU to profile on");
      absl::StatusOr<kernelseek::v1::ProfileResult> profile = runs_->Profile(spec, report_stage);
      if (!profile.ok()) return profile.status();
      kernelseek::v1::JobResult result;
      *result.mutable_profile() = *std::move(profile);
      return result;
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("this worker cannot run jobs of kind ", kernelseek::v1::JobKind_Name(spec.kind())));
  }
}

}  // namespace kseek
