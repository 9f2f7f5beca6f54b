// kseek: the command-line client of a kseek-server.
//
// Reads flags and dispatches to one function per subcommand; the work is done
// by CoordinatorClient (RPCs), MakeCompileSpec/MakeRunSpec (input checks) and
// the Format* functions (output). A new subcommand is a Run* function plus a
// kCommands row.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <grpc/support/log.h>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "client/compile_request.h"
#include "client/coordinator_client.h"
#include "client/exit_codes.h"
#include "client/interrupt_notice.h"
#include "client/progress_display.h"
#include "client/report_format.h"
#include "client/run_report.h"
#include "client/run_request.h"
#include "client/scenario_table.h"
#include "client/session_format.h"
#include "client/session_request.h"
#include "client/session_trace.h"
#include "common/clock.h"
#include "common/flags.h"
#include "common/job_state.h"
#include "common/protocol.h"
#include "common/tls.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;
using kernelseek::v1::Session;
using kernelseek::v1::SessionEvent;

constexpr char kDefaultServer[] = "127.0.0.1:7070";

// Where to connect and as whom: from $KSEEK_SERVER/$KSEEK_TOKEN, then flags
// before the command, then flags after it (the last one given wins).
struct GlobalOptions {
  bool version = false;
  std::string server = kDefaultServer;
  std::string token;
  std::string tls_ca;
  bool insecure_plaintext = false;
};

// Flags every subcommand takes.
struct CommonFlags {
  std::string server;
  std::string token;
  std::string tls_ca;
  bool insecure_plaintext = false;
  bool json = false;
};

constexpr char kTlsCaHelp[] =
    "CA certificate (PEM) to verify the server's TLS certificate against; without it, plaintext, "
    "which only a loopback server gets unless --insecure-plaintext";
constexpr char kInsecurePlaintextHelp[] =
    "talk plaintext to a server that is not on loopback (tokens and kernels readable on the network)";

int Fail(int code, absl::string_view message) {
  std::cerr << "kseek: " << message << "\n";
  return code;
}

int FailRpc(const absl::Status& status, const std::string& server) {
  return Fail(ExitCodeForRpcError(status), DescribeRpcError(status, server));
}

void AddCommonFlags(FlagSet* flags, CommonFlags* common, bool json) {
  flags->String("server", &common->server,
                absl::StrCat("coordinator address HOST:PORT (else $KSEEK_SERVER, else ",
                             kDefaultServer, ")"));
  flags->String("token", &common->token, "API token (else $KSEEK_TOKEN)");
  flags->String("tls-ca", &common->tls_ca, absl::StrCat(kTlsCaHelp, " (else $KSEEK_TLS_CA)"));
  flags->Bool("insecure-plaintext", &common->insecure_plaintext, kInsecurePlaintextHelp);
  if (json) flags->Bool("json", &common->json, "print the protobuf JSON instead of text");
}

// Parses a subcommand's arguments. Returns the exit code when the command is
// already done (help printed, or a usage error), nullopt to go on.
std::optional<int> ParseArgs(FlagSet* flags, const std::vector<std::string>& args,
                             std::vector<std::string>* positional) {
  absl::StatusOr<std::vector<std::string>> parsed = flags->Parse(args);
  if (!parsed.ok()) return Fail(kExitUsage, parsed.status().message());
  if (flags->help_requested()) {
    std::cout << flags->Usage();
    return kExitOk;
  }
  *positional = *std::move(parsed);
  return std::nullopt;
}

std::optional<int> ExpectPositional(const std::vector<std::string>& positional, size_t count,
                                    absl::string_view what, absl::string_view command) {
  if (positional.size() == count) return std::nullopt;
  return Fail(kExitUsage, absl::StrCat(command, " wants ", what, ", got ", positional.size(),
                                       " argument(s) (see kseek ", command, " --help)"));
}

// The client for this invocation, or the exit code when no token is known.
std::optional<int> Connect(const GlobalOptions& global, const CommonFlags& common,
                           std::string* server, std::unique_ptr<CoordinatorClient>* client) {
  *server = common.server.empty() ? global.server : common.server;
  if (absl::StatusOr<HostPort> address = ParseHostPort("server", *server, /*allow_port_zero=*/false); !address.ok()) {
    return Fail(kExitUsage, address.status().message());
  }
  std::string token = common.token.empty() ? global.token : common.token;
  if (token.empty()) {
    return Fail(kExitServer,
                "no API token: pass --token or set KSEEK_TOKEN (an admin creates one with "
                "`kseek-server token create --db PATH --user NAME`)");
  }
  ClientTlsConfig tls;
  tls.ca_file = common.tls_ca.empty() ? global.tls_ca : common.tls_ca;
  tls.insecure_plaintext = common.insecure_plaintext || global.insecure_plaintext;
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials = MakeChannelCredentials(tls, *server);
  if (!credentials.ok()) return Fail(kExitUsage, credentials.status().message());
  *client = std::make_unique<CoordinatorClient>(CoordinatorClient::MakeChannel(*server, *credentials), token);
  return std::nullopt;
}

// `kseek jobs` and `kseek sessions`: --limit must be 0 (the server's
// default) up to a million; a usage error otherwise.
std::optional<int> CheckListLimit(int64_t limit) {
  if (limit < 0 || limit > 1'000'000) {
    return Fail(kExitUsage, absl::StrCat("--limit wants 0..1000000, got ", limit));
  }
  return std::nullopt;
}

int PrintJson(const google::protobuf::Message& message) {
  absl::StatusOr<std::string> json = MessageToJson(message);
  if (!json.ok()) return Fail(kExitServer, json.status().message());
  std::cout << *json;
  return kExitOk;
}

