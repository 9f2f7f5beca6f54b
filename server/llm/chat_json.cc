#include "server/llm/chat_json.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kseek::llm {
namespace {

using nlohmann::json;

absl::StatusOr<ChatRole> RoleFromName(const std::string& name) {
  for (ChatRole role :
       {ChatRole::kSystem, ChatRole::kUser, ChatRole::kAssistant, ChatRole::kTool}) {
    if (name == ChatRoleName(role)) return role;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown message role \"", name, "\""));
}

absl::StatusOr<StopReason> StopReasonFromName(const std::string& name) {
  for (StopReason reason :
       {StopReason::kEndTurn, StopReason::kToolUse, StopReason::kMaxTokens, StopReason::kOther}) {
    if (name == StopReasonName(reason)) return reason;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown stop_reason \"", name, "\""));
}

}  // namespace

json ChatMessageToJson(const ChatMessage& message) {
  json out = {{"role", ChatRoleName(message.role)}, {"content", message.content}};
  if (!message.tool_calls.empty()) {
    json calls = json::array();
    for (const ToolCall& call : message.tool_calls) {
      calls.push_back({{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}});
    }
    out["tool_calls"] = std::move(calls);
  }
  if (!message.tool_call_id.empty()) out["tool_call_id"] = message.tool_call_id;
  if (message.is_error) out["is_error"] = true;
  return out;
}

absl::StatusOr<ChatMessage> ChatMessageFromJson(const json& in) {
  // Wrong types throw from nlohmann's accessors; they are caught here and
  // never leave this function.
  try {
    if (!in.is_object()) return absl::InvalidArgumentError("a message must be a JSON object");
    ChatMessage message;
    absl::StatusOr<ChatRole> role = RoleFromName(in.at("role").get<std::string>());
    if (!role.ok()) return role.status();
    message.role = *role;
    message.content = in.value("content", "");
    if (auto calls = in.find("tool_calls"); calls != in.end()) {
      for (const json& call : *calls) {
        message.tool_calls.push_back({call.at("id").get<std::string>(),
                                      call.at("name").get<std::string>(),
                                      call.at("arguments").get<std::string>()});
      }
    }
    message.tool_call_id = in.value("tool_call_id", "");
    message.is_error = in.value("is_error", false);
    return message;
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("malformed message: ", e.what()));
  }
}

json ChatResponseToJson(const ChatResponse& response) {
  return {{"message", ChatMessageToJson(response.message)},
          {"stop_reason", StopReasonName(response.stop_reason)},
          {"model", response.model},
          {"usage",
           {{"input_tokens", response.usage.input_tokens},
            {"output_tokens", response.usage.output_tokens}}}};
}

absl::StatusOr<ChatResponse> ChatResponseFromJson(const json& in) {
  try {
    if (!in.is_object()) return absl::InvalidArgumentError("a response must be a JSON object");
    ChatResponse response;
    absl::StatusOr<ChatMessage> message = ChatMessageFromJson(in.at("message"));
    if (!message.ok()) return message.status();
    response.message = *std::move(message);
    absl::StatusOr<StopReason> reason = StopReasonFromName(in.value("stop_reason", "end_turn"));
    if (!reason.ok()) return reason.status();
    response.stop_reason = *reason;
    response.model = in.value("model", "");
    if (auto usage = in.find("usage"); usage != in.end()) {
      response.usage.input_tokens = usage->value("input_tokens", int64_t{0});
      response.usage.output_tokens = usage->value("output_tokens", int64_t{0});
    }
    return response;
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("malformed response: ", e.what()));
  }
}

kernelseek::v1::ModelMessageEvent ChatResponseToEvent(const ChatResponse& response) {
  kernelseek::v1::ModelMessageEvent event;
  event.set_content(response.message.content);
  for (const ToolCall& call : response.message.tool_calls) {
    kernelseek::v1::ModelToolCall* c = event.add_tool_calls();
    c->set_id(call.id);
    c->set_name(call.name);
    c->set_arguments(call.arguments);
  }
  event.set_stop_reason(StopReasonName(response.stop_reason));
  event.set_model(response.model);
  event.set_input_tokens(response.usage.input_tokens);
  event.set_output_tokens(response.usage.output_tokens);
  return event;
}

absl::StatusOr<ChatResponse> ChatResponseFromEvent(const kernelseek::v1::ModelMessageEvent& event) {
  ChatResponse response;
  response.message.role = ChatRole::kAssistant;
  response.message.content = event.content();
  for (const kernelseek::v1::ModelToolCall& call : event.tool_calls()) {
    response.message.tool_calls.push_back({call.id(), call.name(), call.arguments()});
  }
  absl::StatusOr<StopReason> reason = StopReasonFromName(event.stop_reason());
  if (!reason.ok()) return reason.status();
  response.stop_reason = *reason;
  response.model = event.model();
  response.usage.input_tokens = event.input_tokens();
  response.usage.output_tokens = event.output_tokens();
  return response;
}

absl::StatusOr<json> ToolParametersJson(const ToolDefinition& tool) {
  json schema = json::parse(tool.parameters_schema, nullptr, /*allow_exceptions=*/false);
  if (!schema.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("parameters schema of tool \"", tool.name,
                     "\" is not a JSON object: ", tool.parameters_schema));
  }
  return schema;
}

}  // namespace kseek::llm
