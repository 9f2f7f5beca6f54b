// Nsight Compute for profile jobs: the ncu command line that profiles only a
// candidate's own kernels under kseek-runner, and the parser of the CSV that
// `ncu --csv --page details` writes. Pure functions; thread-safe.
#ifndef KERNELSEEK_WORKER_NCU_REPORT_H_
#define KERNELSEEK_WORKER_NCU_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

// Launches profiled per candidate kernel: the first launch is the one
// reported; the second leaves room for a kernel launched twice in a row
// before the candidate's next kernel.
inline constexpr int kNcuLaunchesPerKernel = 2;
inline constexpr int kNcuMaxLaunches = 32;

// An ncu kernel filter matching exactly the given mangled function names
// (those of the candidate's own build, from ptxas's report), so that the
// runner's fill, compare and cuBLAS reference kernels are never profiled:
// "regex:^(name1|name2)$" with regex metacharacters escaped.
std::string NcuKernelFilter(const std::vector<std::string>& mangled_functions);

// The full argv: ncu with clocks left alone, the four sections, base units
// and CSV details written to `log_path` (so the runner's own JSON stays alone
// on stdout), filtering on mangled names and printing plain function names,
// followed by `runner_argv`. `functions` must not be empty.
std::vector<std::string> NcuProfileArgv(const std::string& ncu_path, const std::vector<std::string>& functions,
                                        const std::string& log_path, const std::vector<std::string>& runner_argv);

struct NcuReport {
  // One per kernel name, in order of first launch; each from its first launch.
  std::vector<kernelseek::v1::KernelProfile> kernels;
  // ncu's own "==ERROR==" lines, prefix removed (e.g. ERR_NVGPUCTRPERM).
  std::vector<std::string> errors;
};

// Parses ncu's log: "==PROF==" / "==WARNING==" lines and anything before the
// CSV header are skipped, "==ERROR==" lines collected; columns are found by
// their header names ("ID", "Kernel Name", "Block Size", "Grid Size",
// "Section Name", "Metric Name", "Metric Unit", "Metric Value"), so extra
// columns of newer versions are ignored, and a row may end after the last of
// these (metric rows do; only rule rows fill the "Rule ..." columns); a row
// that stops short of them is taken as cut and skipped. INVALID_ARGUMENT when
// there is neither a CSV header nor an ncu error line, or the header lacks a
// column.
absl::StatusOr<NcuReport> ParseNcuCsv(absl::string_view log_text);

}  // namespace kseek

#endif  // KERNELSEEK_WORKER_NCU_REPORT_H_
