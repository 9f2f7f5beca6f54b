#include "client/session_trace.h"

#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "client/report_format.h"
#include "client/session_format.h"
#include "common/session_event.h"

namespace kseek {
namespace {

using kernelseek::v1::Session;
using kernelseek::v1::SessionEvent;
// Ordered, so that payload fields and tool arguments read in the order they were written.
using json = nlohmann::ordered_json;

constexpr char kBoldYellow[] = "\033[1;33m";
constexpr char kBoldCyan[] = "\033[1;36m";
constexpr char kReset[] = "\033[0m";
// How much of one tool argument's value a watch line shows.
constexpr size_t kArgValueChars = 40;

// The payload as JSON: the typed body's (common/session_event.h) when the
// server sent one; else the event's payload_json (a server that sends no
// body, a kind this client does not know), where a payload that is not JSON
// becomes a JSON string so that it is still shown.
json PayloadOf(const SessionEvent& event) {
  if (event.body_case() != SessionEvent::BODY_NOT_SET) return json(BodyToJson(event));
  const std::string& payload_json = event.payload_json();
  if (payload_json.empty()) return json::object();
  json parsed = json::parse(payload_json, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return json(payload_json);
  return parsed;
}

// The string at payload[key], or "" when absent or not a string.
std::string StringField(const json& payload, absl::string_view key) {
  if (!payload.is_object()) return "";
  auto it = payload.find(std::string(key));
  if (it == payload.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

// A field shown as text whatever its JSON type: "" when absent.
std::string ScalarField(const json& payload, absl::string_view key) {
  if (!payload.is_object()) return "";
  auto it = payload.find(std::string(key));
  if (it == payload.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

double NumberField(const json& payload, absl::string_view key) {
  if (!payload.is_object()) return 0;
  auto it = payload.find(std::string(key));
  if (it == payload.end() || !it->is_number()) return 0;
  return it->get<double>();
}

std::string FirstString(const json& payload, std::initializer_list<absl::string_view> keys) {
  for (absl::string_view key : keys) {
    std::string value = StringField(payload, key);
    if (!value.empty()) return value;
  }
  return "";
}

// The prose of an event: a model turn's content, or the first text-like field.
std::string TextOf(const json& payload) {
  if (payload.is_string()) return payload.get<std::string>();
  if (payload.is_object()) {
    if (auto message = payload.find("message"); message != payload.end() && message->is_object()) {
      return StringField(*message, "content");
    }
  }
  return FirstString(payload, {"text", "content", "message", "result", "output", "error"});
}

bool IsError(const json& payload) {
  if (!payload.is_object()) return false;
  auto it = payload.find("is_error");
  return it != payload.end() && it->is_boolean() && it->get<bool>();
}

// A model turn's tool calls: {"id", "name", "arguments"} objects.
std::vector<json> ToolCallsOf(const json& payload) {
  std::vector<json> calls;
  if (!payload.is_object()) return calls;
  const json* holder = &payload;
  if (auto message = payload.find("message"); message != payload.end() && message->is_object()) {
    holder = &*message;
  }
  auto it = holder->find("tool_calls");
  if (it == holder->end() || !it->is_array()) return calls;
  for (const json& call : *it) {
    if (call.is_object()) calls.push_back(call);
  }
  return calls;
}

std::string ToolNameOf(const json& payload) { return FirstString(payload, {"name", "tool"}); }

// A tool call's arguments as JSON: the model's text is kept verbatim in the
// trace (it may be malformed), so a string is parsed when it can be.
json ArgumentsOf(const json& payload) {
  if (!payload.is_object()) return json();
  auto it = payload.find("arguments");
  if (it == payload.end()) it = payload.find("input");
  if (it == payload.end()) return json();
  if (!it->is_string()) return *it;
  json parsed = json::parse(it->get<std::string>(), nullptr, /*allow_exceptions=*/false);
  return parsed.is_discarded() ? *it : parsed;
}

// Cuts `text` to `max_chars` code points, marking the cut with "…".
std::string CutChars(absl::string_view text, size_t max_chars) {
  size_t points = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((text[i] & 0xC0) == 0x80) continue;
    if (points == max_chars) return absl::StrCat(text.substr(0, i), "…");
    ++points;
  }
  return std::string(text);
}

std::string OneLine(absl::string_view text) {
  return absl::StrReplaceAll(absl::StripAsciiWhitespace(text), {{"\r", ""}, {"\n", "⏎"}});
}

// `name(path="k.cu", n=3)`, each value cut, the whole cut to a line.
std::string FormatCallShort(const std::string& name, const json& arguments, size_t max_chars) {
  std::string args;
  if (arguments.is_object()) {
    std::vector<std::string> parts;
    for (auto it = arguments.begin(); it != arguments.end(); ++it) {
      std::string value = it.value().is_string()
                              ? json(OneLine(it.value().get<std::string>())).dump()
                              : it.value().dump();
      parts.push_back(absl::StrCat(it.key(), "=", CutChars(value, kArgValueChars)));
    }
    args = absl::StrJoin(parts, ", ");
  } else if (arguments.is_string()) {
    args = OneLine(arguments.get<std::string>());
  } else if (!arguments.is_null()) {
    args = arguments.dump();
  }
  return CutChars(absl::StrCat(name.empty() ? "?" : name, "(", args, ")"), max_chars);
}

// `text` as at most `max_lines` lines of at most `max_chars`, saying what was
// left out; leading and trailing blank lines dropped.
std::vector<std::string> CutLines(absl::string_view text, const EventLineOptions& options) {
  std::vector<absl::string_view> lines =
      absl::StrSplit(absl::StripTrailingAsciiWhitespace(text), '\n');
  while (!lines.empty() && absl::StripAsciiWhitespace(lines.front()).empty()) {
    lines.erase(lines.begin());
  }
  std::vector<std::string> out;
  size_t keep = std::min(lines.size(), static_cast<size_t>(std::max(options.max_text_lines, 1)));
  for (size_t i = 0; i < keep; ++i) {
    out.push_back(CutChars(absl::StripTrailingAsciiWhitespace(lines[i]),
                           static_cast<size_t>(options.max_line_chars)));
  }
  if (lines.size() > keep) {
    out.push_back(absl::StrCat("… (", lines.size() - keep, " more lines)"));
  }
  return out;
}

std::string ModelSummary(const json& payload, const EventLineOptions& options,
                         std::vector<std::string>* more) {
  std::vector<std::string> lines = CutLines(TextOf(payload), options);
  std::vector<std::string> names;
  for (const json& call : ToolCallsOf(payload)) names.push_back(ToolNameOf(call));
  if (!names.empty()) lines.push_back(absl::StrCat("→ calls ", absl::StrJoin(names, ", ")));
  if (lines.empty()) return "(no text)";
  more->assign(lines.begin() + 1, lines.end());
  return lines.front();
}

std::string ToolResultSummary(const json& payload, const EventLineOptions& options,
                              std::vector<std::string>* more) {
  std::string name = ToolNameOf(payload);
  std::string text = payload.is_object() && payload.size() > 0 && TextOf(payload).empty()
                         ? payload.dump()
                         : TextOf(payload);
  std::vector<std::string> lines = CutLines(text, options);
  std::string head = absl::StrCat(IsError(payload) ? "error" : "ok", name.empty() ? "" : " ", name);
  if (lines.empty()) return absl::StrCat(head, ": (empty)");
  more->assign(lines.begin() + 1, lines.end());
  return absl::StrCat(head, ": ", lines.front());
}

std::string KernelVersionSummary(const json& payload) {
  std::string id = FirstString(payload, {"id", "version", "version_id"});
  std::string out = id.empty() ? "version" : id;
  if (std::string parent = ScalarField(payload, "parent"); !parent.empty()) {
    absl::StrAppend(&out, " (from ", parent, ")");
  }
  if (std::string status = ScalarField(payload, "status"); !status.empty()) {
    absl::StrAppend(&out, " ", status);
  }
  if (double speedup = NumberField(payload, "geomean_speedup"); speedup > 0) {
    absl::StrAppend(&out, " ", FormatSpeedup(speedup));
  }
  if (double tflops = NumberField(payload, "geomean_tflops"); tflops > 0) {
    absl::StrAppend(&out, absl::StrFormat(" %.1f TFLOP/s", tflops));
  }
  return out;
}

// key=value for every scalar field but those in `skip`, in payload order.
std::string ScalarFields(const json& payload, std::initializer_list<absl::string_view> skip) {
  if (!payload.is_object()) {
    return payload.is_string() ? payload.get<std::string>() : payload.dump();
  }
  std::vector<std::string> parts;
  for (auto it = payload.begin(); it != payload.end(); ++it) {
    if (std::find(skip.begin(), skip.end(), it.key()) != skip.end()) continue;
    if (it.value().is_structured()) continue;
    parts.push_back(absl::StrCat(
        it.key(), "=",
        it.value().is_string() ? OneLine(it.value().get<std::string>()) : it.value().dump()));
  }
  return absl::StrJoin(parts, " ");
}

// The summary for a watch line, plus any further lines in `more`; whether it
// is highlighted, and how, in `color`.
std::string Summarize(const SessionEvent& event, const json& payload,
                      const EventLineOptions& options, std::vector<std::string>* more,
                      const char** color) {
  const std::string& kind = event.kind();
  if (kind == "model_message") return ModelSummary(payload, options, more);
  if (kind == "tool_call") {
    return FormatCallShort(ToolNameOf(payload), ArgumentsOf(payload),
                           static_cast<size_t>(options.max_line_chars));
  }
  if (kind == "tool_result") return ToolResultSummary(payload, options, more);
  if (kind == "question") {
    *color = kBoldYellow;
    std::string trigger = ScalarField(payload, "trigger");
    std::string source = ScalarField(payload, "source");
    std::vector<std::string> tags;
    if (!trigger.empty()) tags.push_back(trigger);
    if (!source.empty()) tags.push_back(source);
    std::string head =
        tags.empty() ? "QUESTION" : absl::StrCat("QUESTION (", absl::StrJoin(tags, ", "), ")");
    return absl::StrCat(head, ": ", OneLine(TextOf(payload)));
  }
  if (kind == "human_message") {
    *color = kBoldCyan;
    return absl::StrCat("MESSAGE: ", OneLine(TextOf(payload)));
  }
  if (kind == "kernel_version") return KernelVersionSummary(payload);
  if (kind == "state_change") {
    std::string state = ScalarField(payload, "state");
    std::string why = FirstString(payload, {"status", "reason", "text"});
    return absl::StrCat(state.empty() ? "?" : state, why.empty() ? "" : ": ", OneLine(why));
  }
  if (kind == "policy_decision") {
    std::string text = FirstString(payload, {"text", "reason"});
    std::string fields = ScalarFields(payload, {"text", "reason"});
    return absl::StrCat(fields, !fields.empty() && !text.empty() ? ": " : "", OneLine(text));
  }
  std::string text = TextOf(payload);
  return OneLine(text.empty() ? payload.dump() : text);
}

std::string FormatUtc(const google::protobuf::Timestamp& ts, const char* format) {
  absl::Time t = TimeFromProto(ts);
  if (t == absl::InfinitePast()) return "-";
  return absl::FormatTime(format, t, absl::UTCTimeZone());
}

// A fence longer than any run of backticks in `text`.
std::string FenceFor(absl::string_view text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

std::string CodeBlock(absl::string_view text, absl::string_view language) {
  std::string fence = FenceFor(text);
  std::string body(absl::StripTrailingAsciiWhitespace(text));
  return absl::StrCat(fence, language, "\n", body, "\n", fence, "\n\n");
}

std::string ArgumentsBlock(const json& arguments) {
  if (arguments.is_string()) return CodeBlock(arguments.get<std::string>(), "");
  if (arguments.is_null()) return CodeBlock("", "");
  return CodeBlock(arguments.dump(2), "json");
}

std::string Quote(absl::string_view text) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(absl::StripTrailingAsciiWhitespace(text), '\n')) {
    absl::StrAppend(&out, line.empty() ? ">" : absl::StrCat("> ", line), "\n");
  }
  return out + "\n";
}

// One event of the Markdown transcript: a heading, then its body.
std::string MarkdownEvent(const SessionEvent& event) {
  json payload = PayloadOf(event);
  const std::string& kind = event.kind();
  std::string title;
  std::string body;
  if (kind == "model_message") {
    title = "Model";
    std::string text(absl::StripAsciiWhitespace(TextOf(payload)));
    if (!text.empty()) body = absl::StrCat(text, "\n\n");
    for (const json& call : ToolCallsOf(payload)) {
      absl::StrAppend(&body, "Calls `", ToolNameOf(call), "`:\n\n",
                      ArgumentsBlock(ArgumentsOf(call)));
    }
    if (body.empty()) body = "(no text)\n\n";
  } else if (kind == "tool_call") {
    title = absl::StrCat("Tool call `", ToolNameOf(payload), "`");
    body = ArgumentsBlock(ArgumentsOf(payload));
  } else if (kind == "tool_result") {
    std::string name = ToolNameOf(payload);
    title = absl::StrCat(IsError(payload) ? "Tool error" : "Tool result",
                         name.empty() ? "" : absl::StrCat(" `", name, "`"));
    std::string text = TextOf(payload);
    body = text.empty() ? ArgumentsBlock(payload) : CodeBlock(text, "");
  } else if (kind == "question") {
    std::vector<std::string> tags;
    for (const char* key : {"trigger", "source"}) {
      if (std::string value = ScalarField(payload, key); !value.empty()) tags.push_back(value);
    }
    title = tags.empty() ? "Question" : absl::StrCat("Question (", absl::StrJoin(tags, ", "), ")");
    body = Quote(TextOf(payload));
  } else if (kind == "human_message") {
    title = "Human message";
    body = Quote(TextOf(payload));
  } else if (kind == "kernel_version") {
    title = absl::StrCat("Kernel version ", KernelVersionSummary(payload));
    body = ArgumentsBlock(payload);
  } else if (kind == "state_change") {
    std::string state = ScalarField(payload, "state");
    title = absl::StrCat("State: ", state.empty() ? "?" : state);
    std::string why = FirstString(payload, {"status", "reason", "text"});
    body = why.empty() ? ArgumentsBlock(payload) : absl::StrCat(why, "\n\n");
  } else if (kind == "policy_decision") {
    title = "Policy decision";
    body = ArgumentsBlock(payload);
  } else {
    title = kind.empty() ? "Event" : kind;
    body = ArgumentsBlock(payload);
  }
  return absl::StrCat("## #", event.seq(), " ", title, "\n\n*",
                      event.author().empty() ? "-" : event.author(), ", ",
                      FormatUtc(event.time(), "%Y-%m-%d %H:%M:%S UTC"), "*\n\n", body);
}

}  // namespace

std::string FormatEventLines(const SessionEvent& event, const EventLineOptions& options) {
  json payload = PayloadOf(event);
  std::vector<std::string> more;
  const char* color = nullptr;
  std::string summary = Summarize(event, payload, options, &more, &color);
  absl::Time t = TimeFromProto(event.time());
  std::string time =
      t == absl::InfinitePast() ? "--:--:--" : absl::FormatTime("%H:%M:%S", t, options.zone);
  std::string head = absl::StrCat("#", event.seq(), " ", time, " ", event.kind(), " ",
                                  event.author().empty() ? "-" : event.author(), ": ", summary);
  if (options.color && color != nullptr) head = absl::StrCat(color, head, kReset);
  std::string out = head + "\n";
  for (const std::string& line : more) absl::StrAppend(&out, "    ", line, "\n");
  return out;
}

std::string EventToJsonLine(const SessionEvent& event) {
  json line;
  line["session_id"] = event.session_id();
  line["seq"] = event.seq();
  line["time"] = FormatUtc(event.time(), "%Y-%m-%dT%H:%M:%E3SZ");
  line["kind"] = event.kind();
  line["author"] = event.author();
  line["payload"] = PayloadOf(event);
  // Replace: a kernel or model reply may hold bytes that are not UTF-8, and
  // an export must not fail on them.
  return line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string FormatTraceMarkdown(const Session& session, const std::vector<SessionEvent>& events) {
  const kernelseek::v1::SessionSpec& spec = session.spec();
  std::string out = absl::StrCat("# KernelSeek session ", session.id(), "\n\n");
  std::vector<std::pair<std::string, std::string>> fields = {
      {"Goal", absl::StrCat(spec.problem(), " on ", spec.arch(), ": ",
                            FormatSpeedup(spec.target_speedup()), " ", spec.baseline())},
      {"Kernel", spec.kernel_name()},
      {"LLM", FormatLlm(spec.llm())},
      {"Questions", QuestionModeLabel(spec.questions())},
      {"State", absl::StrCat(SessionStateLabel(session.state()),
                             session.status().empty() ? "" : absl::StrCat(": ", session.status()))},
      {"Steps", absl::StrCat(session.steps())},
      {"Best",
       session.best_version().empty()
           ? "none counted"
           : absl::StrCat(session.best_version(), " at ", FormatSpeedup(session.best_speedup()))},
      {"Events", absl::StrCat(events.size())},
  };
  for (const auto& [name, value] : fields) absl::StrAppend(&out, "- **", name, "**: ", value, "\n");
  absl::StrAppend(&out, "\n");
  for (const SessionEvent& event : events) absl::StrAppend(&out, MarkdownEvent(event));
  return out;
}

}  // namespace kseek
