#include "server/llm/anthropic_client.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "common/clock.h"
#include "tests/server/llm/fake_http_client.h"

namespace kseek::llm {
namespace {

using nlohmann::json;

ChatRequest RequestOf(std::vector<ChatMessage> messages, std::vector<ToolDefinition> tools = {}) {
  ChatRequest request;
  request.messages = std::move(messages);
  request.tools = std::move(tools);
  return request;
}

constexpr char kKey[] = "sk-ant-test-0123456789abcdef";

LlmEndpointConfig Config() {
  LlmEndpointConfig config;
  config.base_url = "https://llm.example/v1";
  config.model = "claude-test";
  config.api_key = kKey;
  config.default_max_output_tokens = 4096;
  return config;
}

TEST_CASE("AnthropicClient sends the Messages request shape with tools and tool results") {
  FakeHttpClient http;
  FakeClock clock;
  http.RespondJson(
      200, {{"content", {{{"type", "text"}, {"text", "ok"}}}}, {"stop_reason", "end_turn"}});
  AnthropicClient client(Config(), &http, &clock);
  ChatRequest request;
  request.messages = {
      SystemMessage("You optimize kernels."),
      UserMessage("Make it faster."),
      AssistantMessage("Reading both.", {{"toolu_1", "read_file", R"({"path":"a.cu"})"},
                                         {"toolu_2", "read_file", R"({"path":"b.cu"})"}}),
      ToolResultMessage("toolu_1", "contents of a"),
      ToolResultMessage("toolu_2", "no such file", /*is_error=*/true),
      SystemMessage("Budget: half used."),
      UserMessage("Which layer have you not looked at?"),
  };
  request.tools = {{"read_file", "Read a file of the workspace.",
                    R"({"type":"object","properties":{"path":{"type":"string"}}})"}};
  REQUIRE(client.Complete(request).ok());

  CHECK(http.requests()[0].url == "https://llm.example/v1/messages");
  CHECK(http.LastHeader("x-api-key") == kKey);
  CHECK(http.LastHeader("anthropic-version") == "2023-06-01");
  CHECK(http.LastHeader("Authorization").empty());
  const json body = http.LastBody();
  CHECK(body["model"] == "claude-test");
  CHECK(body["max_tokens"] == 4096);
  CHECK(body["system"] == "You optimize kernels.\n\nBudget: half used.");
  // Tool results and the user text after them form one user turn, results
  // first, as the API requires; the arguments travel as objects.
  CHECK(body["messages"] == json::parse(R"([
    {"role": "user", "content": [{"type": "text", "text": "Make it faster."}]},
    {"role": "assistant", "content": [
      {"type": "text", "text": "Reading both."},
      {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.cu"}},
      {"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {"path": "b.cu"}}]},
    {"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "toolu_1", "content": "contents of a"},
      {"type": "tool_result", "tool_use_id": "toolu_2", "content": "no such file",
       "is_error": true},
      {"type": "text", "text": "Which layer have you not looked at?"}]}])"));
  CHECK(body["tools"] == json::parse(R"([{"name": "read_file",
    "description": "Read a file of the workspace.",
    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}])"));
}

TEST_CASE("AnthropicClient parses text and tool_use blocks, usage and the stop reason") {
  FakeHttpClient http;
  FakeClock clock;
  http.Respond(200, R"({"id": "msg_1", "type": "message", "role": "assistant",
    "model": "claude-test-2025", "stop_reason": "tool_use",
    "content": [
      {"type": "thinking", "thinking": "hmm", "signature": "x"},
      {"type": "text", "text": "Compiling."},
      {"type": "tool_use", "id": "toolu_9", "name": "compile", "input": {"path": "k.cu"}}],
    "usage": {"input_tokens": 100, "cache_read_input_tokens": 900, "output_tokens": 20}})");
  AnthropicClient client(Config(), &http, &clock);
  absl::StatusOr<ChatResponse> response = client.Complete(RequestOf({UserMessage("go")}));
  INFO(response.status().ToString());
  REQUIRE(response.ok());
  CHECK(response->message.content == "Compiling.");
  CHECK(response->message.tool_calls ==
        std::vector<ToolCall>{{"toolu_9", "compile", R"({"path":"k.cu"})"}});
  CHECK(response->stop_reason == StopReason::kToolUse);
  CHECK(response->usage == TokenUsage{1000, 20});
  CHECK(response->model == "claude-test-2025");
}

TEST_CASE("AnthropicClient maps an error body to a status with the API's message") {
  FakeHttpClient http;
  FakeClock clock;
  http.Respond(400, R"({"type": "error", "error": {"type": "invalid_request_error",
    "message": "messages.1: tool_use ids were found without tool_result blocks"}})");
  AnthropicClient client(Config(), &http, &clock);
  absl::Status status = client.Complete(RequestOf({UserMessage("go")})).status();
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK(status.message() ==
        "POST to https://llm.example/v1/messages: HTTP 400: messages.1: tool_use ids were found "
        "without tool_result blocks");
  CHECK(http.requests().size() == 1);  // a rejected request is not retried
}

TEST_CASE("AnthropicClient refuses tool-call arguments it cannot send as an object") {
  FakeHttpClient http;
  FakeClock clock;
  AnthropicClient client(Config(), &http, &clock);
  ChatRequest request =
      RequestOf({UserMessage("go"), AssistantMessage("", {{"toolu_1", "edit", "{broken"}}),
                 ToolResultMessage("toolu_1", "error", /*is_error=*/true)});
  absl::Status status = client.Complete(request).status();
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK(status.message().find("toolu_1") != absl::string_view::npos);
  CHECK(http.requests().empty());
}

}  // namespace
}  // namespace kseek::llm
