// JSON form of the neutral chat types, and their form as a session trace's
// model_message event (proto/session_event.proto, whose stored and exported
// JSON common/session_event.h writes in this same format). This is
// KernelSeek's own format, not a provider's wire format:
//   message:  {"role":"assistant","content":"...","tool_calls":[{"id":..,
//              "name":..,"arguments":"<json text>"}],"tool_call_id":..,
//              "is_error":false}   (empty fields omitted)
//   response: {"message":{...},"stop_reason":"tool_use","model":"...",
//              "usage":{"input_tokens":N,"output_tokens":N}}
#ifndef KERNELSEEK_SERVER_LLM_CHAT_JSON_H_
#define KERNELSEEK_SERVER_LLM_CHAT_JSON_H_

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "proto/session_event.pb.h"
#include "server/llm/chat_types.h"

namespace kseek::llm {

nlohmann::json ChatMessageToJson(const ChatMessage& message);
// INVALID_ARGUMENT, naming the field, when `json` is not a message.
absl::StatusOr<ChatMessage> ChatMessageFromJson(const nlohmann::json& json);

nlohmann::json ChatResponseToJson(const ChatResponse& response);
// INVALID_ARGUMENT, naming the field, when `json` is not a response.
absl::StatusOr<ChatResponse> ChatResponseFromJson(const nlohmann::json& json);

// A model turn as the trace's model_message event, and back. The event holds
// an assistant message, so ChatResponseFromEvent's message has role
// kAssistant; INVALID_ARGUMENT for an unknown stop_reason.
kernelseek::v1::ModelMessageEvent ChatResponseToEvent(const ChatResponse& response);
absl::StatusOr<ChatResponse> ChatResponseFromEvent(const kernelseek::v1::ModelMessageEvent& event);

// The parameters schema of `tool` parsed; INVALID_ARGUMENT, naming the tool,
// when it is not a JSON object.
absl::StatusOr<nlohmann::json> ToolParametersJson(const ToolDefinition& tool);

}  // namespace kseek::llm

#endif  // KERNELSEEK_SERVER_LLM_CHAT_JSON_H_
