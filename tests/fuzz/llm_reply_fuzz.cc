// Fuzz target: what a model sends back. The same bytes go through the
// OpenAI-compatible and the Anthropic client as an HTTP 200 body (so through
// the real parsing path, tool-call arguments included), through the replay
// client as a trace, and through the question policy's claimed-limit
// pattern as the model's text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/clock.h"
#include "common/untrusted_json.h"
#include "server/llm/anthropic_client.h"
#include "server/llm/http_client.h"
#include "server/llm/openai_client.h"
#include "server/llm/replay_client.h"
#include "server/question_policy.h"

namespace {

class CannedHttp final : public kseek::llm::HttpClient {
 public:
  explicit CannedHttp(std::string body) : body_(std::move(body)) {}
  absl::StatusOr<kseek::llm::HttpResponse> Post(const kseek::llm::HttpRequest&) override {
    kseek::llm::HttpResponse response;
    response.status_code = 200;
    response.body = body_;
    return response;
  }

 private:
  std::string body_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  kseek::FakeClock clock;
  CannedHttp http(text);
  kseek::llm::LlmEndpointConfig config;
  config.base_url = "http://127.0.0.1:1/v1";
  config.model = "fuzz";
  config.max_attempts = 1;
  kseek::llm::ChatRequest request;
  request.messages.push_back(kseek::llm::UserMessage("hi"));
  (void)kseek::llm::OpenAiClient(config, &http, &clock).Complete(request);
  (void)kseek::llm::AnthropicClient(config, &http, &clock).Complete(request);
  (void)kseek::llm::ReplayLlmClient::FromJsonl(text, "fuzz.jsonl");
  kseek::ClaimedLimitPhrase(text);
  nlohmann::json parsed = kseek::ParseUntrustedJson(text);
  if (!parsed.is_discarded()) (void)parsed.dump();
  return 0;
}
