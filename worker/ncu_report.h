// Nsight Compute for profile jobs: the ncu command lines that profile only a
// candidate's own kernels under kseek-runner, and the parsers of the CSV that
// `ncu --csv --page details` and `--page source` (warp-stall hot spots)
// write. Pure functions; thread-safe.
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

// Stall reasons kept per kernel and per hot spot.
inline constexpr int kKernelStallReasons = 6;
inline constexpr int kHotSpotStallReasons = 3;

// The argv of the second, optional ncu run of a profile job: the SASS source
// page with warp-stall sampling (sections SourceCounters and WarpStateStats)
// of the first launch of the same kernels, as CSV written to `log_path`.
std::vector<std::string> NcuSourceArgv(const std::string& ncu_path, const std::vector<std::string>& functions,
                                       const std::string& log_path, const std::vector<std::string>& runner_argv);

struct NcuSourceReport {
  // One per "Kernel Name" block, in the order ncu printed them.
  std::vector<kernelseek::v1::KernelHotSpots> kernels;
  // ncu's own "==ERROR==" lines, prefix removed.
  std::vector<std::string> errors;
};

// Parses `ncu --page source --print-source sass --csv`: "==" tool lines are
// skipped ("==ERROR==" ones collected); each `"Kernel Name","NAME",` line
// starts a kernel, followed by a header row ("Address","Source",...) and one
// row per SASS instruction. Samples are "Warp Stall Sampling (All Samples)";
// stall reasons are the "stall_*" columns, without their "(Not Issued)"
// variants. Keeps the `max_hot_spots` lines with the most samples (ties: the
// earlier line first) and skips lines with none. INVALID_ARGUMENT when there
// is neither a kernel nor an error line, or a kernel's header lacks a column.
absl::StatusOr<NcuSourceReport> ParseNcuSourceCsv(absl::string_view log_text, int max_hot_spots);

// The plain function name in a demangled signature, as ncu's
// `--print-kernel-base function` prints it: "void ns::Foo<(int)1>(float *)"
// gives "Foo". Returns `demangled` unchanged when it cannot tell.
std::string FunctionBaseName(absl::string_view demangled);

}  // namespace kseek

#endif  // KERNELSEEK_WORKER_NCU_REPORT_H_
