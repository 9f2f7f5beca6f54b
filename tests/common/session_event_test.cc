#include "common/session_event.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

namespace kseek {
namespace {

using kernelseek::v1::SessionEvent;
using nlohmann::json;

SessionEvent Row(const std::string& kind, const std::string& payload) {
  SessionEvent event;
  event.set_kind(kind);
  event.set_payload_json(payload);
  return event;
}

// A row as written before events were typed reads into its body, and the
// body writes the same row back, byte for byte.
SessionEvent RoundTrip(const std::string& kind, const std::string& payload) {
  SessionEvent event = Row(kind, payload);
  absl::Status s = SetBodyFromPayload(&event);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(std::string(EventKindName(event.body_case())) == kind);
  SessionEvent again = event;
  again.clear_kind();
  again.clear_payload_json();
  SetKindAndPayload(&again);
  CHECK(again.kind() == kind);
  CHECK(again.payload_json() == payload);
  return event;
}

TEST_CASE("rows in the format of existing databases read into typed bodies and write back unchanged",
          "[session_event]") {
  SECTION("prompt") {
    SessionEvent e = RoundTrip("prompt", R"({"system":"You are improving...","user":"Begin: read k.cu"})");
    CHECK(e.prompt().system() == "You are improving...");
    CHECK(e.prompt().user() == "Begin: read k.cu");
  }
  SECTION("model_message with tool calls") {
    SessionEvent e = RoundTrip(
        "model_message",
        R"({"message":{"content":"Let me look.","role":"assistant","tool_calls":[{"arguments":"{\"path\":\"k.cu\"}",)"
        R"("id":"call_1","name":"read_file"}]},"model":"gpt-x","stop_reason":"tool_use",)"
        R"("usage":{"input_tokens":120,"output_tokens":30}})");
    const kernelseek::v1::ModelMessageEvent& m = e.model_message();
    CHECK(m.content() == "Let me look.");
    REQUIRE(m.tool_calls_size() == 1);
    CHECK(m.tool_calls(0).name() == "read_file");
    CHECK(m.tool_calls(0).arguments() == R"({"path":"k.cu"})");
    CHECK(m.stop_reason() == "tool_use");
    CHECK(m.model() == "gpt-x");
    CHECK(m.input_tokens() == 120);
    CHECK(m.output_tokens() == 30);
  }
  SECTION("model_message without tool calls") {
    SessionEvent e = RoundTrip("model_message",
                               R"({"message":{"content":"Done.","role":"assistant"},"model":"m",)"
                               R"("stop_reason":"end_turn","usage":{"input_tokens":0,"output_tokens":0}})");
    CHECK(e.model_message().tool_calls().empty());
  }
  SECTION("tool_call") {
    SessionEvent e = RoundTrip("tool_call", R"({"arguments":"{}","id":"call_1","name":"list_files"})");
    CHECK(e.tool_call().name() == "list_files");
  }
  SECTION("tool_result with and without a speedup") {
    SessionEvent benched = RoundTrip(
        "tool_result",
        R"({"content":"bench ok","id":"c4","is_error":false,"name":"bench","signal":"benched","speedup":0.9711766194469788})");
    REQUIRE(benched.tool_result().has_speedup());
    CHECK(benched.tool_result().speedup() == 0.9711766194469788);
    CHECK(benched.tool_result().signal() == "benched");
    SessionEvent failed = RoundTrip(
        "tool_result", R"({"content":"no such file","id":"c1","is_error":true,"name":"read_file","signal":"none"})");
    CHECK_FALSE(failed.tool_result().has_speedup());
    CHECK(failed.tool_result().is_error());
  }
  SECTION("question from each source") {
    SessionEvent human = RoundTrip("question",
                                   R"({"best_speedup_before":0.9,"from":"ana","message_seq":7,)"
                                   R"("prompt":"A message from ana: Hi","source":"human","text":"Hi","trigger":""})");
    CHECK(human.question().message_seq() == 7);
    CHECK(human.question().from() == "ana");
    CHECK_FALSE(human.question().has_question_id());
    SessionEvent bank = RoundTrip("question",
                                  R"({"best_speedup_before":0.0,"prompt":"Decision point (a large gain). Question: Q?",)"
                                  R"("question_id":"unseen_layer","source":"bank","text":"Q?","trigger":"large_gain"})");
    CHECK(bank.question().question_id() == "unseen_layer");
    CHECK_FALSE(bank.question().has_message_seq());
    RoundTrip("question", R"({"best_speedup_before":1.25,"prompt":"P","source":"self","text":"P","trigger":"plateau"})");
  }
  SECTION("policy_decision with a question and with a reason") {
    SessionEvent asked = RoundTrip("policy_decision",
                                   R"({"action":"bank_question","layer":"LAYER_MEASUREMENT","mode":"bank",)"
                                   R"("question_id":"unseen_layer","trigger":"plateau"})");
    CHECK(asked.policy_decision().action() == "bank_question");
    SessionEvent none = RoundTrip("policy_decision",
                                  R"({"action":"none","layer":"LAYER_UNSPECIFIED","mode":"bank",)"
                                  R"("reason":"question bank has no question for trigger TRIGGER_LARGE_GAIN","trigger":"large_gain"})");
    CHECK(none.policy_decision().has_reason());
    CHECK_FALSE(none.policy_decision().has_question_id());
  }
  SECTION("kernel_version in both shapes") {
    SessionEvent edited = RoundTrip("kernel_version", R"({"parent":"","status":"edited","version":"1"})");
    CHECK(edited.kernel_version().has_parent());
    CHECK_FALSE(edited.kernel_version().has_counted());
    SessionEvent benched = RoundTrip(
        "kernel_version", R"({"counted":true,"geomean_speedup":0.9711766194469788,"status":"benchmarked","version":"1"})");
    CHECK_FALSE(benched.kernel_version().has_parent());
    CHECK(benched.kernel_version().counted());
    RoundTrip("kernel_version", R"({"counted":false,"status":"compiled","version":"2"})");
  }
  SECTION("the other kinds") {
    CHECK(RoundTrip("state_change", R"({"state":"STOPPED","status":"stopped by ana"})").state_change().state() ==
          "STOPPED");
    CHECK(RoundTrip("human_message", R"({"text":"What did the profiler say?"})").human_message().text() ==
          "What did the profiler say?");
    CHECK(RoundTrip("harness_message", R"({"text":"No tool was called."})").harness_message().text() ==
          "No tool was called.");
    CHECK(RoundTrip("skipped_turn", R"({"error":"reply too large"})").skipped_turn().error() == "reply too large");
    CHECK(RoundTrip("llm_call_aborted",
                    R"({"reason":"the server is shutting down","resumes":"at the next start of the server"})")
              .llm_call_aborted()
              .reason() == "the server is shutting down");
  }
}

TEST_CASE("every event of the checked-in exported trace reads into a body that writes the same payload",
          "[session_event]") {
  std::ifstream in(std::string(KSEEK_SOURCE_DIR) + "/docs/sessions/h200_replay_trace_export.jsonl");
  REQUIRE(in.good());
  std::string line;
  int events = 0;
  while (std::getline(in, line)) {
    json exported = json::parse(line);
    SessionEvent event;
    REQUIRE(SetBodyFromJson(exported["kind"], exported["payload"], &event).ok());
    INFO(line);
    REQUIRE(std::string(EventKindName(event.body_case())) == exported["kind"].get<std::string>());
    SetKindAndPayload(&event);
    CHECK(event.payload_json() == exported["payload"].dump());
    ++events;
  }
  CHECK(events == 22);
}

TEST_CASE("an event of an unknown kind keeps its own payload and has no body", "[session_event]") {
  SessionEvent note = Row("note", R"({"b":1,"a":2})");
  REQUIRE(SetBodyFromPayload(&note).ok());
  CHECK(note.body_case() == SessionEvent::BODY_NOT_SET);
  SetKindAndPayload(&note);
  CHECK(note.kind() == "note");
  CHECK(note.payload_json() == R"({"b":1,"a":2})");
  CHECK(BodyToJson(note) == json::object());
}

TEST_CASE("a broken payload of a known kind is an error naming the kind", "[session_event]") {
  SessionEvent not_json = Row("tool_result", "{truncated");
  absl::Status s = SetBodyFromPayload(&not_json);
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(s.message()), Catch::StartsWith("tool_result:"));
  CHECK(not_json.body_case() == SessionEvent::BODY_NOT_SET);

  SessionEvent not_object = Row("question", "[1,2]");
  CHECK(SetBodyFromPayload(&not_object).code() == absl::StatusCode::kInvalidArgument);

  // A model turn is replayed to the model, so its shape is checked.
  SessionEvent bad_calls = Row("model_message", R"({"message":{"role":"assistant","tool_calls":7}})");
  s = SetBodyFromPayload(&bad_calls);
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(s.message()), Catch::Contains("tool_calls"));
  SessionEvent no_message = Row("model_message", R"({"stop_reason":"end_turn"})");
  CHECK(SetBodyFromPayload(&no_message).code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("fields of another JSON type read as unset rather than failing", "[session_event]") {
  SessionEvent odd = Row("tool_result", R"({"content":5,"id":"c1","is_error":"yes","name":"bench","speedup":"fast"})");
  REQUIRE(SetBodyFromPayload(&odd).ok());
  CHECK(odd.tool_result().content().empty());
  CHECK_FALSE(odd.tool_result().is_error());
  CHECK_FALSE(odd.tool_result().has_speedup());
  CHECK(odd.tool_result().signal() == "none");
}

}  // namespace
}  // namespace kseek
