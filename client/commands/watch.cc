// kseek watch.
#include "client/commands/watch.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "client/exit_codes.h"
#include "client/session_format.h"
#include "client/session_trace.h"
#include "common/flags.h"

namespace kseek {

using kernelseek::v1::Session;
using kernelseek::v1::SessionEvent;

void PrintStreamResume(const absl::Status& lost, int64_t last_seq, const std::string& server) {
  std::cerr << "kseek: lost the server (" << DescribeRpcError(lost, server) << "), resuming after #" << last_seq
            << "\n";
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
      [&](const absl::Status& lost, int64_t last_seq) { PrintStreamResume(lost, last_seq, server); });
  if (!session.ok()) return FailRpc(session.status(), server);
  (common.json ? std::cerr : std::cout) << FormatSessionEnd(*session);
  return kExitOk;
}

}  // namespace kseek