// Prints a finished job and returns its exit code: the JSON when asked for;
// one line on stderr for a job that failed, or finished without a result of
// the kind it was (`expected`, called `what`); else `format`'s text and
// `exit_code`'s verdict on it.
int ReportFinished(const Job& job, bool json, kernelseek::v1::JobResult::ResultCase expected,
                   const char* what, std::string (*format)(const Job&),
                   ExitCode (*exit_code)(const Job&)) {
  if (json) {
    if (int code = PrintJson(job); code != kExitOk) return code;
  }
  if (job.state() == kernelseek::v1::JOB_STATE_CANCELLED) {
    return Fail(kExitJobFailed, absl::StrCat("job ", job.id(), " was cancelled: ", job.failure()));
  }
  if (job.state() == kernelseek::v1::JOB_STATE_FAILED) {
    return Fail(kExitJobFailed,
                absl::StrCat("job ", job.id(), " failed after ", job.attempts(), " attempt(s): ",
                             job.failure().empty() ? "no reason given" : job.failure()));
  }
  if (job.result().result_case() != expected) {
    return Fail(kExitServer, absl::StrCat("job ", job.id(), " finished without a ", what, " result"));
  }
  if (!json) std::cout << format(job);
  return exit_code(job);
}

// Prints a finished job as `kseek compile` does and returns its exit code.
int ReportFinishedCompile(const Job& job, bool json) {
  return ReportFinished(job, json, kernelseek::v1::JobResult::kCompile, "compile", &FormatCompileReport,
                        [](const Job& j) {
                          return j.result().compile().success() ? kExitOk : kExitDidNotCompile;
                        });
}

// The nvcc flags of `kseek compile`, which verify and bench take too.
void AddCompileFlags(FlagSet* flags, CompileRequest* request) {
  flags->String("arch", &request->arch, "target architecture, e.g. sm_90a or sm_100a");
  flags->Int("opt-level", &request->opt_level, "optimisation level 1..3 (-1: worker default, -O3)");
  flags->Bool("lineinfo", &request->line_info, "compile with -lineinfo");
  flags->Repeated("define", &request->defines, "NAME or NAME=VALUE, passed as -D");
  flags->Int("maxrregcount", &request->max_registers, "register limit per thread (0: none)");
}

// How a submitting command waits: --no-wait and --wait-for-worker.
struct WaitFlags {
  bool no_wait = false;
  bool wait_for_worker = false;
};

void AddWaitFlags(FlagSet* flags, WaitFlags* wait) {
  flags->Bool("no-wait", &wait->no_wait, "print the job id and return without waiting");
  flags->Bool("wait-for-worker", &wait->wait_for_worker,
              "queue the job even when no connected worker can run it, until one connects (else "
              "the submit fails at once, exit 5, saying what is missing)");
}

// Follows `job_id` on stderr (the text of each update from `progress_text`)
// until it ends, and hands the finished job to `report`. Ctrl-C meanwhile
// says that the job goes on and exits kExitInterrupted. Returns the exit code.
int FollowJob(CoordinatorClient* client, const std::string& server, const std::string& job_id, bool json,
              const std::string& first_status, std::string (*progress_text)(const Job&),
              int (*report)(const Job& job, bool json)) {
  RealClock clock;
  const bool terminal = isatty(STDERR_FILENO) == 1;
  ProgressDisplay progress(&std::cerr, terminal, &clock, job_id);
  progress.Update(first_status);
  progress.StartTicker();
  absl::StatusOr<Job> job;
  {
    // Only while waiting: once the job has ended, Ctrl-C may end kseek as usual.
    InterruptNotice notice(JobGoesOnMessage(job_id), /*after_newline=*/terminal);
    job = client->WatchJob(
        job_id, [&](const Job& update) { progress.Update(progress_text(update)); },
        [&](const absl::Status& lost) {
          progress.Update(
              absl::StrCat("lost the server (", DescribeRpcError(lost, server), "), reconnecting"));
        });
  }
  if (!job.ok()) {
    progress.Finish("stopped watching");
    std::cerr << "kseek: `kseek job " << job_id << " --wait` follows the job again\n";
    return FailRpc(job.status(), server);
  }
  progress.Finish(FormatProgress(*job));
  return report(*job, json);
}

// Submits `spec`; with --no-wait prints the job id, else follows it as
// FollowJob does. A job no connected worker can run is refused by the server
// (unless --wait-for-worker): exit kExitNoWorker. Returns the exit code.
int SubmitAndReport(const kernelseek::v1::JobSpec& spec, const GlobalOptions& global,
                    const CommonFlags& common, const WaitFlags& wait,
                    std::string (*progress_text)(const Job&),
                    int (*report)(const Job& job, bool json)) {
  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<std::string> job_id = client->SubmitJob(spec, wait.wait_for_worker);
  if (job_id.status().code() == absl::StatusCode::kFailedPrecondition) {
    return Fail(kExitNoWorker, absl::StrCat(job_id.status().message(),
                                            " (--wait-for-worker queues it until such a worker connects)"));
  }
  if (!job_id.ok()) return FailRpc(job_id.status(), server);

  if (wait.no_wait) {
    if (common.json) {
      kernelseek::v1::SubmitJobResponse response;
      response.set_job_id(*job_id);
      return PrintJson(response);
    }
    std::cout << *job_id << "\n";
    return kExitOk;
  }
  return FollowJob(client.get(), server, *job_id, common.json, "submitted", progress_text, report);
}

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

// Prints a finished verify or bench job and returns its exit code (see
// RunExitCode).
int ReportFinishedRun(const Job& job, bool json) {
  return ReportFinished(job, json, kernelseek::v1::JobResult::kRun, "run", &FormatRunReport, &RunExitCode);
}

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
              "time every scenario this many times, candidate and baseline taking turns, and keep "
              "each side's fastest (1-10; 0: once); a slow spell of either side then matters less");
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

int RunVerify(const std::vector<std::string>& args, const GlobalOptions& global) {
  return RunScenarioJob(kernelseek::v1::JOB_KIND_VERIFY, args, global);
}

