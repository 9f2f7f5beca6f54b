// kseek: the command-line client of a kseek-server.
//
// Reads flags and dispatches to one function per subcommand; the work is done
// by CoordinatorClient (RPCs), MakeCompileSpec/MakeRunSpec (input checks) and
// the Format* functions (output). A new subcommand is a Run* function plus a
// kCommands row.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "client/compile_request.h"
#include "client/coordinator_client.h"
#include "client/exit_codes.h"
#include "client/progress_display.h"
#include "client/report_format.h"
#include "client/run_report.h"
#include "client/run_request.h"
#include "client/scenario_table.h"
#include "common/clock.h"
#include "common/flags.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;

constexpr char kDefaultServer[] = "127.0.0.1:7070";

// Where to connect and as whom: from $KSEEK_SERVER/$KSEEK_TOKEN, then flags
// before the command, then flags after it (the last one given wins).
struct GlobalOptions {
  std::string server = kDefaultServer;
  std::string token;
};

// Flags every subcommand takes.
struct CommonFlags {
  std::string server;
  std::string token;
  bool json = false;
};

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
  std::string token = common.token.empty() ? global.token : common.token;
  if (token.empty()) {
    return Fail(kExitServer,
                "no API token: pass --token or set KSEEK_TOKEN (an admin creates one with "
                "`kseek-server token create --db PATH --user NAME`)");
  }
  *client = std::make_unique<CoordinatorClient>(CoordinatorClient::MakeChannel(*server), token);
  return std::nullopt;
}

int PrintJson(const google::protobuf::Message& message) {
  absl::StatusOr<std::string> json = MessageToJson(message);
  if (!json.ok()) return Fail(kExitServer, json.status().message());
  std::cout << *json;
  return kExitOk;
}

// Prints a finished job as `kseek compile` does and returns its exit code.
int ReportFinishedCompile(const Job& job, bool json) {
  if (json) {
    if (int code = PrintJson(job); code != kExitOk) return code;
  }
  if (job.state() == kernelseek::v1::JOB_STATE_FAILED) {
    return Fail(kExitJobFailed,
                absl::StrCat("job ", job.id(), " failed after ", job.attempts(), " attempt(s): ",
                             job.failure().empty() ? "no reason given" : job.failure()));
  }
  if (!job.result().has_compile()) {
    return Fail(kExitServer, absl::StrCat("job ", job.id(), " finished without a compile result"));
  }
  if (!json) std::cout << FormatCompileReport(job);
  return job.result().compile().success() ? kExitOk : kExitDidNotCompile;
}

// The nvcc flags of `kseek compile`, which verify and bench take too.
void AddCompileFlags(FlagSet* flags, CompileRequest* request) {
  flags->String("arch", &request->arch, "target architecture, e.g. sm_90a or sm_100a");
  flags->Int("opt-level", &request->opt_level, "optimisation level 1..3 (-1: worker default, -O3)");
  flags->Bool("lineinfo", &request->line_info, "compile with -lineinfo");
  flags->Repeated("define", &request->defines, "NAME or NAME=VALUE, passed as -D");
  flags->Int("maxrregcount", &request->max_registers, "register limit per thread (0: none)");
}

