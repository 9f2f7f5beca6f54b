// LlmClient: one chat completion with tool calling, whatever the provider.
// The agent loop holds one per session and calls Complete() once per model
// turn. Implementations: OpenAiClient, AnthropicClient, ReplayLlmClient.
#ifndef KERNELSEEK_SERVER_LLM_LLM_CLIENT_H_
#define KERNELSEEK_SERVER_LLM_LLM_CLIENT_H_

#include <cstddef>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/llm/chat_types.h"

namespace kseek::llm {

// Where and how to reach an HTTP LLM endpoint. Holds the *name* of the
// environment variable with the API key, never the key, so a config can be
// logged and stored.
struct LlmEndpointConfig {
  // Up to and including the API version, without a trailing slash:
  //   OpenAI-compatible: "https://api.openai.com/v1", "http://127.0.0.1:8000/v1"
  //   Anthropic:         "https://api.anthropic.com/v1"
  std::string base_url;
  std::string model;
  // Environment variable holding the API key; empty for endpoints that need
  // none (a local vLLM or llama.cpp server).
  std::string api_key_env;

  absl::Duration connect_timeout = absl::Seconds(10);
  // Per attempt; a long answer from a large model can take minutes.
  absl::Duration request_timeout = absl::Minutes(5);
  // Attempts in all, counting the first, on 429, 5xx, timeouts and
  // connection errors.
  int max_attempts = 5;
  // Delay before the second attempt, doubled for each further one up to
  // max_backoff, unless the endpoint sent Retry-After.
  absl::Duration initial_backoff = absl::Seconds(1);
  absl::Duration max_backoff = absl::Seconds(60);
  // A Retry-After longer than this is not waited out: the call fails at once
  // with UNAVAILABLE instead of blocking the session for hours.
  absl::Duration max_retry_after = absl::Minutes(2);
  // A larger response body is an error (RESOURCE_EXHAUSTED), not a crash.
  size_t max_response_bytes = 4 << 20;
  // Output limit when the request does not set one (Anthropic requires one).
  int default_max_output_tokens = 8192;
};

// Waits; injected so that tests of retries do not sleep.
using SleepFunction = std::function<void(absl::Duration)>;

class LlmClient {
 public:
  virtual ~LlmClient() = default;

  // Returns the model's next turn. Errors, by what the caller should do:
  //   UNAVAILABLE         the endpoint stayed unreachable, overloaded or
  //                       failing after every retry; the session may be
  //                       resumed later, nothing was consumed.
  //   UNAUTHENTICATED / PERMISSION_DENIED  the key is missing or refused.
  //   INVALID_ARGUMENT    the endpoint rejected the request (400, 413, 422).
  //   FAILED_PRECONDITION the endpoint did not answer in the expected wire
  //                       format (not JSON, missing fields): check base_url.
  //   RESOURCE_EXHAUSTED  the reply exceeded max_response_bytes.
  //   OUT_OF_RANGE        (replay only) the recorded trace has no more turns.
  // Messages name the endpoint URL and never contain the API key.
  virtual absl::StatusOr<ChatResponse> Complete(const ChatRequest& request) = 0;
};

}  // namespace kseek::llm

#endif  // KERNELSEEK_SERVER_LLM_LLM_CLIENT_H_