int RunBench(const std::vector<std::string>& args, const GlobalOptions& global) {
  return RunScenarioJob(kernelseek::v1::JOB_KIND_BENCH, args, global);
}

// Prints a finished profile job and returns its exit code (see
// ProfileExitCode).
int ReportFinishedProfile(const Job& job, bool json) {
  return ReportFinished(job, json, kernelseek::v1::JobResult::kProfile, "profile", &FormatProfileReport,
                        &ProfileExitCode);
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

int RunScenarios(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  std::string set;
  FlagSet flags("kseek scenarios", "PROBLEM [flags]",
                "Lists the scenarios of PROBLEM as the server's workers run them: shape\n"
                "symbols, scalars a scenario sets, dtype, and the input seed (\"hidden\" for\n"
                "seeds only the worker knows); then the problem's baselines and what a verify or\n"
                "bench that names no scenarios or baseline gets.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  flags.String("set", &set, "only this scenario set, e.g. perf");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one PROBLEM", "scenarios")) return *done;

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<kernelseek::v1::ListScenariosResponse> response =
      client->ListScenarios(positional[0], set);
  if (!response.ok()) return FailRpc(response.status(), server);
  if (common.json) return PrintJson(*response);
  std::cout << FormatScenarioTable(*response);
  return kExitOk;
}

int RunJobs(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  int64_t limit = 0;
  std::string state;
  kernelseek::v1::ListJobsRequest request;
  FlagSet flags("kseek jobs", "[--user NAME] [--state STATE] [--problem PROBLEM] [--limit N] [flags]",
                "Lists jobs, newest first; the server applies the filters, all of those given,\n"
                "before --limit. A queued job's stage says its place in the queue.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  flags.Int("limit", &limit, "most jobs to list (0: the server's default)");
  flags.String("user", request.mutable_user(), "only this user's jobs");
  flags.String("state", &state, "only jobs in this state: queued, leased, succeeded, failed or cancelled");
  flags.String("problem", request.mutable_problem(),
               "only verify, bench and profile jobs of this problem, e.g. attention_fwd");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 0, "no arguments", "jobs")) return *done;
  if (auto done = CheckListLimit(limit)) return *done;
  request.set_limit(static_cast<int>(limit));
  if (!state.empty()) {
    absl::StatusOr<kernelseek::v1::JobState> parsed = ParseJobStateLabel(state);
    if (!parsed.ok()) return Fail(kExitUsage, absl::StrCat("--state: ", parsed.status().message()));
    request.set_state(*parsed);
  }

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<std::vector<Job>> jobs = client->ListJobs(request);
  if (!jobs.ok()) return FailRpc(jobs.status(), server);
  if (common.json) {
    kernelseek::v1::ListJobsResponse response;
    for (const Job& job : *jobs) *response.add_jobs() = job;
    return PrintJson(response);
  }
  std::cout << FormatJobTable(*jobs, absl::Now());
  return kExitOk;
}

// How `kseek job ID --wait` shows a job of `kind` as the command that
// submits such a job does.
struct JobOutput {
  std::string (*progress_text)(const Job&);
  int (*report)(const Job& job, bool json);
};

JobOutput OutputFor(kernelseek::v1::JobKind kind) {
  switch (kind) {
    case kernelseek::v1::JOB_KIND_VERIFY:
    case kernelseek::v1::JOB_KIND_BENCH:
      return {&FormatRunProgress, &ReportFinishedRun};
    case kernelseek::v1::JOB_KIND_PROFILE:
      return {&FormatRunProgress, &ReportFinishedProfile};
    default:
      return {&FormatProgress, &ReportFinishedCompile};
  }
}

int RunJob(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  bool wait = false;
  FlagSet flags("kseek job", "ID [--wait] [flags]",
                "Shows one job: its state, where it ran, and its compile, verify, bench or\n"
                "profile report once finished; while queued, its place in the queue and what\n"
                "it waits for. With --wait, follows it until it ends, as the command that\n"
                "submitted it would, and exits as that command would.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  flags.Bool("wait", &wait,
             "wait for the job to end, showing its progress on stderr, then print its report and "
             "exit with the submitting command's exit code (Ctrl-C leaves the job running)");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one job ID", "job")) return *done;

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<Job> job = client->GetJob(positional[0]);
  if (!job.ok()) return FailRpc(job.status(), server);
  if (wait) {
    const JobOutput output = OutputFor(job->spec().kind());
    if (IsFinishedState(job->state())) return output.report(*job, common.json);
    return FollowJob(client.get(), server, job->id(), common.json, output.progress_text(*job),
                     output.progress_text, output.report);
  }
  if (common.json) return PrintJson(*job);
  std::cout << FormatJobDetails(*job, absl::Now());
  return kExitOk;
}

int RunCancel(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  bool session = false;
  FlagSet flags("kseek cancel", "JOB_ID | --session SESSION_ID [flags]",
                "Cancels one of your jobs: a queued job never runs, a running one is stopped\n"
                "(its worker kills the compiler or runner and frees the GPU). The job ends\n"
                "CANCELLED, with who cancelled it. With --session, stops a running session\n"
                "instead, as `kseek session stop` does: it ends STOPPED. Either can be ended\n"
                "once; one that has already ended is refused, saying how it ended (exit 3).\n"
                "A team admin may cancel or stop any of the team's; a member only its own.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  flags.Bool("session", &session, "the ID is a session's, not a job's: stop that session");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, session ? "one session ID" : "one job ID", "cancel")) {
    return *done;
  }

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  if (session) {
    absl::StatusOr<Session> stopped = client->StopSession(positional[0]);
    if (!stopped.ok()) return FailRpc(stopped.status(), server);
    if (common.json) return PrintJson(*stopped);
    std::cout << FormatSessionEnd(*stopped);
    return kExitOk;
  }
  absl::StatusOr<Job> job = client->CancelJob(positional[0]);
  if (!job.ok()) return FailRpc(job.status(), server);
  if (common.json) return PrintJson(*job);
  std::cout << "job " << job->id() << ": cancelled\n";
  return kExitOk;
}

