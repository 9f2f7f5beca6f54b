// Renderings of a session's trace events for the kseek CLI: the lines
// `kseek watch` prints as events arrive, and the JSON Lines and Markdown
// exports of `kseek trace`.
//
// An event's payload is JSON whose fields depend on its kind; these functions
// read the fields they know (a model turn is the ChatResponse JSON of
// server/llm/chat_json.h; a question has trigger, source and text; ...) and
// fall back to compact JSON, or the raw text when the payload is not JSON, so
// a new or malformed payload is still shown. Plain functions; thread-safe.
#ifndef KERNELSEEK_CLIENT_SESSION_TRACE_H_
#define KERNELSEEK_CLIENT_SESSION_TRACE_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

struct EventLineOptions {
  absl::TimeZone zone = absl::UTCTimeZone();  // for the HH:MM:SS of each line
  bool color = false;                         // ANSI bold colour for questions and human messages
  int max_text_lines = 3;    // model text and tool results are cut to this many lines
  int max_line_chars = 160;  // and each line to this many characters
};

// `#SEQ HH:MM:SS KIND AUTHOR: SUMMARY`, then the rest of a multi-line summary
// indented by four spaces; ends with a newline. Model text and tool results
// are cut (saying how much was left out), tool calls read `name(arg=value, …)`
// and questions stand out ("QUESTION (trigger, source): text").
std::string FormatEventLines(const kernelseek::v1::SessionEvent& event,
                             const EventLineOptions& options);

// One JSON object on one line, ending with a newline: session_id, seq, time
// (RFC 3339, UTC), kind, author and payload (the payload parsed as JSON, or
// its text as a JSON string when it is not JSON). Model turns in this form
// are what the replay provider reads.
std::string EventToJsonLine(const kernelseek::v1::SessionEvent& event);

// The whole trace as a Markdown transcript: a header with the session's goal
// and outcome, then one heading per event naming its kind, with model text as
// paragraphs, tool arguments and results in code blocks and questions as
// block quotes. Nothing is cut.
std::string FormatTraceMarkdown(const kernelseek::v1::Session& session,
                                const std::vector<kernelseek::v1::SessionEvent>& events);

}  // namespace kseek

#endif  // KERNELSEEK_CLIENT_SESSION_TRACE_H_
