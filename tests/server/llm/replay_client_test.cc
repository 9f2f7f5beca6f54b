#include "server/llm/replay_client.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "server/llm/chat_json.h"

namespace kseek::llm {
namespace {

using nlohmann::json;

ChatResponse TurnCallingCompile() {
  ChatResponse turn;
  turn.message = AssistantMessage("Compiling.", {{"call_1", "compile", R"({"path":"k.cu"})"}});
  turn.stop_reason = StopReason::kToolUse;
  turn.usage = {1500, 40};
  turn.model = "recorded-model";
  return turn;
}

ChatResponse TurnFinishing() {
  ChatResponse turn;
  turn.message = AssistantMessage("Done.");
  turn.usage = {1700, 5};
  return turn;
}

TEST_CASE("chat JSON round-trips messages and responses") {
  ChatMessage tool_result = ToolResultMessage("call_1", "no such file", /*is_error=*/true);
  CHECK(ChatMessageFromJson(ChatMessageToJson(tool_result)).value() == tool_result);
  CHECK(ChatResponseFromJson(ChatResponseToJson(TurnCallingCompile())).value() ==
        TurnCallingCompile());
  absl::Status bad = ChatMessageFromJson(json{{"role", "wizard"}}).status();
  CHECK(bad.code() == absl::StatusCode::kInvalidArgument);
  CHECK(bad.message().find("wizard") != absl::string_view::npos);
  CHECK(ChatResponseFromJson(json{{"message", 3}}).status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("ReplayLlmClient returns the recorded model turns in order, skipping other events") {
  const std::string trace =
      json{{"seq", 1}, {"kind", "user_message"}, {"payload", {{"text", "go"}}}}.dump() + "\n" +
      json{{"seq", 2},
           {"kind", kModelTurnEventKind},
           {"payload", ChatResponseToJson(TurnCallingCompile())}}
          .dump() +
      "\n" + json{{"seq", 3}, {"kind", "tool_result"}, {"payload", {{"text", "ok"}}}}.dump() +
      "\n\n" +
      json{{"seq", 4},
           {"kind", kModelTurnEventKind},
           {"payload", ChatResponseToJson(TurnFinishing())}}
          .dump() +
      "\n";
  absl::StatusOr<std::unique_ptr<ReplayLlmClient>> replay =
      ReplayLlmClient::FromJsonl(trace, "session.jsonl");
  INFO(replay.status().ToString());
  REQUIRE(replay.ok());
  CHECK((*replay)->Complete({}).value() == TurnCallingCompile());
  CHECK((*replay)->Complete({}).value() == TurnFinishing());
  absl::Status done = (*replay)->Complete({}).status();
  CHECK(done.code() == absl::StatusCode::kOutOfRange);
  CHECK(done.message().find("session.jsonl has only 2 model turns") != absl::string_view::npos);
}

TEST_CASE("the checked-in exported H200 trace replays its model turns") {
  absl::StatusOr<std::unique_ptr<ReplayLlmClient>> replay = ReplayLlmClient::FromFile(
      std::string(KSEEK_SOURCE_DIR) + "/docs/sessions/h200_replay_trace_export.jsonl", "h200.jsonl", 1 << 20);
  INFO(replay.status().ToString());
  REQUIRE(replay.ok());
  absl::StatusOr<ChatResponse> first = (*replay)->Complete({});
  REQUIRE(first.ok());
  CHECK(first->message.role == ChatRole::kAssistant);
  CHECK(first->message.content == "Let me see what the workspace holds.");
  REQUIRE(first->message.tool_calls.size() == 1);
  CHECK(first->message.tool_calls[0].name == "list_files");
  CHECK(first->stop_reason == StopReason::kToolUse);
  ChatResponse last;
  for (int turn = 2; turn <= 5; ++turn) {
    absl::StatusOr<ChatResponse> next = (*replay)->Complete({});
    REQUIRE(next.ok());
    last = *next;
  }
  REQUIRE(last.message.tool_calls.size() == 1);
  CHECK(last.message.tool_calls[0].name == "finish");
  CHECK((*replay)->Complete({}).status().code() == absl::StatusCode::kOutOfRange);
}

TEST_CASE("ReplayLlmClient rejects a broken trace with the line number") {
  const std::string bad_line =
      json{{"kind", kModelTurnEventKind}, {"payload", ChatResponseToJson(TurnFinishing())}}.dump() +
      "\n{truncated\n";
  absl::Status status = ReplayLlmClient::FromJsonl(bad_line, "t.jsonl").status();
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK(status.message() == "t.jsonl:2: not a JSON object");

  const std::string bad_turn =
      json{{"kind", kModelTurnEventKind},
           {"payload", {{"message", {{"role", "assistant"}, {"tool_calls", 7}}}}}}
          .dump();
  status = ReplayLlmClient::FromJsonl(bad_turn, "t.jsonl").status();
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK(status.message().rfind("t.jsonl:1: ", 0) == 0);

  status = ReplayLlmClient::FromJsonl(R"({"kind": "tool_result"})", "t.jsonl").status();
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK(ReplayLlmClient::FromFile("/nonexistent/trace.jsonl", "trace.jsonl", 1 << 20).status().code() ==
        absl::StatusCode::kNotFound);
}

TEST_CASE("FromFile reads only regular files within the size cap") {
  // /dev/zero once grew the server to 1 GB in one request.
  absl::Status device = ReplayLlmClient::FromFile("/dev/zero", "zero", 1 << 20).status();
  CHECK(device.code() == absl::StatusCode::kInvalidArgument);
  CHECK(device.message() == "replay trace zero is not a regular file");

  char pattern[] = "/tmp/kseek-replay-XXXXXX";
  const int fd = mkstemp(pattern);
  REQUIRE(fd >= 0);
  const std::string line =
      json{{"kind", kModelTurnEventKind}, {"payload", ChatResponseToJson(TurnFinishing())}}.dump() + "\n";
  REQUIRE(write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()));
  close(fd);
  CHECK(ReplayLlmClient::FromFile(pattern, "t.jsonl", line.size()).ok());
  absl::Status big = ReplayLlmClient::FromFile(pattern, "t.jsonl", line.size() - 1).status();
  CHECK(big.code() == absl::StatusCode::kInvalidArgument);
  CHECK(big.message().find("the limit is") != absl::string_view::npos);

  // A link is not followed (it could point anywhere).
  const std::string link = std::string(pattern) + ".link";
  REQUIRE(symlink(pattern, link.c_str()) == 0);
  CHECK(!ReplayLlmClient::FromFile(link, "link.jsonl", 1 << 20).ok());
  unlink(link.c_str());
  unlink(pattern);
}

}  // namespace
}  // namespace kseek::llm
