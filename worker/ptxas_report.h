// Parsers for what nvcc prints on stderr: ptxas's per-function resource
// report (-Xptxas -v) and the error/warning lines of cudafe, the host
// compiler, ptxas and nvcc itself. Pure functions; thread-safe.
#ifndef KERNELSEEK_WORKER_PTXAS_REPORT_H_
#define KERNELSEEK_WORKER_PTXAS_REPORT_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

// One KernelResources per function ptxas reports, in the order it reports
// them. Entry functions (kernels) carry registers, barriers, smem and cmem
// (the sum of all cmem banks, for nvcc versions that print them). Non-inlined
// device functions appear too, with registers 0, because ptxas gives only
// their stack frame and spills, which are what makes them worth seeing.
// Lines that are not part of the report are ignored.
std::vector<kernelseek::v1::KernelResources> ParsePtxasReport(absl::string_view nvcc_stderr);

// Turns compiler messages into Diagnostics, skipping source echoes, carets
// and summaries ("2 errors detected ..."). Recognized forms:
//   file(12): error: ...          cudafe/EDG front end (also warning #177-D, remark)
//   file:12:5: fatal error: ...   host compiler (gcc), also file: error: ...
//   ptxas error : ...             nvcc/ptxas/nvlink/fatbinary tool messages
//   ptxas file.ptx, line 24; error : ...  (reported as file "ptxas", line 0,
//                                         "PTX line 24: ..." since it is not a
//                                         line of the user's source)
// A file equal to `source_path`, or to its base name, is reported as
// `display_name` (the user's source_name), so temp paths never show.
std::vector<kernelseek::v1::Diagnostic> ParseNvccDiagnostics(absl::string_view nvcc_output,
                                                             absl::string_view source_path,
                                                             absl::string_view display_name);

}  // namespace kseek

#endif  // KERNELSEEK_WORKER_PTXAS_REPORT_H_