int RunWorkers(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  FlagSet flags("kseek workers", "[flags]",
                "Lists the workers the server knows, what they can do and when they last called.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 0, "no arguments", "workers")) return *done;

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<std::vector<kernelseek::v1::WorkerInfo>> workers = client->ListWorkers();
  if (!workers.ok()) return FailRpc(workers.status(), server);
  if (common.json) {
    kernelseek::v1::ListWorkersResponse response;
    for (const auto& worker : *workers) *response.add_workers() = worker;
    return PrintJson(response);
  }
  std::cout << FormatWorkerTable(*workers, absl::Now());
  return kExitOk;
}

// `-o FILE` as users expect it from other tools; FlagSet spells flags --name.
std::vector<std::string> ExpandOutputFlag(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    if (arg == "-o") {
      out.push_back("--output");
    } else if (arg.starts_with("-o") && arg.size() > 2 && arg[2] != '-') {
      out.push_back("--output=" + arg.substr(2));
    } else {
      out.push_back(arg);
    }
    if (arg == "--") break;
  }
  for (size_t i = out.size(); i < args.size(); ++i) out.push_back(args[i]);
  return out;
}

// Writes `text` to `path`; "-" is stdout. Returns the exit code.
int WriteOutput(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text << std::flush;
    return kExitOk;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Fail(kExitUsage, absl::StrCat("cannot write ", path));
  return kExitOk;
}

int RunSessionStart(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  SessionRequest request;
  FlagSet flags("kseek session start",
                "--problem PROBLEM --arch ARCH --kernel FILE --target X --llm-endpoint NAME "
                "--questions MODE --max-steps N [flags]",
                "Starts an optimization session: the server's agent loop edits a copy of FILE,\n"
                "compiles, verifies and benchmarks it on workers, and is asked questions at\n"
                "decision points, until the geometric-mean speedup over the baseline on the\n"
                "bench scenarios reaches --target, the step budget is spent, or `kseek session\n"
                "stop` stops it. Prints a summary line, then the session id alone on the last\n"
                "line. Follow it with `kseek watch ID`.\n"
                "\n"
                "The LLM, one of:\n"
                "  --llm-endpoint NAME [--llm-model MODEL]\n"
                "      an endpoint the server's admin set up (kseek-server --llm-endpoints); its\n"
                "      key stays on the server. MODEL must be one it offers (default: its first);\n"
                "      a wrong name or model is refused with the list.\n"
                "  --llm-url URL --llm-model MODEL [--llm-provider anthropic] [--api-key-env VAR | --api-key-file FILE]\n"
                "      an endpoint of your own (openai: any OpenAI-compatible chat completions\n"
                "      server). The key is read HERE, from your environment or file, sent with\n"
                "      the request and kept only in the server's memory: never stored. So after\n"
                "      a server restart such a session cannot go on; it ends FAILED saying so,\n"
                "      and you start a new one (e.g. from `kseek best ID`). The server allows\n"
                "      only URLs its admin listed.\n"
                "  --replay-trace NAME | --replay-file FILE\n"
                "      the model turns of a trace exported with `kseek trace --format jsonl`:\n"
                "      one in the server's --replay-traces folder, by plain name, or one of\n"
                "      yours, uploaded (at most 8 MiB).\n"
                "--questions: human (only what `kseek ask` posts), bank (a posted message first,\n"
                "else a question from the bank), self (the agent picks a bank question and\n"
                "answers it itself), off (nothing is asked).");
  AddCommonFlags(&flags, &common, /*json=*/true);
  flags.String("problem", &request.problem, "problem to optimise for, e.g. attention_fwd");
  flags.String("arch", &request.arch, "target architecture, e.g. sm_90a or sm_100a");
  flags.String("kernel", &request.kernel_path, "the starting kernel's .cu file");
  flags.String("baseline", &request.baseline,
               "what the speedup is measured against: one of the problem's baselines (default: the "
               "problem's; `kseek scenarios PROBLEM` lists them)");
  flags.Double("target", &request.target_speedup,
               "goal: geometric-mean speedup over the baseline, e.g. 1.10");
  flags.String("llm-endpoint", &request.llm_endpoint, "the server's LLM endpoint, by the name its admin gave");
  flags.String("llm-model", &request.llm_model, "model to ask (with --llm-endpoint: default its first)");
  flags.String("llm-url", &request.llm_url,
               "base URL of your own LLM endpoint, e.g. https://api.openai.com/v1");
  flags.String("llm-provider", &request.llm_provider,
               "wire format of --llm-url: openai (chat completions) or anthropic (messages)");
  flags.String("api-key-env", &request.api_key_env,
               "with --llm-url: YOUR environment variable holding its key (read by kseek, not the server)");
  flags.String("api-key-file", &request.api_key_file, "with --llm-url: a file holding its key");
  flags.String("replay-trace", &request.replay_trace, "replay a trace the server has, by plain name");
  flags.String("replay-file", &request.replay_file, "replay a JSONL trace from this machine (uploaded)");
  flags.String("questions", &request.questions, "question mode: human, bank, self or off");
  flags.Int("max-steps", &request.max_steps, "budget: most model turns");
  flags.String("verify-scenarios", &request.verify_scenarios,
               "scenarios a version must pass: all, set names, or IDs (default: the problem's)");
  flags.String("bench-scenarios", &request.bench_scenarios,
               "scenarios the speedup is measured on: set names or IDs (default: the problem's)");
  flags.Int("bench-rounds", &request.bench_rounds,
            "rounds of every bench, each side keeping its fastest (1-10; 0: the server's default, 1)");
  flags.Int("plateau", &request.plateau_benchmarks,
            "benchmarks in a row without --plateau-gain that make a plateau (0: server default)");
  flags.Double("plateau-gain", &request.plateau_min_gain,
               "least gain that is progress, a fraction: 0.02 = 2% (0: server default)");
  flags.Int("failure-streak", &request.failure_streak,
            "compile or verify failures in a row that make a decision point (0: server default)");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 0, "no arguments", "session start")) return *done;

  std::string api_key;
  absl::StatusOr<kernelseek::v1::SessionSpec> spec = MakeSessionSpec(request, &api_key);
  if (!spec.ok()) return Fail(kExitUsage, spec.status().message());
  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<Session> session = client->StartSession(*spec, api_key);
  if (!session.ok()) return FailRpc(session.status(), server);
  if (common.json) return PrintJson(*session);
  // The server may leave the spec out of its answer; the summary shows what was asked.
  Session shown = *session;
  if (!shown.has_spec()) *shown.mutable_spec() = *spec;
  std::cout << FormatSessionStarted(shown);
  return kExitOk;
}

