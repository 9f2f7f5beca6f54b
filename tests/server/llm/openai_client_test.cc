#include "server/llm/openai_client.h"

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

constexpr char kKey[] = "sk-test-openai-0123456789abcdef";

LlmEndpointConfig Config() {
  LlmEndpointConfig config;
  config.base_url = "https://llm.example/v1";
  config.model = "test-model";
  config.api_key = kKey;
  return config;
}

ChatRequest ConversationWithToolRound() {
  ChatRequest request;
  request.messages = {
      SystemMessage("You optimize kernels."),
      UserMessage("Make it faster."),
      AssistantMessage("", {{"call_1", "compile", R"({"path":"k.cu"})"}}),
      ToolResultMessage("call_1", "ok: 0 errors"),
  };
  request.tools = {
      {"compile", "Compile a kernel file.",
       R"({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]})"}};
  return request;
}

TEST_CASE("OpenAiClient sends the chat-completions request shape with tools") {
  FakeHttpClient http;
  FakeClock clock;
  http.RespondJson(
      200,
      {{"choices",
        {{{"message", {{"role", "assistant"}, {"content", "hi"}}}, {"finish_reason", "stop"}}}}});
  OpenAiClient client(Config(), &http, &clock);
  ChatRequest request = ConversationWithToolRound();
  request.max_output_tokens = 1000;
  REQUIRE(client.Complete(request).ok());

  REQUIRE(http.requests().size() == 1);
  CHECK(http.requests()[0].url == "https://llm.example/v1/chat/completions");
  CHECK(http.LastHeader("Authorization") == std::string("Bearer ") + kKey);
  const json body = http.LastBody();
  CHECK(body["model"] == "test-model");
  CHECK(body["max_tokens"] == 1000);
  CHECK(body["messages"] == json::parse(R"([
    {"role": "system", "content": "You optimize kernels."},
    {"role": "user", "content": "Make it faster."},
    {"role": "assistant", "content": null, "tool_calls": [
      {"id": "call_1", "type": "function",
       "function": {"name": "compile", "arguments": "{\"path\":\"k.cu\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "ok: 0 errors"}])"));
  CHECK(body["tools"] == json::parse(R"([{"type": "function", "function": {
    "name": "compile", "description": "Compile a kernel file.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                   "required": ["path"]}}}])"));
}

TEST_CASE("OpenAiClient omits the output limit and the key when none is configured") {
  FakeHttpClient http;
  FakeClock clock;
  http.RespondJson(200, {{"choices", {{{"message", {{"content", "hi"}}}}}}});
  LlmEndpointConfig config = Config();
  config.api_key = "";
  OpenAiClient client(config, &http, &clock);
  REQUIRE(client.Complete(RequestOf({UserMessage("hello")})).ok());
  CHECK_FALSE(http.LastBody().contains("max_tokens"));
  CHECK_FALSE(http.LastBody().contains("tools"));
  CHECK(http.LastHeader("Authorization").empty());
}

TEST_CASE("OpenAiClient parses tool calls, usage and the stop reason") {
  FakeHttpClient http;
  FakeClock clock;
  http.Respond(200, R"({"id": "chatcmpl-1", "model": "test-model-2025",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
      "role": "assistant", "content": null, "tool_calls": [
        {"id": "call_a", "type": "function",
         "function": {"name": "read_file", "arguments": "{\"path\": \"k.cu\"}"}},
        {"id": "call_b", "type": "function",
         "function": {"name": "edit", "arguments": "{not json"}}]}}],
    "usage": {"prompt_tokens": 1200, "completion_tokens": 34, "total_tokens": 1234}})");
  OpenAiClient client(Config(), &http, &clock);
  absl::StatusOr<ChatResponse> response = client.Complete(RequestOf({UserMessage("go")}));
  INFO(response.status().ToString());
  REQUIRE(response.ok());
  CHECK(response->message.role == ChatRole::kAssistant);
  CHECK(response->message.content.empty());
  // Malformed arguments are kept verbatim: the agent loop tells the model.
  CHECK(response->message.tool_calls ==
        std::vector<ToolCall>{{"call_a", "read_file", R"({"path": "k.cu"})"},
                              {"call_b", "edit", "{not json"}});
  CHECK(response->stop_reason == StopReason::kToolUse);
  CHECK(response->usage == TokenUsage{1200, 34});
  CHECK(response->model == "test-model-2025");
}

TEST_CASE("OpenAiClient reports a reply it cannot read as FAILED_PRECONDITION, not a crash") {
  FakeClock clock;
  auto complete_with = [&](const std::string& body) {
    FakeHttpClient http;
    http.Respond(200, body);
    OpenAiClient client(Config(), &http, &clock);
    return client.Complete(RequestOf({UserMessage("go")})).status();
  };
  absl::Status html = complete_with("<html>Welcome to nginx</html>");
  CHECK(html.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(html.message().find("not JSON") != absl::string_view::npos);
  CHECK(html.message().find("Welcome to nginx") != absl::string_view::npos);

  absl::Status no_choices = complete_with(R"({"object": "list", "data": []})");
  CHECK(no_choices.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(no_choices.message().find("https://llm.example/v1/chat/completions") !=
        absl::string_view::npos);

  absl::Status wrong_type = complete_with(R"({"choices": [{"message": {"tool_calls": [
      {"id": "c", "function": {"name": 42, "arguments": "{}"}}]}}]})");
  CHECK(wrong_type.code() == absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("OpenAiClient rejects a tool whose schema is not a JSON object") {
  FakeHttpClient http;
  FakeClock clock;
  OpenAiClient client(Config(), &http, &clock);
  ChatRequest request = RequestOf({UserMessage("go")}, {{"bench", "Benchmark.", "{oops"}});
  absl::Status status = client.Complete(request).status();
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK(status.message().find("bench") != absl::string_view::npos);
  CHECK(http.requests().empty());
}

}  // namespace
}  // namespace kseek::llm
