// Text renderings of verify, bench and profile jobs for the kseek CLI: the
// progress line while scenarios run, the per-scenario report, the profile
// report, and the exit code a finished job maps to.
//
// Plain functions of the Job proto, so tests build jobs by hand and compare
// text. Rows keep the order the server sent. Thread-safe.
#ifndef KERNELSEEK_CLIENT_RUN_REPORT_H_
#define KERNELSEEK_CLIENT_RUN_REPORT_H_

#include <string>

#include "client/exit_codes.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

// "[#########...............] 36/96": `done` of `total` as a bar `width`
// characters wide; done is clamped to [0, total]. total <= 0 gives "".
std::string FormatProgressBar(int done, int total, int width);

// What a waiting user reads: the bar from Job.progress when the worker has
// reported one, then FormatProgress's stage and worker, e.g.
// "[######..................] 18/72  benchmarking on gpu-1".
std::string FormatRunProgress(const kernelseek::v1::Job& job);

// "bench attention_fwd, scenarios perf, baseline cudnn, at most 2 s per scenario";
// a profile names its one scenario: "profile attention_fwd, scenario ID".
std::string FormatRunOptions(kernelseek::v1::JobKind kind,
                             const kernelseek::v1::RunOptions& options);

// The report of a finished verify or bench job: the shared-object build (its
// diagnostics when it failed, and then nothing else), one row per scenario
// (verdict, max error against its bar, relative L2 error; bench adds the
// median time, TFLOP/s, the baseline's TFLOP/s and the speedup; failing rows
// give their reason), then a summary: passed X/Y, GPU and driver, the
// baseline, the geometric means and the runner's error if it stopped early.
// A job without a run result gets one line saying so.
std::string FormatRunReport(const kernelseek::v1::Job& job);

// How `kseek verify`/`kseek bench` exit for a finished job:
//   kExitScenarioFailed (1)  the .so did not compile, or a scenario failed
//   kExitJobFailed (4)       no run result, the runner stopped early
//                            (runner_error), no scenario ran, or (bench) a
//                            passing scenario has no timing
//   kExitOk (0)              otherwise: every scenario passed (and was timed)
// A failed scenario outranks a runner error: the kernel is known to be wrong.
ExitCode RunExitCode(const kernelseek::v1::Job& job);

// The report of a finished profile job: the run line, the shared-object build
// (its diagnostics when it failed, and then nothing else), then
// FormatProfileText of the result with the ncu command line. A job without a
// profile result gets one line saying so.
std::string FormatProfileReport(const kernelseek::v1::Job& job);

// How `kseek profile` exits for a finished job:
//   kExitScenarioFailed (1)  the .so did not compile, or the scenario failed
//                            verification under ncu
//   kExitJobFailed (4)       no profile result, the profile has an error
//                            (ncu failed, lacked counter permission, ...), or
//                            no kernel of the candidate was profiled
//   kExitOk (0)              otherwise
// As for verify, a failed verdict outranks a profile error.
ExitCode ProfileExitCode(const kernelseek::v1::Job& job);

}  // namespace kseek

#endif  // KERNELSEEK_CLIENT_RUN_REPORT_H_