int RunSessionShow(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  FlagSet flags("kseek session show", "ID [flags]",
                "Shows one session: its goal, state and status line, steps, best version;\n"
                "the speedup of each benchmarked version; and the questions asked, each\n"
                "with the best speedup before it and by the next question (or the end).");
  AddCommonFlags(&flags, &common, /*json=*/true);
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one session ID", "session show")) return *done;

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<kernelseek::v1::SessionDetails> details = client->GetSession(positional[0]);
  if (!details.ok()) return FailRpc(details.status(), server);
  if (common.json) return PrintJson(*details);
  std::cout << FormatSessionDetails(*details, absl::Now());
  return kExitOk;
}

int RunSessionStop(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  FlagSet flags("kseek session stop", "ID [flags]",
                "Stops a running session; its trace and kernel versions stay.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one session ID", "session stop")) return *done;

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<Session> session = client->StopSession(positional[0]);
  if (!session.ok()) return FailRpc(session.status(), server);
  if (common.json) return PrintJson(*session);
  std::cout << FormatSessionEnd(*session);
  return kExitOk;
}

struct Subcommand {
  absl::string_view name;
  absl::string_view summary;
  int (*run)(const std::vector<std::string>& args, const GlobalOptions& global);
};

constexpr Subcommand kSessionCommands[] = {
    {"start", "start an optimization session; prints its id", RunSessionStart},
    {"show", "show a session: goal, best version, speedup history, questions", RunSessionShow},
    {"stop", "stop a running session", RunSessionStop},
};

std::string SessionUsage() {
  std::string text =
      "usage: kseek session SUBCOMMAND [ARGS] [flags]\n\n"
      "Optimization sessions: an LLM agent improves a kernel under the harness.\n\n"
      "subcommands:\n";
  for (const Subcommand& sub : kSessionCommands) {
    absl::StrAppend(&text, absl::StrFormat("  %-6s %s\n", sub.name, sub.summary));
  }
  absl::StrAppend(&text,
                  "\nkseek session SUBCOMMAND --help describes each. Related: kseek sessions,\n"
                  "watch, trace, ask, best.\n");
  return text;
}

int RunSession(const std::vector<std::string>& args, const GlobalOptions& global) {
  if (args.empty()) {
    std::cerr << SessionUsage();
    return kExitUsage;
  }
  if (args[0] == "--help" || args[0] == "-h") {
    std::cout << SessionUsage();
    return kExitOk;
  }
  for (const Subcommand& sub : kSessionCommands) {
    if (sub.name == args[0]) {
      return sub.run(std::vector<std::string>(args.begin() + 1, args.end()), global);
    }
  }
  return Fail(kExitUsage, absl::StrCat("unknown session subcommand \"", args[0],
                                       "\" (start, show or stop; see kseek session --help)"));
}

