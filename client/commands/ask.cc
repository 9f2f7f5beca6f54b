// kseek ask.
#include "client/commands/ask.h"

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "client/exit_codes.h"
#include "common/flags.h"

namespace kseek {

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

}  // namespace kseek
