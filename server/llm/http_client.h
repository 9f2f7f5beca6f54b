// HttpClient: the one HTTP operation the LLM clients need (a POST with a
// body), behind an interface so that tests replace the network with a fake.
// CurlHttpClient (curl_http_client.h) is the real implementation.
#ifndef KERNELSEEK_SERVER_LLM_HTTP_CLIENT_H_
#define KERNELSEEK_SERVER_LLM_HTTP_CLIENT_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace kseek::llm {

class CancelToken;  // llm_client.h

struct HttpRequest {
  std::string url;
  // Name and value, sent as given. May hold a secret (an API key): never log
  // or store a whole HttpRequest.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  absl::Duration connect_timeout = absl::Seconds(10);
  absl::Duration total_timeout = absl::Minutes(5);
  // A response body longer than this is not read to the end.
  size_t max_response_bytes = 4 << 20;
  // When set and fired, the transfer is aborted (CANCELLED) within about a
  // second, whatever the peer does. Not owned.
  const CancelToken* cancel = nullptr;
};

struct HttpResponse {
  int status_code = 0;
  // Names in lower case, in the order received.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  // The value of the first header named `name` (lower case), or "".
  std::string_view Header(std::string_view name) const {
    for (const auto& [key, value] : headers) {
      if (key == name) return value;
    }
    return {};
  }
};

// Implementations must be safe to call from several threads at once, since
// each session's agent loop calls its client from its own thread.
class HttpClient {
 public:
  virtual ~HttpClient() = default;

  // Sends a POST. Any HTTP status is a response, not an error. Errors:
  // UNAVAILABLE when no response arrived (connection refused, reset, DNS),
  // DEADLINE_EXCEEDED on a timeout, RESOURCE_EXHAUSTED when the body exceeds
  // `max_response_bytes`, INVALID_ARGUMENT for a URL that cannot be used,
  // CANCELLED when request.cancel fired.
  virtual absl::StatusOr<HttpResponse> Post(const HttpRequest& request) = 0;
};

}  // namespace kseek::llm

#endif  // KERNELSEEK_SERVER_LLM_HTTP_CLIENT_H_
