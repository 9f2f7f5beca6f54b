// kseek session start|show|stop.
#include "client/commands/session.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/exit_codes.h"
#include "client/session_format.h"
#include "client/session_request.h"
#include "common/flags.h"

namespace kseek {

using kernelseek::v1::Session;

namespace {

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
  return StopSessionAndPrint(client.get(), server, positional[0], common.json);
}

constexpr Subcommand kSessionCommands[] = {
    {"start", "start an optimization session; prints its id", RunSessionStart},
    {"show", "show a session: goal, best version, speedup history, questions", RunSessionShow},
    {"stop", "stop a running session", RunSessionStop},
};

std::string SessionUsage() {
  return absl::StrCat(
      "usage: kseek session SUBCOMMAND [ARGS] [flags]\n\n"
      "Optimization sessions: an LLM agent improves a kernel under the harness.\n\n"
      "subcommands:\n",
      SubcommandList(kSessionCommands),
      "\nkseek session SUBCOMMAND --help describes each. Related: kseek sessions,\n"
      "watch, trace, ask, best.\n");
}

}  // namespace

int StopSessionAndPrint(CoordinatorClient* client, const std::string& server, const std::string& id,
                        bool json) {
  absl::StatusOr<Session> session = client->StopSession(id);
  if (!session.ok()) return FailRpc(session.status(), server);
  if (json) return PrintJson(*session);
  std::cout << FormatSessionEnd(*session);
  return kExitOk;
}

int RunSession(const std::vector<std::string>& args, const GlobalOptions& global) {
  return RunSubcommand(kSessionCommands, SessionUsage(), "session", "start, show or stop; see kseek session --help",
                       args, global);
}

}  // namespace kseek
