// What every kseek command gets: where to connect and as whom, the flags all
// of them take, and the few steps each one's Run function goes through (parse
// its flags, connect, print JSON or fail with an exit code of exit_codes.h).
// A command is a Run function, client/main.cc's table dispatches to it.
#ifndef KSEEK_CLIENT_COMMANDS_COMMAND_H_
#define KSEEK_CLIENT_COMMANDS_COMMAND_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <google/protobuf/message.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "client/coordinator_client.h"
#include "common/flags.h"

namespace kseek {

inline constexpr char kDefaultServer[] = "127.0.0.1:7070";

inline constexpr char kTlsCaHelp[] =
    "CA certificate (PEM) to verify the server's TLS certificate against; without it, plaintext, "
    "which only a loopback server gets unless --insecure-plaintext";
inline constexpr char kInsecurePlaintextHelp[] =
    "talk plaintext to a server that is not on loopback (tokens and kernels readable on the network)";

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

// A command's entry point: its arguments after the command word. Returns the
// exit code.
using CommandRun = int (*)(const std::vector<std::string>& args, const GlobalOptions& global);

// Prints "kseek: MESSAGE" on stderr and returns `code`.
int Fail(int code, absl::string_view message);

// Fails with the exit code and description of a failed RPC to `server`.
int FailRpc(const absl::Status& status, const std::string& server);

// Adds --server, --token, --tls-ca, --insecure-plaintext and, if `json`, --json.
void AddCommonFlags(FlagSet* flags, CommonFlags* common, bool json);

// Parses a subcommand's arguments. Returns the exit code when the command is
// already done (help printed, or a usage error), nullopt to go on.
std::optional<int> ParseArgs(FlagSet* flags, const std::vector<std::string>& args,
                             std::vector<std::string>* positional);

// A usage error unless there are `count` positional arguments.
std::optional<int> ExpectPositional(const std::vector<std::string>& positional, size_t count,
                                    absl::string_view what, absl::string_view command);

// The client for this invocation, or the exit code when no token is known.
std::optional<int> Connect(const GlobalOptions& global, const CommonFlags& common,
                           std::string* server, std::unique_ptr<CoordinatorClient>* client);

// `kseek jobs` and `kseek sessions`: --limit must be 0 (the server's
// default) up to a million; a usage error otherwise.
std::optional<int> CheckListLimit(int64_t limit);

// Prints `message` as protobuf JSON. Returns the exit code.
int PrintJson(const google::protobuf::Message& message);

// One subcommand of a command that has several (kseek session, kseek token).
struct Subcommand {
  absl::string_view name;
  absl::string_view summary;
  CommandRun run;
};

// The "subcommands:" lines of a command's usage, one per subcommand.
std::string SubcommandList(absl::Span<const Subcommand> subcommands);

// Runs the subcommand args[0] names with the rest of `args`; with no
// arguments prints `usage` on stderr (a usage error), with --help on stdout.
// An unknown name fails with `unknown` (the valid names, where to look).
int RunSubcommand(absl::Span<const Subcommand> subcommands, const std::string& usage,
                  absl::string_view command, absl::string_view unknown,
                  const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_COMMAND_H_
