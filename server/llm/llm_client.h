// LlmClient: one chat completion with tool calling, whatever the provider.
// The agent loop holds one per session and calls Complete() once per model
// turn. Implementations: OpenAiClient, AnthropicClient, ReplayLlmClient.
#ifndef KERNELSEEK_SERVER_LLM_LLM_CLIENT_H_
#define KERNELSEEK_SERVER_LLM_LLM_CLIENT_H_

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/llm/chat_types.h"

namespace kseek::llm {

// Where and how to reach an HTTP LLM endpoint. Holds the API key itself, in
// memory: never log, store or copy a whole LlmEndpointConfig into a message.
struct LlmEndpointConfig {
  // Up to and including the API version, without a trailing slash:
  //   OpenAI-compatible: "https://api.openai.com/v1", "http://127.0.0.1:8000/v1"
  //   Anthropic:         "https://api.anthropic.com/v1"
  std::string base_url;
  std::string model;
  // The API key; empty for endpoints that need none (a local vLLM or
  // llama.cpp server). A header value: printable ASCII without blanks.
  std::string api_key;
  // How errors name the endpoint, e.g. `LLM endpoint "team-openai"` or the URL.
  std::string display_name;
  // False for the admin's endpoints: errors then carry only the HTTP status
  // or the kind of transport failure and "see the server log", and the
  // endpoint's own text (which may echo internal details) goes to `log`.
  bool show_endpoint_errors = true;
  // Receives the full error text when show_endpoint_errors is false (the key
  // already redacted). Null: stderr.
  std::function<void(const std::string&)> log;

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

// Lets another thread abort an LLM call: an HTTP transfer in flight stops
// within about a second and a retry backoff ends at once. Thread-safe; the
// owner (the session's agent loop) outlives every call that uses it.
class CancelToken {
 public:
  void Cancel() {
    absl::MutexLock lock(&mu_);
    cancelled_.store(true);
  }
  bool cancelled() const { return cancelled_.load(); }
  // Sleeps for `d` or until Cancel(); true when the full time passed.
  bool SleepFor(absl::Duration d) const {
    absl::MutexLock lock(&mu_);
    auto fired = [this] { return cancelled_.load(); };
    return !mu_.AwaitWithTimeout(absl::Condition(&fired), d);
  }

 private:
  mutable absl::Mutex mu_;
  std::atomic<bool> cancelled_ = false;
};

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
  //   CANCELLED           request.cancel fired; nothing was consumed.
  // Messages name the endpoint (display_name) and never contain the API key.
  virtual absl::StatusOr<ChatResponse> Complete(const ChatRequest& request) = 0;
};

}  // namespace kseek::llm

#endif  // KERNELSEEK_SERVER_LLM_LLM_CLIENT_H_
