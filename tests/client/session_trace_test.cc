#include "client/session_trace.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/session_event.h"
#include "tests/client/session_test_data.h"

namespace kseek {
namespace {

using kernelseek::v1::SessionEvent;
using testing::MakeEvent;
using testing::MakeTrace;

std::string WatchText(const std::vector<SessionEvent>& events, EventLineOptions options = {}) {
  std::string out;
  for (const SessionEvent& event : events) out += FormatEventLines(event, options);
  return out;
}

TEST_CASE("watch prints one readable line or a few per event") {
  CHECK(WatchText(MakeTrace()) ==
        "#1 03:04:01 state_change harness: running: started\n"
        "#2 03:04:02 model_message model: I will read the kernel first.\n"
        "    Then compile it.\n"
        "    → calls read_file\n"
        "#3 03:04:03 tool_call model: edit_file(path=\"naive.cu\", search=\"for (int i = 0;\", "
        "replace=\"#pragma unroll⏎for (int i = 0;\")\n"
        "#4 03:04:04 tool_result harness: ok compile: compiled\n"
        "    registers 128\n"
        "    spills 0\n"
        "    … (2 more lines)\n"
        "#5 03:04:05 kernel_version harness: v3 (from v1) benchmarked 1.04x 446.0 TFLOP/s\n"
        "#6 03:04:06 question policy: QUESTION (plateau, bank): Which layer of the system have "
        "you not looked at yet?\n"
        "#7 03:04:07 human_message alice: MESSAGE: What measurement shows that is the ceiling?\n"
        "#8 03:04:08 policy_decision policy: decision=ask trigger=claimed_limit: the model "
        "claimed memory-bound\n"
        "#9 03:04:09 state_change harness: succeeded: goal met at v3\n");
}

TEST_CASE("watch lines use the given time zone") {
  EventLineOptions options;
  options.zone = absl::FixedTimeZone(2 * 3600);
  CHECK(absl::StartsWith(WatchText({MakeTrace()[0]}, options), "#1 05:04:01 state_change"));
}

TEST_CASE("watch cuts long model text and long tool output, saying so") {
  std::string long_line(500, 'x');
  std::string many_lines;
  for (int i = 0; i < 50; ++i) absl::StrAppend(&many_lines, "line ", i, "\\n");
  SessionEvent model =
      MakeEvent(10, "model_message", "model",
                absl::StrCat(R"({"message":{"role":"assistant","content":")", long_line, R"("}})"));
  SessionEvent result = MakeEvent(
      11, "tool_result", "harness",
      absl::StrCat(R"({"name":"show_sass","content":")", many_lines, R"(","is_error":true})"));
  EventLineOptions options;
  options.max_line_chars = 20;
  options.max_text_lines = 2;
  CHECK(WatchText({model, result}, options) ==
        "#10 03:04:10 model_message model: xxxxxxxxxxxxxxxxxxxx…\n"
        "#11 03:04:11 tool_result harness: error show_sass: line 0\n"
        "    line 1\n"
        "    … (48 more lines)\n");
}

TEST_CASE("watch highlights questions and human messages on a terminal only") {
  EventLineOptions options;
  options.color = true;
  std::vector<SessionEvent> trace = MakeTrace();
  CHECK(absl::StartsWith(FormatEventLines(trace[5], options), "\033[1;33m#6 "));
  CHECK(absl::EndsWith(FormatEventLines(trace[5], options), "\033[0m\n"));
  CHECK(absl::StartsWith(FormatEventLines(trace[6], options), "\033[1;36m#7 "));
  CHECK(!absl::StrContains(FormatEventLines(trace[3], options), "\033["));
  CHECK(!absl::StrContains(WatchText(trace), "\033["));
}

TEST_CASE("watch shows malformed, empty and unknown payloads instead of failing") {
  CHECK(WatchText({MakeEvent(1, "tool_call", "model",
                             R"({"name":"edit_file","arguments":"{\"path\": \"k.cu\""})")}) ==
        "#1 03:04:01 tool_call model: edit_file({\"path\": \"k.cu\")\n");
  CHECK(WatchText({MakeEvent(2, "model_message", "model", "not json")}) ==
        "#2 03:04:02 model_message model: not json\n");
  CHECK(WatchText({MakeEvent(3, "model_message", "", "")}) ==
        "#3 03:04:03 model_message -: (no text)\n");
  CHECK(WatchText({MakeEvent(4, "usage_report", "harness", R"({"tokens":12})")}) ==
        "#4 03:04:04 usage_report harness: {\"tokens\":12}\n");
}

TEST_CASE("the jsonl export is one JSON object per event with the payload parsed") {
  std::string jsonl;
  for (const SessionEvent& event : MakeTrace()) jsonl += EventToJsonLine(event);
  std::vector<std::string> lines = absl::StrSplit(jsonl, '\n', absl::SkipEmpty());
  REQUIRE(lines.size() == 9);
  for (size_t i = 0; i < lines.size(); ++i) {
    nlohmann::json event = nlohmann::json::parse(lines[i]);
    CHECK(event["seq"] == static_cast<int>(i + 1));
    CHECK(event["session_id"] == "s1");
    CHECK(event["payload"].is_object());
  }
  nlohmann::json model = nlohmann::json::parse(lines[1]);
  CHECK(model["time"] == "2025-01-02T03:04:02.000Z");
  CHECK(model["kind"] == "model_message");
  CHECK(model["author"] == "model");
  // The replay provider reads model turns from exactly this shape.
  CHECK(model["payload"]["message"]["tool_calls"][0]["name"] == "read_file");
  CHECK(model["payload"]["usage"]["output_tokens"] == 30);

  nlohmann::json raw = nlohmann::json::parse(EventToJsonLine(MakeEvent(3, "x", "y", "oops {")));
  CHECK(raw["payload"] == "oops {");
}

TEST_CASE("the markdown transcript has a heading per event and code blocks for tools") {
  std::string md = FormatTraceMarkdown(testing::MakeSessionDetails().session(), MakeTrace());
  CHECK(absl::StartsWith(md,
                         "# KernelSeek session s1\n\n"
                         "- **Goal**: attention_fwd on sm_90a: 1.10x cudnn\n"));
  CHECK(absl::StrContains(md, "- **Events**: 9\n"));
  CHECK(absl::StrContains(md,
                          "## #2 Model\n\n*model, 2025-01-02 03:04:02 UTC*\n\n"
                          "I will read the kernel first.\nThen compile it.\n\n"
                          "Calls `read_file`:\n\n```json\n{\n  \"path\": \"naive.cu\"\n}\n```\n"));
  CHECK(absl::StrContains(md,
                          "## #3 Tool call `edit_file`\n\n*model, 2025-01-02 03:04:03 UTC*\n\n"
                          "```json\n{\n  \"path\": \"naive.cu\",\n"));
  // Results are whole in the export, unlike in watch.
  CHECK(absl::StrContains(md,
                          "## #4 Tool result `compile`\n\n*harness, 2025-01-02 03:04:04 UTC*"
                          "\n\n```\ncompiled\nregisters 128\nspills 0\nsmem 48 KiB\nHGMMA 64\n"
                          "```\n"));
  CHECK(absl::StrContains(md,
                          "## #6 Question (plateau, bank)\n\n*policy, 2025-01-02 03:04:06 UTC*"
                          "\n\n> Which layer of the system have you not looked at yet?\n"));
  CHECK(absl::StrContains(md, "## #7 Human message\n\n*alice,"));
  CHECK(absl::StrContains(md, "## #9 State: succeeded\n"));
}

TEST_CASE("an event with a typed body reads as its stored payload does", "[session_trace]") {
  // Rows as the server stores them; the same events as a current server sends
  // them, with the typed body, must show and export byte for byte the same.
  std::vector<SessionEvent> stored = {
      MakeEvent(1, "model_message", "model",
                R"({"message":{"content":"Let me look.","role":"assistant","tool_calls":[{"arguments":)"
                R"("{\"path\":\"k.cu\"}","id":"c1","name":"read_file"}]},"model":"m","stop_reason":"tool_use",)"
                R"("usage":{"input_tokens":3,"output_tokens":4}})"),
      MakeEvent(2, "tool_result", "harness",
                R"({"content":"bench ok","id":"c1","is_error":false,"name":"bench","signal":"benched","speedup":1.25})"),
      MakeEvent(3, "kernel_version", "harness",
                R"({"counted":true,"geomean_speedup":1.25,"status":"benchmarked","version":"2"})"),
      MakeEvent(4, "policy_decision", "policy",
                R"({"action":"none","layer":"LAYER_ALGORITHM","mode":"bank","reason":"no question",)"
                R"("trigger":"large_gain"})"),
      MakeEvent(5, "question", "policy",
                R"({"best_speedup_before":1.25,"prompt":"Decision point. Question: Q?","question_id":"q",)"
                R"("source":"bank","text":"Q?","trigger":"plateau"})"),
  };
  std::vector<SessionEvent> typed;
  for (SessionEvent event : stored) {
    REQUIRE(SetBodyFromPayload(&event).ok());
    REQUIRE(event.body_case() != SessionEvent::BODY_NOT_SET);
    event.clear_payload_json();
    typed.push_back(event);
  }
  for (size_t i = 0; i < stored.size(); ++i) {
    INFO(stored[i].kind());
    CHECK(FormatEventLines(typed[i], {}) == FormatEventLines(stored[i], {}));
    CHECK(EventToJsonLine(typed[i]) == EventToJsonLine(stored[i]));
  }
  CHECK(FormatTraceMarkdown(testing::MakeSessionDetails().session(), typed) ==
        FormatTraceMarkdown(testing::MakeSessionDetails().session(), stored));
}

TEST_CASE("a tool result holding a code fence gets a longer fence") {
  SessionEvent result = MakeEvent(1, "tool_result", "harness",
                                  R"({"name":"read_file","content":"```cpp\nint x;\n```"})");
  std::string md = FormatTraceMarkdown(testing::MakeSessionDetails().session(), {result});
  CHECK(absl::StrContains(md, "\n````\n```cpp\nint x;\n```\n````\n"));
}

}  // namespace
}  // namespace kseek
