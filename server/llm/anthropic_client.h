// AnthropicClient: LlmClient for Anthropic's Messages API
// (POST {base_url}/messages with `tools`; answers with `tool_use` blocks; tool
// results go back as `tool_result` blocks in a user turn).
//
// System messages become the top-level `system` prompt, consecutive tool
// results and user text are merged into one user turn as the API requires,
// and the key, if any, goes in "x-api-key". Thread-safe when the HttpClient
// is; does not own `http` or `clock`.
#ifndef KERNELSEEK_SERVER_LLM_ANTHROPIC_CLIENT_H_
#define KERNELSEEK_SERVER_LLM_ANTHROPIC_CLIENT_H_

#include "common/clock.h"
#include "server/llm/http_client.h"
#include "server/llm/json_endpoint.h"
#include "server/llm/llm_client.h"

namespace kseek::llm {

class AnthropicClient final : public LlmClient {
 public:
  // The API version this client speaks, sent as "anthropic-version".
  static constexpr char kApiVersion[] = "2023-06-01";

  // `sleep` waits between retries; nullptr means really sleeping.
  AnthropicClient(LlmEndpointConfig config, HttpClient* http, const Clock* clock,
                  SleepFunction sleep = nullptr);

  absl::StatusOr<ChatResponse> Complete(const ChatRequest& request) override;

 private:
  JsonEndpoint endpoint_;
};

}  // namespace kseek::llm

#endif  // KERNELSEEK_SERVER_LLM_ANTHROPIC_CLIENT_H_