int RunSessions(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  int64_t limit = 0;
  FlagSet flags("kseek sessions", "[flags]",
                "Lists optimization sessions, newest first: state, goal, steps, best speedup\n"
                "against the target, user and age.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  flags.Int("limit", &limit, "most sessions to list (0: the server's default)");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 0, "no arguments", "sessions")) return *done;
  if (auto done = CheckListLimit(limit)) return *done;

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<std::vector<Session>> sessions = client->ListSessions(static_cast<int>(limit));
  if (!sessions.ok()) return FailRpc(sessions.status(), server);
  if (common.json) {
    kernelseek::v1::ListSessionsResponse response;
    for (const Session& session : *sessions) *response.add_sessions() = session;
    return PrintJson(response);
  }
  std::cout << FormatSessionTable(*sessions, absl::Now());
  return kExitOk;
}

int RunWatch(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  int64_t from = 0;
  FlagSet flags("kseek watch", "SESSION [flags]",
                "Follows a session's trace live, one line (or a few) per event:\n"
                "  #SEQ TIME KIND AUTHOR: SUMMARY\n"
                "Model text and tool results are cut to a few lines (`kseek trace` has them\n"
                "whole); questions stand out. After a lost connection it resumes after the\n"
                "last event printed, for up to a minute. Ends, printing the session's final\n"
                "state, when the session ends.");
  AddCommonFlags(&flags, &common, /*json=*/false);
  flags.Bool("json", &common.json,
             "one JSON object per event, as `kseek trace --format jsonl` (final state on stderr)");
  flags.Int("from", &from, "start after event SEQ (0: from the beginning)");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one SESSION id", "watch")) return *done;
  if (from < 0) {
    return Fail(kExitUsage, absl::StrCat("--from wants a seq of 0 or more, got ", from));
  }

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  // A unary call first, so that a wrong address, token or id fails at once
  // rather than after the stream's reconnect budget.
  absl::StatusOr<kernelseek::v1::SessionDetails> details = client->GetSession(positional[0]);
  if (!details.ok()) return FailRpc(details.status(), server);
  (common.json ? std::cerr : std::cout) << FormatSessionSummary(details->session()) << "\n"
                                        << std::flush;
  EventLineOptions options;
  options.zone = absl::LocalTimeZone();
  options.color = isatty(STDOUT_FILENO) == 1 && std::getenv("NO_COLOR") == nullptr;
  absl::StatusOr<Session> session = client->WatchSession(
      positional[0], from, /*follow=*/true,
      [&](const SessionEvent& event) {
        std::cout << (common.json ? EventToJsonLine(event) : FormatEventLines(event, options))
                  << std::flush;
      },
      [&](const absl::Status& lost, int64_t last_seq) {
        std::cerr << "kseek: lost the server (" << DescribeRpcError(lost, server)
                  << "), resuming after #" << last_seq << "\n";
      });
  if (!session.ok()) return FailRpc(session.status(), server);
  (common.json ? std::cerr : std::cout) << FormatSessionEnd(*session);
  return kExitOk;
}

int RunTrace(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  std::string format;
  std::string output;
  FlagSet flags("kseek trace", "SESSION --format jsonl|md [-o FILE] [flags]",
                "Exports a session's whole trace, as stored so far. jsonl: one JSON object per\n"
                "event (session_id, seq, time, kind, author, payload), which\n"
                "`kseek session start --replay-file FILE` can replay. md: a Markdown\n"
                "transcript, a heading per event, tool arguments and results in code blocks.");
  AddCommonFlags(&flags, &common, /*json=*/false);
  flags.String("format", &format, "jsonl or md");
  flags.String("output", &output, "write to FILE instead of stdout (also -o FILE)");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, ExpandOutputFlag(args), &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one SESSION id", "trace")) return *done;
  if (format != "jsonl" && format != "md") {
    return Fail(kExitUsage, format.empty()
                                ? "--format is required: jsonl or md"
                                : absl::StrCat("--format \"", format, "\" is not jsonl or md"));
  }

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  // A unary call first, so that a wrong address, token or id fails at once
  // rather than after the stream's reconnect budget.
  if (absl::Status found = client->GetSession(positional[0]).status(); !found.ok()) {
    return FailRpc(found, server);
  }
  std::vector<SessionEvent> events;
  absl::StatusOr<Session> session = client->WatchSession(
      positional[0], /*from_seq=*/0, /*follow=*/false,
      [&](const SessionEvent& event) { events.push_back(event); },
      [&](const absl::Status& lost, int64_t last_seq) {
        std::cerr << "kseek: lost the server (" << DescribeRpcError(lost, server)
                  << "), resuming after #" << last_seq << "\n";
      });
  if (!session.ok()) return FailRpc(session.status(), server);
  std::string text;
  if (format == "md") {
    text = FormatTraceMarkdown(*session, events);
  } else {
    for (const SessionEvent& event : events) text += EventToJsonLine(event);
  }
  if (int code = WriteOutput(output, text); code != kExitOk) return code;
  if (!output.empty() && output != "-") {
    std::cerr << "kseek: wrote " << events.size() << " events to " << output << "\n";
  }
  return kExitOk;
}

int RunAsk(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  FlagSet flags("kseek ask", "SESSION \"TEXT\" [flags]",
                "Posts a question or note to a session's agent. It is delivered at the\n"
                "agent's next decision point, before any bank question. Prints the seq of\n"
                "the message in the trace.");
  AddCommonFlags(&flags, &common, /*json=*/false);
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 2, "a SESSION id and the TEXT", "ask")) return *done;
  if (absl::StripAsciiWhitespace(positional[1]).empty()) {
    return Fail(kExitUsage, "ask wants a non-empty TEXT");
  }

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<int64_t> seq = client->PostMessage(positional[0], positional[1]);
  if (!seq.ok()) return FailRpc(seq.status(), server);
  std::cout << *seq << "\n";
  return kExitOk;
}

int RunBest(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  std::string output;
  bool force = false;
  FlagSet flags("kseek best", "SESSION -o FILE [flags]",
                "Writes the source of a session's best counted kernel version (the highest\n"
                "geometric-mean speedup among versions that compiled, passed every scenario\n"
                "and were benchmarked) to FILE, and prints its version id and speedup.");
  AddCommonFlags(&flags, &common, /*json=*/false);
  flags.String("output", &output, "the file to write, - for stdout (also -o FILE)");
  flags.Bool("force", &force, "overwrite FILE if it exists");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, ExpandOutputFlag(args), &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one SESSION id", "best")) return *done;
  if (output.empty()) return Fail(kExitUsage, "best wants -o FILE (- for stdout)");
  bool to_stdout = output == "-";
  std::error_code ec;
  if (!to_stdout && !force && std::filesystem::exists(output, ec)) {
    return Fail(kExitUsage, absl::StrCat(output, " exists; pass --force to overwrite it"));
  }

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<kernelseek::v1::KernelVersion> best = client->GetBestKernel(positional[0]);
  if (!best.ok()) return FailRpc(best.status(), server);
  if (int code = WriteOutput(output, best->source()); code != kExitOk) return code;
  std::string tflops = best->geomean_tflops() > 0
                           ? absl::StrFormat(", %.1f TFLOP/s", best->geomean_tflops())
                           : std::string();
  (to_stdout ? std::cerr : std::cout)
      << best->id() << ": " << FormatSpeedup(best->geomean_speedup()) << " geomean speedup"
      << tflops << (to_stdout ? "" : absl::StrCat(", written to ", output)) << "\n";
  return kExitOk;
}

// --- kseek token: a team admin's tokens ---

constexpr char kTokenAdminNote[] =
    "Only a team admin may manage tokens, and only its own team's user tokens;\n"
    "worker tokens and other teams are the server operator's (kseek-server token).";

