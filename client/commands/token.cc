// kseek token create|list|revoke.
#include "client/commands/token.h"

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/strings/numbers.h"
#include "absl/time/time.h"
#include "client/exit_codes.h"
#include "client/report_format.h"
#include "common/flags.h"

namespace kseek {
namespace {

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
  return absl::StrCat(
      "usage: kseek token SUBCOMMAND [ARGS] [flags]\n\n"
      "API tokens of your team.\n\n"
      "subcommands:\n",
      SubcommandList(kTokenCommands), "\n", kTokenAdminNote, "\nkseek token SUBCOMMAND --help describes each.\n");
}

}  // namespace

int RunToken(const std::vector<std::string>& args, const GlobalOptions& global) {
  return RunSubcommand(kTokenCommands, TokenUsage(), "token", "create, list or revoke; see kseek token --help", args,
                       global);
}

}  // namespace kseek
