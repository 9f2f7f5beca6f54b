#include "server/llm/anthropic_client.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "server/llm/chat_json.h"
#include "common/untrusted_json.h"

namespace kseek::llm {
namespace {

using nlohmann::json;

// Appends `block` to the last turn if it has `role`, else starts a new turn:
// the API wants user and assistant turns to alternate.
void AppendBlock(json& messages, const char* role, json block) {
  if (messages.empty() || messages.back()["role"] != role) {
    messages.push_back({{"role", role}, {"content", json::array()}});
  }
  messages.back()["content"].push_back(std::move(block));
}

absl::StatusOr<json> BuildRequestBody(const LlmEndpointConfig& config, const ChatRequest& request) {
  std::string system;
  json messages = json::array();
  for (const ChatMessage& m : request.messages) {
    switch (m.role) {
      case ChatRole::kSystem:
        if (!system.empty()) system += "\n\n";
        system += m.content;
        break;
      case ChatRole::kUser:
        // The API rejects empty text blocks.
        if (!m.content.empty())
          AppendBlock(messages, "user", {{"type", "text"}, {"text", m.content}});
        break;
      case ChatRole::kTool: {
        json block = {
            {"type", "tool_result"}, {"tool_use_id", m.tool_call_id}, {"content", m.content}};
        if (m.is_error) block["is_error"] = true;
        AppendBlock(messages, "user", std::move(block));
        break;
      }
      case ChatRole::kAssistant:
        if (!m.content.empty()) {
          AppendBlock(messages, "assistant", {{"type", "text"}, {"text", m.content}});
        }
        for (const ToolCall& call : m.tool_calls) {
          json input = ParseUntrustedJson(call.arguments);
          if (!input.is_object()) {
            return absl::InvalidArgumentError(absl::StrCat(
                "tool call ", call.id, " (", call.name,
                ") has arguments that are not a JSON object, which the Messages API cannot "
                "carry: ",
                call.arguments));
          }
          AppendBlock(messages, "assistant",
                      {{"type", "tool_use"},
                       {"id", call.id},
                       {"name", call.name},
                       {"input", std::move(input)}});
        }
        break;
    }
  }
  json body = {{"model", config.model},
               {"max_tokens", request.max_output_tokens > 0 ? request.max_output_tokens
                                                            : config.default_max_output_tokens},
               {"messages", std::move(messages)}};
  if (!system.empty()) body["system"] = system;
  if (!request.tools.empty()) {
    json tools = json::array();
    for (const ToolDefinition& tool : request.tools) {
      absl::StatusOr<json> schema = ToolParametersJson(tool);
      if (!schema.ok()) return schema.status();
      tools.push_back({{"name", tool.name},
                       {"description", tool.description},
                       {"input_schema", *std::move(schema)}});
    }
    body["tools"] = std::move(tools);
  }
  return body;
}

StopReason StopReasonOf(const json& stop_reason) {
  if (!stop_reason.is_string()) return StopReason::kOther;
  const std::string reason = stop_reason.get<std::string>();
  if (reason == "end_turn" || reason == "stop_sequence") return StopReason::kEndTurn;
  if (reason == "tool_use") return StopReason::kToolUse;
  if (reason == "max_tokens") return StopReason::kMaxTokens;
  return StopReason::kOther;
}

absl::StatusOr<ChatResponse> ParseReply(const json& reply) {
  // Accessors throw on a missing field or a wrong type; caught below, so an
  // odd reply is an error, never a crash.
  try {
    const json& content = reply.at("content");
    if (!content.is_array()) return absl::FailedPreconditionError("reply content is not an array");
    ChatResponse response;
    response.message.role = ChatRole::kAssistant;
    for (const json& block : content) {
      const std::string type = block.at("type").get<std::string>();
      if (type == "text") {
        response.message.content += block.at("text").get<std::string>();
      } else if (type == "tool_use") {
        response.message.tool_calls.push_back({block.at("id").get<std::string>(),
                                               block.at("name").get<std::string>(),
                                               block.value("input", json::object()).dump()});
      }
      // Other block types (thinking, ...) carry nothing the agent loop uses.
    }
    response.stop_reason = StopReasonOf(reply.value("stop_reason", json(nullptr)));
    if (auto usage = reply.find("usage"); usage != reply.end() && usage->is_object()) {
      // Tokens read from or written to the prompt cache are input tokens too.
      response.usage.input_tokens = usage->value("input_tokens", int64_t{0}) +
                                    usage->value("cache_creation_input_tokens", int64_t{0}) +
                                    usage->value("cache_read_input_tokens", int64_t{0});
      response.usage.output_tokens = usage->value("output_tokens", int64_t{0});
    }
    response.model = reply.value("model", "");
    return response;
  } catch (const json::exception& e) {
    return absl::FailedPreconditionError(absl::StrCat("unexpected reply shape: ", e.what()));
  }
}

}  // namespace

AnthropicClient::AnthropicClient(LlmEndpointConfig config, HttpClient* http, const Clock* clock,
                                 SleepFunction sleep)
    : endpoint_(std::move(config), "/messages", {"x-api-key", ""},
                {{"anthropic-version", kApiVersion}}, http, clock, std::move(sleep)) {}

absl::StatusOr<ChatResponse> AnthropicClient::Complete(const ChatRequest& request) {
  absl::StatusOr<json> body = BuildRequestBody(endpoint_.config(), request);
  if (!body.ok()) return body.status();
  absl::StatusOr<json> reply = endpoint_.Post(*body, request.cancel);
  if (!reply.ok()) return reply.status();
  absl::StatusOr<ChatResponse> response = ParseReply(*reply);
  if (!response.ok()) return endpoint_.ReplyError(response.status());
  return response;
}

}  // namespace kseek::llm
