// kseek: the command-line client of a kseek-server.
//
// Reads the command word and the global flags, prints the top-level --help
// and dispatches through kCommands to one Run function per command, each in
// client/commands/ (which parses its own flags). A new command is a file
// there plus a kCommands row.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <grpc/support/log.h>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "client/commands/ask.h"
#include "client/commands/best.h"
#include "client/commands/cancel.h"
#include "client/commands/command.h"
#include "client/commands/compile.h"
#include "client/commands/job.h"
#include "client/commands/jobs.h"
#include "client/commands/run.h"
#include "client/commands/scenarios.h"
#include "client/commands/session.h"
#include "client/commands/sessions.h"
#include "client/commands/token.h"
#include "client/commands/trace.h"
#include "client/commands/watch.h"
#include "client/commands/workers.h"
#include "client/exit_codes.h"
#include "common/flags.h"
#include "common/protocol.h"

namespace kseek {
namespace {

int RunHelp(const std::vector<std::string>& args, const GlobalOptions& global);

struct Command {
  absl::string_view name;
  absl::string_view summary;
  CommandRun run;
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
