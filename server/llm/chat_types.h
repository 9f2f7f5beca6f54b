// Provider-neutral types of a chat with tool calling: what the agent loop
// builds and stores, independent of any wire format. OpenAiClient and
// AnthropicClient translate them to and from their APIs; chat_json.h turns
// them into JSON for the trace and the replay provider. Plain values.
#ifndef KERNELSEEK_SERVER_LLM_CHAT_TYPES_H_
#define KERNELSEEK_SERVER_LLM_CHAT_TYPES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kseek::llm {

class CancelToken;  // llm_client.h

enum class ChatRole { kSystem, kUser, kAssistant, kTool };

// A tool the model may call. `parameters_schema` is a JSON Schema object as
// JSON text, e.g. {"type":"object","properties":{...},"required":[...]}.
struct ToolDefinition {
  std::string name;
  std::string description;
  std::string parameters_schema;
};

// One call of a tool requested by the model. `arguments` is the JSON text the
// model produced, kept verbatim: it may be malformed, and the agent loop, not
// the client, tells the model so.
struct ToolCall {
  std::string id;
  std::string name;
  std::string arguments;

  bool operator==(const ToolCall&) const = default;
};

struct ChatMessage {
  ChatRole role = ChatRole::kUser;
  // Text of the message; for kTool the tool's result. May be empty for an
  // assistant message that only calls tools.
  std::string content;
  // kAssistant only: the tools the model called, in order.
  std::vector<ToolCall> tool_calls;
  // kTool only: the id of the ToolCall this message answers, and whether the
  // tool failed (Anthropic shows the model an error flag; OpenAI has none).
  std::string tool_call_id;
  bool is_error = false;

  bool operator==(const ChatMessage&) const = default;
};

struct TokenUsage {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;

  bool operator==(const TokenUsage&) const = default;
};

// Why the model stopped producing output.
enum class StopReason {
  kEndTurn,    // finished its answer
  kToolUse,    // wants the results of its tool calls
  kMaxTokens,  // cut off by the output limit
  kOther,      // anything else the endpoint reported (content filter, ...)
};

struct ChatRequest {
  // The conversation so far; system messages may appear anywhere but
  // providers with a separate system prompt (Anthropic) join them in order.
  std::vector<ChatMessage> messages;
  std::vector<ToolDefinition> tools;
  // 0 = the endpoint configuration's default.
  int max_output_tokens = 0;
  // When set and fired, Complete() returns CANCELLED promptly. Not owned.
  const CancelToken* cancel = nullptr;
};

struct ChatResponse {
  ChatMessage message;  // role kAssistant
  StopReason stop_reason = StopReason::kEndTurn;
  TokenUsage usage;
  std::string model;  // as the endpoint reported it

  bool operator==(const ChatResponse&) const = default;
};

inline ChatMessage SystemMessage(std::string text) {
  ChatMessage m;
  m.role = ChatRole::kSystem;
  m.content = std::move(text);
  return m;
}
inline ChatMessage UserMessage(std::string text) {
  ChatMessage m;
  m.role = ChatRole::kUser;
  m.content = std::move(text);
  return m;
}
inline ChatMessage AssistantMessage(std::string text, std::vector<ToolCall> tool_calls = {}) {
  ChatMessage m;
  m.role = ChatRole::kAssistant;
  m.content = std::move(text);
  m.tool_calls = std::move(tool_calls);
  return m;
}
inline ChatMessage ToolResultMessage(std::string tool_call_id, std::string result,
                                     bool is_error = false) {
  ChatMessage m;
  m.role = ChatRole::kTool;
  m.content = std::move(result);
  m.tool_call_id = std::move(tool_call_id);
  m.is_error = is_error;
  return m;
}

const char* ChatRoleName(ChatRole role);
const char* StopReasonName(StopReason reason);

}  // namespace kseek::llm

#endif  // KERNELSEEK_SERVER_LLM_CHAT_TYPES_H_