// Submits `spec`; with --no-wait prints the job id, else follows the job on
// stderr (the text of each update from `progress_text`) and hands the
// finished job to `report`. Returns the exit code.
int SubmitAndReport(const kernelseek::v1::JobSpec& spec, const GlobalOptions& global,
                    const CommonFlags& common, bool no_wait,
                    std::string (*progress_text)(const Job&),
                    int (*report)(const Job& job, bool json)) {
  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<std::string> job_id = client->SubmitJob(spec);
  if (!job_id.ok()) return FailRpc(job_id.status(), server);

  if (no_wait) {
    if (common.json) {
      kernelseek::v1::SubmitJobResponse response;
      response.set_job_id(*job_id);
      return PrintJson(response);
    }
    std::cout << *job_id << "\n";
    return kExitOk;
  }

  RealClock clock;
  ProgressDisplay progress(&std::cerr, isatty(STDERR_FILENO) == 1, &clock, *job_id);
  progress.Update("submitted");
  progress.StartTicker();
  absl::StatusOr<Job> job = client->WatchJob(
      *job_id, [&](const Job& update) { progress.Update(progress_text(update)); },
      [&](const absl::Status& lost) {
        progress.Update(
            absl::StrCat("lost the server (", DescribeRpcError(lost, server), "), reconnecting"));
      });
  if (!job.ok()) {
    progress.Finish("stopped watching");
    std::cerr << "kseek: `kseek job " << *job_id << "` shows the job later\n";
    return FailRpc(job.status(), server);
  }
  progress.Finish(FormatProgress(*job));
  return report(*job, common.json);
}

int RunCompile(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  CompileRequest request;
  bool no_wait = false;
  FlagSet flags("kseek compile", "FILE --arch ARCH [flags]",
                "Compiles a CUDA source file on a worker that can build for ARCH and prints\n"
                "the result: diagnostics, the ptxas resources of each kernel and a summary\n"
                "of its SASS. Waits for the job, showing its stage on stderr.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  AddCompileFlags(&flags, &request);
  flags.Bool("no-wait", &no_wait, "print the job id and return without waiting");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one FILE", "compile")) return *done;
  request.path = positional[0];

  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeCompileSpec(request);
  if (!spec.ok()) return Fail(kExitUsage, spec.status().message());
  return SubmitAndReport(*spec, global, common, no_wait, &FormatProgress, &ReportFinishedCompile);
}

// Prints a finished verify or bench job and returns its exit code (see
// RunExitCode); a job that failed without a result is one line on stderr.
int ReportFinishedRun(const Job& job, bool json) {
  if (json) {
    if (int code = PrintJson(job); code != kExitOk) return code;
  }
  if (job.state() == kernelseek::v1::JOB_STATE_FAILED) {
    return Fail(kExitJobFailed,
                absl::StrCat("job ", job.id(), " failed after ", job.attempts(), " attempt(s): ",
                             job.failure().empty() ? "no reason given" : job.failure()));
  }
  if (!job.result().has_run()) {
    return Fail(kExitServer, absl::StrCat("job ", job.id(), " finished without a run result"));
  }
  if (!json) std::cout << FormatRunReport(job);
  return RunExitCode(job);
}

// `kseek verify` and `kseek bench`: the same flags but for the baseline and
// the time cap, which only a benchmark has.
int RunScenarioJob(kernelseek::v1::JobKind kind, const std::vector<std::string>& args,
                   const GlobalOptions& global) {
  bool bench = kind == kernelseek::v1::JOB_KIND_BENCH;
  CommonFlags common;
  RunRequest request;
  request.kind = kind;
  request.scenarios = bench ? "perf" : "all";
  if (bench) request.baseline = "cudnn";
  bool no_wait = false;
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
               bench ? "perf, all, another set name, or ID,ID,..."
                     : "all, a set name such as perf, or ID,ID,...");
  if (bench) {
    flags.String("baseline", &request.baseline,
                 absl::StrCat("what to compare with: ", absl::StrJoin(kBaselineNames, ", ")));
    flags.Double("max-seconds", &request.max_seconds_per_scenario,
                 "timing budget per scenario in seconds (0: the worker's default)");
  }
  AddCompileFlags(&flags, &request.compile);
  flags.Bool("no-wait", &no_wait, "print the job id and return without waiting");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one FILE", command)) return *done;
  request.compile.path = positional[0];

  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeRunSpec(request);
  if (!spec.ok()) return Fail(kExitUsage, spec.status().message());
  return SubmitAndReport(*spec, global, common, no_wait, &FormatRunProgress, &ReportFinishedRun);
}

