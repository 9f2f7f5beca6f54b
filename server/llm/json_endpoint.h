// JsonEndpoint: POSTs a JSON body to an LLM endpoint and returns the parsed
// JSON reply, with what both wire formats share: the API key header,
// timeouts, retries with exponential backoff honouring Retry-After (a backoff
// a CancelToken can cut short), a cap on the reply size, and HTTP errors
// mapped to status codes. The endpoint's own error text (the key redacted) is
// in the error only when config.show_endpoint_errors; otherwise it goes to
// config.log and the error says "see the server log".
//
// Used by OpenAiClient and AnthropicClient. Keeps no mutable state, so it is
// thread-safe when its HttpClient and sleep function are. Does not own `http`
// or `clock`.
#ifndef KERNELSEEK_SERVER_LLM_JSON_ENDPOINT_H_
#define KERNELSEEK_SERVER_LLM_JSON_ENDPOINT_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "server/llm/http_client.h"
#include "server/llm/llm_client.h"

namespace kseek::llm {

// How the API key travels: in header `name`, as `value_prefix` + key.
struct ApiKeyHeader {
  std::string name;
  std::string value_prefix;
};

class JsonEndpoint {
 public:
  // `path` is appended to config.base_url (e.g. "/chat/completions");
  // `fixed_headers` go with every request (e.g. anthropic-version). `sleep`
  // null: really wait between attempts (cut short by the call's CancelToken).
  JsonEndpoint(LlmEndpointConfig config, std::string path, ApiKeyHeader key_header,
               std::vector<std::pair<std::string, std::string>> fixed_headers, HttpClient* http,
               const Clock* clock, SleepFunction sleep);

  // See LlmClient::Complete for the error codes. `cancel` may be null.
  absl::StatusOr<nlohmann::json> Post(const nlohmann::json& body, const CancelToken* cancel) const;
  // The error for a 2xx reply whose JSON the wire format could not read.
  absl::Status ReplyError(const absl::Status& parse_error) const;

  const LlmEndpointConfig& config() const { return config_; }
  const std::string& url() const { return url_; }

 private:
  // The delay before the next attempt, or nullopt to give up now because the
  // endpoint asked for a longer wait than config_.max_retry_after.
  std::optional<absl::Duration> RetryDelay(const HttpResponse* response, int attempt) const;
  std::string Redact(std::string text, const std::string& key) const;
  // config_.display_name, else the URL.
  std::string Name() const;
  // An error whose message is `shown`, with `detail` (the endpoint's words)
  // appended or, for an admin's endpoint, logged instead.
  absl::Status UserError(absl::StatusCode code, const std::string& shown, const std::string& detail) const;

  LlmEndpointConfig config_;
  std::string url_;
  ApiKeyHeader key_header_;
  std::vector<std::pair<std::string, std::string>> fixed_headers_;
  HttpClient* http_;
  const Clock* clock_;
  SleepFunction sleep_;
};

// Parses a Retry-After header value, either delay-seconds or an HTTP-date,
// into a delay from `now`. nullopt when it is neither.
std::optional<absl::Duration> ParseRetryAfter(std::string_view value, absl::Time now);

}  // namespace kseek::llm

#endif  // KERNELSEEK_SERVER_LLM_JSON_ENDPOINT_H_
