// OpenAiClient: LlmClient for OpenAI-compatible chat completions
// (POST {base_url}/chat/completions with `tools`, answers with `tool_calls`),
// so hosted APIs, vLLM, llama.cpp's server and Ollama all work.
//
// The key, if config.api_key holds one, goes in "Authorization: Bearer".
// No output limit is sent unless the request sets one (then as `max_tokens`,
// the field every compatible server knows). Thread-safe when the HttpClient
// is; does not own `http` or `clock`.
#ifndef KERNELSEEK_SERVER_LLM_OPENAI_CLIENT_H_
#define KERNELSEEK_SERVER_LLM_OPENAI_CLIENT_H_

#include "common/clock.h"
#include "server/llm/http_client.h"
#include "server/llm/json_endpoint.h"
#include "server/llm/llm_client.h"

namespace kseek::llm {

class OpenAiClient final : public LlmClient {
 public:
  // `sleep` waits between retries; nullptr means really sleeping.
  OpenAiClient(LlmEndpointConfig config, HttpClient* http, const Clock* clock,
               SleepFunction sleep = nullptr);

  absl::StatusOr<ChatResponse> Complete(const ChatRequest& request) override;

 private:
  JsonEndpoint endpoint_;
};

}  // namespace kseek::llm

#endif  // KERNELSEEK_SERVER_LLM_OPENAI_CLIENT_H_
