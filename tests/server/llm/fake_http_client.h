// FakeHttpClient: an HttpClient for tests that answers from a queue of
// scripted results and records every request it was sent. Not thread-safe:
// tests drive it from one thread.
#ifndef KERNELSEEK_TESTS_SERVER_LLM_FAKE_HTTP_CLIENT_H_
#define KERNELSEEK_TESTS_SERVER_LLM_FAKE_HTTP_CLIENT_H_

#include <deque>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "server/llm/http_client.h"

namespace kseek::llm {

class FakeHttpClient final : public HttpClient {
 public:
  void Respond(int status, std::string body,
               std::vector<std::pair<std::string, std::string>> headers = {}) {
    results_.push_back(HttpResponse{status, std::move(headers), std::move(body)});
  }
  void RespondJson(int status, const nlohmann::json& body,
                   std::vector<std::pair<std::string, std::string>> headers = {}) {
    Respond(status, body.dump(), std::move(headers));
  }
  void Fail(absl::Status status) { results_.push_back(std::move(status)); }

  absl::StatusOr<HttpResponse> Post(const HttpRequest& request) override {
    requests_.push_back(request);
    if (results_.empty()) return absl::InternalError("FakeHttpClient: no scripted result left");
    absl::StatusOr<HttpResponse> result = std::move(results_.front());
    results_.pop_front();
    return result;
  }

  const std::vector<HttpRequest>& requests() const { return requests_; }
  nlohmann::json LastBody() const { return nlohmann::json::parse(requests_.back().body); }
  std::string LastHeader(const std::string& name) const {
    for (const auto& [key, value] : requests_.back().headers) {
      if (key == name) return value;
    }
    return "";
  }

 private:
  std::deque<absl::StatusOr<HttpResponse>> results_;
  std::vector<HttpRequest> requests_;
};

}  // namespace kseek::llm

#endif  // KERNELSEEK_TESTS_SERVER_LLM_FAKE_HTTP_CLIENT_H_
