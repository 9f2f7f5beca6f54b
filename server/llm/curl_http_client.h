// CurlHttpClient: HttpClient over libcurl, for LLM endpoints over HTTP(S).
//
// Each Post() uses its own easy handle, so one instance serves all sessions'
// threads at once. Holds no state beyond libcurl's one-time global init.
#ifndef KERNELSEEK_SERVER_LLM_CURL_HTTP_CLIENT_H_
#define KERNELSEEK_SERVER_LLM_CURL_HTTP_CLIENT_H_

#include "server/llm/http_client.h"

namespace kseek::llm {

class CurlHttpClient final : public HttpClient {
 public:
  CurlHttpClient();

  absl::StatusOr<HttpResponse> Post(const HttpRequest& request) override;
};

}  // namespace kseek::llm

#endif  // KERNELSEEK_SERVER_LLM_CURL_HTTP_CLIENT_H_
