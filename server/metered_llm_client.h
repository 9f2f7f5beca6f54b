// MeteredLlmClient: an LlmClient that times each call of the client it wraps
// and reports it (latency and status) to a callback, for the server's
// metrics. Owns the wrapped client. As thread-safe as the wrapped client and
// the callback.
#ifndef KERNELSEEK_SERVER_METERED_LLM_CLIENT_H_
#define KERNELSEEK_SERVER_METERED_LLM_CLIENT_H_

#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "server/llm/llm_client.h"

namespace kseek {

class MeteredLlmClient final : public llm::LlmClient {
 public:
  using Report = std::function<void(absl::Duration latency, const absl::Status& status)>;
  MeteredLlmClient(std::unique_ptr<llm::LlmClient> inner, const Clock* clock, Report report)
      : inner_(std::move(inner)), clock_(clock), report_(std::move(report)) {}

  absl::StatusOr<llm::ChatResponse> Complete(const llm::ChatRequest& request) override {
    const absl::Time start = clock_->Now();
    absl::StatusOr<llm::ChatResponse> response = inner_->Complete(request);
    report_(clock_->Now() - start, response.status());
    return response;
  }

 private:
  std::unique_ptr<llm::LlmClient> inner_;
  const Clock* const clock_;
  const Report report_;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_METERED_LLM_CLIENT_H_
