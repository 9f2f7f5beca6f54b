// JSON form of the neutral chat types, for the session trace (event payloads)
// and for ReplayLlmClient, which reads model turns back from an exported trace.
// This is KernelSeek's own format, not a provider's wire format:
//   message:  {"role":"assistant","content":"...","tool_calls":[{"id":..,
//              "name":..,"arguments":"<json text>"}],"tool_call_id":..,
//              "is_error":false}   (empty fields omitted)
//   response: {"message":{...},"stop_reason":"tool_use","model":"...",
//              "usage":{"input_tokens":N,"output_tokens":N}}
#ifndef KERNELSEEK_SERVER_LLM_CHAT_JSON_H_
#define KERNELSEEK_SERVER_LLM_CHAT_JSON_H_

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "server/llm/chat_types.h"

namespace kseek::llm {

nlohmann::json ChatMessageToJson(const ChatMessage& message);
// INVALID_ARGUMENT, naming the field, when `json` is not a message.
absl::StatusOr<ChatMessage> ChatMessageFromJson(const nlohmann::json& json);

nlohmann::json ChatResponseToJson(const ChatResponse& response);
// INVALID_ARGUMENT, naming the field, when `json` is not a response.
absl::StatusOr<ChatResponse> ChatResponseFromJson(const nlohmann::json& json);

// The parameters schema of `tool` parsed; INVALID_ARGUMENT, naming the tool,
// when it is not a JSON object.
absl::StatusOr<nlohmann::json> ToolParametersJson(const ToolDefinition& tool);

}  // namespace kseek::llm

#endif  // KERNELSEEK_SERVER_LLM_CHAT_JSON_H_
