// kseek trace.
#include "client/commands/trace.h"

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "client/commands/output_file.h"
#include "client/commands/watch.h"
#include "client/exit_codes.h"
#include "client/session_trace.h"
#include "common/flags.h"

namespace kseek {

using kernelseek::v1::Session;
using kernelseek::v1::SessionEvent;

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
      [&](const absl::Status& lost, int64_t last_seq) { PrintStreamResume(lost, last_seq, server); });
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

}  // namespace kseek