int RunTokenCreate(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  std::string role;
  std::string expires;
  FlagSet flags("kseek token create", "NAME [--role ROLE] [--expires WHEN] [flags]",
                absl::StrCat("Creates a token for user NAME in your team and prints it on the last line of\n"
                             "stdout, once: the server keeps only its SHA-256. Roles: admin, member\n"
                             "(submits, controls its own work, reads and asks the team's), viewer (reads).\n",
                             kTokenAdminNote));
  AddCommonFlags(&flags, &common, /*json=*/true);
  flags.String("role", &role, "admin, member or viewer (default member)");
  flags.String("expires", &expires,
               "when it stops working: 30d, 12h, 90m from now, a date 2027-01-31 (00:00 UTC) or an RFC 3339 "
               "time (default: never)");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one user NAME", "token create")) return *done;

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<kernelseek::v1::CreateTokenResponse> created = client->CreateToken(positional[0], role, expires);
  if (!created.ok()) return FailRpc(created.status(), server);
  if (common.json) return PrintJson(*created);
  const kernelseek::v1::TokenInfo& info = created->info();
  absl::Time expiry = TimeFromProto(info.expires());
  std::cerr << "created token " << info.id() << ": user " << info.name() << ", " << info.role() << " of team "
            << info.team()
            << (expiry == absl::InfinitePast()
                    ? ""
                    : absl::StrCat(", expires ",
                                   absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", expiry, absl::UTCTimeZone())))
            << " (shown once; keep it secret)\n";
  std::cout << created->token() << "\n";
  return kExitOk;
}

int RunTokenList(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  FlagSet flags("kseek token list", "[flags]",
                absl::StrCat("Lists your team's user tokens, oldest first: id, user, role, when created and\n"
                             "by whom, when it expires, whether it was revoked. Never a token itself.\n",
                             kTokenAdminNote));
  AddCommonFlags(&flags, &common, /*json=*/true);
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 0, "no arguments", "token list")) return *done;

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<std::vector<kernelseek::v1::TokenInfo>> tokens = client->ListTokens();
  if (!tokens.ok()) return FailRpc(tokens.status(), server);
  if (common.json) {
    kernelseek::v1::ListTokensResponse response;
    for (const auto& token : *tokens) *response.add_tokens() = token;
    return PrintJson(response);
  }
  std::cout << FormatTokenTable(*tokens, absl::Now());
  return kExitOk;
}

int RunTokenRevoke(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  FlagSet flags("kseek token revoke", "ID [flags]",
                absl::StrCat("Revokes token ID (see kseek token list) of your team: its next call fails\n"
                             "with \"token revoked at ...\".\n",
                             kTokenAdminNote));
  AddCommonFlags(&flags, &common, /*json=*/true);
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one token ID", "token revoke")) return *done;
  int64_t id = 0;
  if (!absl::SimpleAtoi(positional[0], &id) || id < 1) {
    return Fail(kExitUsage, absl::StrCat("token revoke wants a token ID (a number from kseek token list), got \"",
                                         positional[0], "\""));
  }

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<kernelseek::v1::TokenInfo> revoked = client->RevokeToken(id);
  if (!revoked.ok()) return FailRpc(revoked.status(), server);
  if (common.json) return PrintJson(*revoked);
  std::cout << "token " << revoked->id() << " of " << revoked->name() << ": revoked\n";
  return kExitOk;
}

constexpr Subcommand kTokenCommands[] = {
    {"create", "create a token for a user of your team; prints it once", RunTokenCreate},
    {"list", "list your team's tokens", RunTokenList},
    {"revoke", "revoke a token of your team; it stops working at once", RunTokenRevoke},
};

std::string TokenUsage() {
  std::string text =
      "usage: kseek token SUBCOMMAND [ARGS] [flags]\n\n"
      "API tokens of your team.\n\n"
      "subcommands:\n";
  for (const Subcommand& sub : kTokenCommands) {
    absl::StrAppend(&text, absl::StrFormat("  %-6s %s\n", sub.name, sub.summary));
  }
  absl::StrAppend(&text, "\n", kTokenAdminNote, "\nkseek token SUBCOMMAND --help describes each.\n");
  return text;
}

int RunToken(const std::vector<std::string>& args, const GlobalOptions& global) {
  if (args.empty()) {
    std::cerr << TokenUsage();
    return kExitUsage;
  }
  if (args[0] == "--help" || args[0] == "-h") {
    std::cout << TokenUsage();
    return kExitOk;
  }
  for (const Subcommand& sub : kTokenCommands) {
    if (sub.name == args[0]) return sub.run(std::vector<std::string>(args.begin() + 1, args.end()), global);
  }
  return Fail(kExitUsage, absl::StrCat("unknown token subcommand \"", args[0],
                                       "\" (create, list or revoke; see kseek token --help)"));
}

int RunHelp(const std::vector<std::string>& args, const GlobalOptions& global);

struct Command {
  absl::string_view name;
  absl::string_view summary;
  int (*run)(const std::vector<std::string>& args, const GlobalOptions& global);
};

constexpr Command kCommands[] = {
    {"compile", "compile a CUDA file on a worker; print diagnostics, resources, SASS", RunCompile},
    {"verify", "check a kernel on a problem's scenarios on a GPU worker", RunVerify},
    {"bench", "check and time a kernel against a baseline on a GPU worker", RunBench},
    {"profile", "profile a kernel on one scenario with Nsight Compute on a GPU worker", RunProfile},
    {"scenarios", "list a problem's scenarios", RunScenarios},
    {"jobs", "list jobs", RunJobs},
    {"job", "show one job and its report", RunJob},
    {"cancel", "cancel a job of yours, or (--session) stop a session (team admins: the team's)", RunCancel},
    {"workers", "list workers and their capabilities", RunWorkers},
    {"session", "session start|show|stop: an LLM agent optimising a kernel", RunSession},
    {"sessions", "list optimization sessions", RunSessions},
    {"watch", "follow a session's trace live; resumes after a lost connection", RunWatch},
    {"trace", "export a session's whole trace as JSON Lines or Markdown", RunTrace},
    {"ask", "post a question or note to a session's agent", RunAsk},
    {"best", "write a session's best kernel version to a file", RunBest},
    {"token", "token create|list|revoke: your team's tokens (team admins)", RunToken},
    {"help", "help COMMAND: the same as COMMAND --help", RunHelp},
};

