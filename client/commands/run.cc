// kseek verify, bench and profile: the jobs that build a kernel and run it on a
// problem's scenarios, sharing the problem, compile and wait flags and the
// submit-and-follow flow.
#include "client/commands/run.h"

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "client/commands/job_flow.h"
#include "client/exit_codes.h"
#include "client/run_report.h"
#include "client/run_request.h"
#include "common/flags.h"

namespace kseek {
namespace {

// `kseek verify` and `kseek bench`: the same flags but for the baseline and
// the time cap, which only a benchmark has.
int RunScenarioJob(kernelseek::v1::JobKind kind, const std::vector<std::string>& args,
                   const GlobalOptions& global) {
  bool bench = kind == kernelseek::v1::JOB_KIND_BENCH;
  CommonFlags common;
  RunRequest request;
  request.kind = kind;
  // Scenarios and baseline left empty are the problem's defaults, which the
  // server fills in from its manifest (`kseek scenarios PROBLEM` shows them).
  WaitFlags wait;
  std::string command = bench ? "bench" : "verify";
  FlagSet flags(
      absl::StrCat("kseek ", command), "FILE --problem PROBLEM --arch ARCH [flags]",
      bench ? "Builds FILE into a shared object on a GPU worker, checks it on the chosen\n"
              "scenarios of PROBLEM, times it against a baseline measured on the same GPU,\n"
              "and prints per scenario the error against its bar, the median time, TFLOP/s,\n"
              "the baseline's TFLOP/s and the speedup, then the geometric means. Shows a\n"
              "progress bar on stderr while it waits."
            : "Builds FILE into a shared object on a GPU worker, checks it on the chosen\n"
              "scenarios of PROBLEM against the reference, and prints per scenario PASS or\n"
              "FAIL with the error against its bar. Shows a progress bar on stderr while it\n"
              "waits. `kseek scenarios PROBLEM` lists the scenarios.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  flags.String("problem", &request.problem, "problem to check against, e.g. attention_fwd");
  flags.String("scenarios", &request.scenarios,
               "all, or set names and IDs, comma-separated (default: the problem's; `kseek scenarios "
               "PROBLEM` lists sets, IDs and defaults)");
  if (bench) {
    flags.String("baseline", &request.baseline,
                 "what to compare with: one of the problem's baselines (`kseek scenarios PROBLEM` lists "
                 "them), none, or several comma-separated (fa3,cudnn), each timed in turn with the "
                 "candidate; the first is the one the speedup is against (default: the problem's)");
    flags.Double("max-seconds", &request.max_seconds_per_scenario,
                 "timing budget per scenario in seconds (0: the worker's default)");
    flags.Bool("reuse-baseline", &request.reuse_baseline,
               "reuse the worker's cached baseline timings (same GPU, driver, baseline version)");
    flags.Int("rounds", &request.rounds,
              "time every scenario this many times, candidate and baseline taking turns (every "
              "second round the baselines first), and keep each side's fastest (1-10; 0: once); "
              "a slow spell of either side then matters less");
    flags.String("shards", &request.shards,
                 "spread the scenarios over N GPU workers with the first one's GPU model and driver, each "
                 "timing its own with the baselines (1-64; 1: one GPU, as without the flag), or auto: as "
                 "many as are idle; the report is that of one bench, with which worker ran which scenarios");
  }
  AddCompileFlags(&flags, &request.compile);
  AddWaitFlags(&flags, &wait);
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one FILE", command)) return *done;
  request.compile.path = positional[0];

  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeRunSpec(request);
  if (!spec.ok()) return Fail(kExitUsage, spec.status().message());
  return SubmitAndReport(*spec, global, common, wait, &FormatRunProgress, &ReportFinishedRun);
}

}  // namespace

int RunVerify(const std::vector<std::string>& args, const GlobalOptions& global) {
  return RunScenarioJob(kernelseek::v1::JOB_KIND_VERIFY, args, global);
}

int RunBench(const std::vector<std::string>& args, const GlobalOptions& global) {
  return RunScenarioJob(kernelseek::v1::JOB_KIND_BENCH, args, global);
}

int RunProfile(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  RunRequest request;
  request.kind = kernelseek::v1::JOB_KIND_PROFILE;
  WaitFlags wait;
  FlagSet flags("kseek profile", "FILE --problem PROBLEM --arch ARCH --scenario ID [flags]",
                "Builds FILE into a shared object on a GPU worker that has Nsight Compute, runs\n"
                "the verification of one scenario of PROBLEM under ncu, and prints per kernel\n"
                "of FILE: block and grid, duration, SM and memory throughput, achieved and\n"
                "theoretical occupancy, registers per thread, shared memory per block and\n"
                "ncu's other metrics; then the scenario's verdict, the GPU, the ncu version\n"
                "and command line, and ncu's error if it had one. With --hotspots N, a second\n"
                "ncu run samples warp stalls per SASS instruction and each kernel also gets\n"
                "its top stall reasons and the N instructions with the most stall samples\n"
                "(index in the SASS listing, share of samples, top reasons of that line).\n"
                "Shows the stage on stderr while it waits. `kseek scenarios PROBLEM` lists\n"
                "the scenario ids.\n"
                "Exits 1 when FILE did not compile or failed the scenario, 4 when ncu\n"
                "reported an error or profiled no kernel of FILE (see kseek --help).");
  AddCommonFlags(&flags, &common, /*json=*/true);
  flags.String("problem", &request.problem, "problem to check against, e.g. attention_fwd");
  flags.String("scenario", &request.scenarios,
               "the one scenario id to profile, e.g. perf-bf16-d64-full-s512");
  flags.Int("hotspots", &request.hotspots,
            "SASS instructions with the most warp-stall samples to show per kernel, 0..50 (0: none, "
            "no second ncu run)");
  AddCompileFlags(&flags, &request.compile);
  AddWaitFlags(&flags, &wait);
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one FILE", "profile")) return *done;
  request.compile.path = positional[0];

  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeRunSpec(request);
  if (!spec.ok()) return Fail(kExitUsage, spec.status().message());
  return SubmitAndReport(*spec, global, common, wait, &FormatRunProgress,
                         &ReportFinishedProfile);
}

}  // namespace kseek