int RunVerify(const std::vector<std::string>& args, const GlobalOptions& global) {
  return RunScenarioJob(kernelseek::v1::JOB_KIND_VERIFY, args, global);
}

int RunBench(const std::vector<std::string>& args, const GlobalOptions& global) {
  return RunScenarioJob(kernelseek::v1::JOB_KIND_BENCH, args, global);
}

int RunScenarios(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  std::string set;
  FlagSet flags("kseek scenarios", "PROBLEM [flags]",
                "Lists the scenarios of PROBLEM as the server's workers run them: shape\n"
                "symbols, scalars a scenario sets, dtype, and the input seed (\"hidden\" for\n"
                "seeds only the worker knows).");
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
  FlagSet flags("kseek jobs", "[flags]", "Lists jobs, newest first.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  flags.Int("limit", &limit, "most jobs to list (0: the server's default)");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 0, "no arguments", "jobs")) return *done;
  if (limit < 0 || limit > 1'000'000) {
    return Fail(kExitUsage, absl::StrCat("--limit wants 0..1000000, got ", limit));
  }

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<std::vector<Job>> jobs = client->ListJobs(static_cast<int>(limit));
  if (!jobs.ok()) return FailRpc(jobs.status(), server);
  if (common.json) {
    kernelseek::v1::ListJobsResponse response;
    for (const Job& job : *jobs) *response.add_jobs() = job;
    return PrintJson(response);
  }
  std::cout << FormatJobTable(*jobs, absl::Now());
  return kExitOk;
}

int RunJob(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  FlagSet flags("kseek job", "ID [flags]",
                "Shows one job: its state, where it ran, and its compile, verify or bench\n"
                "report once finished.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one job ID", "job")) return *done;

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<Job> job = client->GetJob(positional[0]);
  if (!job.ok()) return FailRpc(job.status(), server);
  if (common.json) return PrintJson(*job);
  std::cout << FormatJobDetails(*job, absl::Now());
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
    {"scenarios", "list a problem's scenarios", RunScenarios},
    {"jobs", "list jobs", RunJobs},
    {"job", "show one job and its report", RunJob},
    {"workers", "list workers and their capabilities", RunWorkers},
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
                  "  0  success; verify, bench: every scenario passed (bench: and was timed)\n"
                  "  1  compile: the job ran but the kernel did not compile (report printed)\n"
                  "     verify, bench: the kernel did not compile or a scenario failed\n"
                  "     verification (report printed)\n"
                  "  2  usage error: bad flags or arguments, unreadable FILE, or input the\n"
                  "     server rejected (unknown job id or problem, invalid option)\n"
                  "  3  no token, server unreachable, token rejected, or another server error\n"
                  "  4  compile, verify, bench: the job failed without a result (reason printed)\n"
                  "     verify, bench: the runner stopped early (runner error in the report),\n"
                  "     no scenario ran, or (bench) a passing scenario was not timed\n"
                  "\nErrors are one line on stderr starting \"kseek: \".\n"
                  "Flags --server and --token may come before or after the command.");
  return text;
}

// Global flags before the command go through their own FlagSet, which also
// reads $KSEEK_SERVER and $KSEEK_TOKEN.
FlagSet MakeTopLevelFlags(GlobalOptions* global) {
  FlagSet flags("kseek", "[--server HOST:PORT] [--token TOKEN] COMMAND [ARGS] [flags]",
                TopLevelDescription());
  flags.String("server", &global->server, "coordinator address HOST:PORT", "KSEEK_SERVER");
  flags.String("token", &global->token, "API token", "KSEEK_TOKEN");
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
  std::vector<std::string> args(argv + 1, argv + argc);
  // The command is the first argument that is neither a flag nor the value
  // of --server/--token.
  size_t command_index = 0;
  while (command_index < args.size() && args[command_index].starts_with("-")) {
    const std::string& arg = args[command_index];
    command_index += (arg == "--server" || arg == "--token") ? 2 : 1;
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
