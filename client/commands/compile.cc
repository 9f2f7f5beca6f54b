// kseek compile.
#include "client/commands/compile.h"

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/commands/job_flow.h"
#include "client/compile_request.h"
#include "client/exit_codes.h"
#include "client/report_format.h"
#include "common/flags.h"

namespace kseek {

int RunCompile(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  CompileRequest request;
  WaitFlags wait;
  FlagSet flags("kseek compile", "FILE --arch ARCH [flags]",
                "Compiles a CUDA source file on a worker that can build for ARCH and prints\n"
                "the result: diagnostics, the ptxas resources of each kernel and a summary\n"
                "of its SASS. Waits for the job, showing its stage on stderr.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  AddCompileFlags(&flags, &request);
  AddWaitFlags(&flags, &wait);
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one FILE", "compile")) return *done;
  request.path = positional[0];

  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeCompileSpec(request);
  if (!spec.ok()) return Fail(kExitUsage, spec.status().message());
  return SubmitAndReport(*spec, global, common, wait, &FormatProgress, &ReportFinishedCompile);
}

}  // namespace kseek
