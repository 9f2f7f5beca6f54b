// kseek sessions.
#include "client/commands/sessions.h"

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "client/exit_codes.h"
#include "client/session_format.h"
#include "common/flags.h"

namespace kseek {

using kernelseek::v1::Session;

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

}  // namespace kseek
