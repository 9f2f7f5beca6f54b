#include "server/llm/openai_client.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "server/llm/chat_json.h"

namespace kseek::llm {
namespace {

using nlohmann::json;

absl::StatusOr<json> BuildRequestBody(const std::string& model, const ChatRequest& request) {
  json messages = json::array();
  for (const ChatMessage& m : request.messages) {
    json out = {{"role", ChatRoleName(m.role)}};
    switch (m.role) {
      case ChatRole::kSystem:
      case ChatRole::kUser:
        out["content"] = m.content;
        break;
      case ChatRole::kAssistant:
        // Servers reject an empty string beside tool calls; null is the form
        // OpenAI itself returns.
        out["content"] =
            m.content.empty() && !m.tool_calls.empty() ? json(nullptr) : json(m.content);
        if (!m.tool_calls.empty()) {
          json calls = json::array();
          for (const ToolCall& call : m.tool_calls) {
            calls.push_back({{"id", call.id},
                             {"type", "function"},
                             {"function", {{"name", call.name}, {"arguments", call.arguments}}}});
          }
          out["tool_calls"] = std::move(calls);
        }
        break;
      case ChatRole::kTool:
        out["tool_call_id"] = m.tool_call_id;
        out["content"] = m.content;
        break;
    }
    messages.push_back(std::move(out));
  }
  json body = {{"model", model}, {"messages", std::move(messages)}};
  if (!request.tools.empty()) {
    json tools = json::array();
    for (const ToolDefinition& tool : request.tools) {
      absl::StatusOr<json> schema = ToolParametersJson(tool);
      if (!schema.ok()) return schema.status();
      tools.push_back({{"type", "function"},
                       {"function",
                        {{"name", tool.name},
                         {"description", tool.description},
                         {"parameters", *std::move(schema)}}}});
    }
    body["tools"] = std::move(tools);
  }
  if (request.max_output_tokens > 0) body["max_tokens"] = request.max_output_tokens;
  return body;
}

StopReason StopReasonOf(const json& finish_reason) {
  if (!finish_reason.is_string()) return StopReason::kOther;
  const std::string reason = finish_reason.get<std::string>();
  if (reason == "stop") return StopReason::kEndTurn;
  if (reason == "tool_calls" || reason == "function_call") return StopReason::kToolUse;
  if (reason == "length") return StopReason::kMaxTokens;
  return StopReason::kOther;
}

absl::StatusOr<ChatResponse> ParseReply(const json& reply) {
  // Accessors throw on a missing field or a wrong type; caught below, so an
  // odd reply is an error, never a crash.
  try {
    const json& choices = reply.at("choices");
    if (!choices.is_array() || choices.empty()) {
      return absl::FailedPreconditionError("reply has no choices");
    }
    const json& choice = choices.at(0);
    const json& message = choice.at("message");
    ChatResponse response;
    response.message.role = ChatRole::kAssistant;
    if (auto content = message.find("content"); content != message.end() && content->is_string()) {
      response.message.content = content->get<std::string>();
    }
    if (auto calls = message.find("tool_calls"); calls != message.end() && calls->is_array()) {
      for (size_t i = 0; i < calls->size(); ++i) {
        const json& call = (*calls)[i];
        const json& function = call.at("function");
        ToolCall out;
        // Some local servers omit the id; the agent loop still needs one to
        // pair the result with the call.
        out.id = call.contains("id") && call["id"].is_string() ? call["id"].get<std::string>()
                                                               : absl::StrCat("call_", i);
        out.name = function.at("name").get<std::string>();
        // The API sends arguments as JSON text; some servers send the object.
        const json& arguments = function.value("arguments", json(""));
        out.arguments = arguments.is_string() ? arguments.get<std::string>() : arguments.dump();
        response.message.tool_calls.push_back(std::move(out));
      }
    }
    response.stop_reason = StopReasonOf(choice.value("finish_reason", json(nullptr)));
    // Some servers report "stop" beside tool calls; the calls decide.
    if (!response.message.tool_calls.empty()) response.stop_reason = StopReason::kToolUse;
    if (auto usage = reply.find("usage"); usage != reply.end() && usage->is_object()) {
      response.usage.input_tokens = usage->value("prompt_tokens", int64_t{0});
      response.usage.output_tokens = usage->value("completion_tokens", int64_t{0});
    }
    response.model = reply.value("model", "");
    return response;
  } catch (const json::exception& e) {
    return absl::FailedPreconditionError(absl::StrCat("unexpected reply shape: ", e.what()));
  }
}

}  // namespace

OpenAiClient::OpenAiClient(LlmEndpointConfig config, HttpClient* http, const Clock* clock,
                           SleepFunction sleep)
    : endpoint_(std::move(config), "/chat/completions", {"Authorization", "Bearer "}, {}, http,
                clock, std::move(sleep)) {}

absl::StatusOr<ChatResponse> OpenAiClient::Complete(const ChatRequest& request) {
  absl::StatusOr<json> body = BuildRequestBody(endpoint_.config().model, request);
  if (!body.ok()) return body.status();
  absl::StatusOr<json> reply = endpoint_.Post(*body, request.cancel);
  if (!reply.ok()) return reply.status();
  absl::StatusOr<ChatResponse> response = ParseReply(*reply);
  if (!response.ok()) return endpoint_.ReplyError(response.status());
  return response;
}

}  // namespace kseek::llm
