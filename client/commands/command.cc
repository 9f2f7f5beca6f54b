// The steps every kseek command shares; see command.h.
#include "client/commands/command.h"

#include <iostream>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/exit_codes.h"
#include "client/report_format.h"
#include "common/protocol.h"
#include "common/tls.h"

namespace kseek {

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

std::string SubcommandList(absl::Span<const Subcommand> subcommands) {
  std::string text;
  for (const Subcommand& sub : subcommands) {
    absl::StrAppend(&text, absl::StrFormat("  %-6s %s\n", sub.name, sub.summary));
  }
  return text;
}

int RunSubcommand(absl::Span<const Subcommand> subcommands, const std::string& usage,
                  absl::string_view command, absl::string_view unknown,
                  const std::vector<std::string>& args, const GlobalOptions& global) {
  if (args.empty()) {
    std::cerr << usage;
    return kExitUsage;
  }
  if (args[0] == "--help" || args[0] == "-h") {
    std::cout << usage;
    return kExitOk;
  }
  for (const Subcommand& sub : subcommands) {
    if (sub.name == args[0]) return sub.run(std::vector<std::string>(args.begin() + 1, args.end()), global);
  }
  return Fail(kExitUsage, absl::StrCat("unknown ", command, " subcommand \"", args[0], "\" (", unknown, ")"));
}

}  // namespace kseek