const Command* FindCommand(absl::string_view name) {
  for (const Command& command : kCommands) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

std::string TopLevelDescription() {
  std::string text = "Client of a KernelSeek server.\n\ncommands:\n";
  for (const Command& command : kCommands) {
    absl::StrAppend(&text, absl::StrFormat("  %-10s %s\n", command.name, command.summary));
  }
  absl::StrAppend(&text,
                  "\nexit codes:\n"
                  "  0  success; verify, bench: every scenario passed (bench: and was timed);\n"
                  "     profile: kernels profiled without an error; the scenario did not fail\n"
                  "  1  compile: the job ran but the kernel did not compile (report printed)\n"
                  "     verify, bench: the kernel did not compile or a scenario failed\n"
                  "     verification (report printed)\n"
                  "     profile: the kernel did not compile or failed the scenario's\n"
                  "     verification (report printed)\n"
                  "  2  usage error: bad flags or arguments, unreadable FILE, plaintext to a\n"
                  "     server off loopback without --insecure-plaintext, or input the\n"
                  "     server rejected (unknown job or session id or problem, invalid\n"
                  "     option); best: FILE exists and --force was not given\n"
                  "  3  no token, server unreachable, its TLS certificate not verified by\n"
                  "     --tls-ca, token rejected (unknown, revoked or expired), permission denied\n"
                  "     (a viewer's submit, another member's job), another protocol version, or\n"
                  "     another server error\n"
                  "  4  compile, verify, bench: the job failed without a result (reason printed)\n"
                  "     verify, bench: the runner stopped early (runner error in the report),\n"
                  "     no scenario ran, or (bench) a passing scenario was not timed\n"
                  "     profile: the job failed without a result (reason printed), or ncu\n"
                  "     reported an error or profiled no kernel of FILE (report printed)\n"
                  "  5  compile, verify, bench, profile: no connected worker could run the job,\n"
                  "     so nothing was queued (the reason says what is missing);\n"
                  "     --wait-for-worker queues it anyway\n"
                  "  130  Ctrl-C while waiting on a job: the job goes on on the server\n"
                  "job ID --wait exits as the command that submitted the job would.\n"
                  "watch exits 0 once the session has ended, whatever its outcome; `kseek\n"
                  "session show` says how it ended.\n"
                  "\nErrors are one line on stderr starting \"kseek: \".\n"
                  "Flags --server, --token, --tls-ca and --insecure-plaintext may come before or\n"
                  "after the command. --version prints kseek's version and protocol version; a\n"
                  "server that speaks another protocol refuses the call, saying which to upgrade.");
  return text;
}

// Global flags before the command go through their own FlagSet, which also
// reads $KSEEK_SERVER and $KSEEK_TOKEN.
FlagSet MakeTopLevelFlags(GlobalOptions* global) {
  FlagSet flags("kseek",
                "[--server HOST:PORT] [--token TOKEN] [--tls-ca FILE] COMMAND [ARGS] [flags]\n"
                "       kseek --version",
                TopLevelDescription());
  flags.String("server", &global->server, "coordinator address HOST:PORT", "KSEEK_SERVER");
  flags.String("token", &global->token, "API token", "KSEEK_TOKEN");
  flags.String("tls-ca", &global->tls_ca, kTlsCaHelp, "KSEEK_TLS_CA");
  flags.Bool("insecure-plaintext", &global->insecure_plaintext, kInsecurePlaintextHelp);
  flags.Bool("version", &global->version, "print kseek's version and protocol version");
  return flags;
}

int RunHelp(const std::vector<std::string>& args, const GlobalOptions& global) {
  if (args.empty()) {
    GlobalOptions unused;
    std::cout << MakeTopLevelFlags(&unused).Usage();
    return kExitOk;
  }
  const Command* command = FindCommand(args[0]);
  if (command == nullptr || command->name == "help") {
    return Fail(kExitUsage, absl::StrCat("no help for \"", args[0], "\" (see kseek --help)"));
  }
  return command->run({"--help"}, global);
}

int Main(int argc, char** argv) {
  // gRPC logs failures such as a refused TLS handshake on stderr itself;
  // kseek says the same in one line of its own. GRPC_VERBOSITY brings them back.
  if (std::getenv("GRPC_VERBOSITY") == nullptr) gpr_set_log_function([](gpr_log_func_args*) {});
  std::vector<std::string> args(argv + 1, argv + argc);
  // The command is the first argument that is neither a flag nor the value
  // of --server/--token.
  size_t command_index = 0;
  while (command_index < args.size() && args[command_index].starts_with("-")) {
    const std::string& arg = args[command_index];
    command_index += (arg == "--server" || arg == "--token" || arg == "--tls-ca") ? 2 : 1;
  }
  GlobalOptions global;
  FlagSet top = MakeTopLevelFlags(&global);
  std::vector<std::string> leading(args.begin(),
                                   args.begin() + std::min(command_index, args.size()));
  absl::StatusOr<std::vector<std::string>> parsed = top.Parse(leading);
  if (!parsed.ok()) return Fail(kExitUsage, parsed.status().message());
  if (top.help_requested()) {
    std::cout << top.Usage();
    return kExitOk;
  }
  if (global.version) {
    std::cout << VersionLine("kseek") << "\n";
    return kExitOk;
  }
  if (command_index >= args.size()) {
    std::cerr << top.Usage();
    return kExitUsage;
  }
  const Command* command = FindCommand(args[command_index]);
  if (command == nullptr) {
    return Fail(kExitUsage,
                absl::StrCat("unknown command \"", args[command_index], "\" (see kseek --help)"));
  }
  return command->run(std::vector<std::string>(args.begin() + command_index + 1, args.end()),
                      global);
}

}  // namespace
}  // namespace kseek

int main(int argc, char** argv) { return kseek::Main(argc, argv); }
