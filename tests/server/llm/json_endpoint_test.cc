#include "server/llm/json_endpoint.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/clock.h"
#include "server/llm/openai_client.h"
#include "tests/server/llm/fake_http_client.h"

namespace kseek::llm {
namespace {

using nlohmann::json;

ChatRequest RequestOf(std::vector<ChatMessage> messages, std::vector<ToolDefinition> tools = {}) {
  ChatRequest request;
  request.messages = std::move(messages);
  request.tools = std::move(tools);
  return request;
}

constexpr char kKey[] = "sk-secret-endpoint-key-42";

const json kOkReply = {{"choices", {{{"message", {{"content", "done"}}}}}}};

// Drives retries through OpenAiClient, recording the waits instead of sleeping.
struct RetryFixture {
  RetryFixture() {
    config.base_url = "https://llm.example/v1";
    config.model = "m";
    config.api_key = kKey;
    config.max_attempts = 4;
    config.initial_backoff = absl::Seconds(1);
    config.max_backoff = absl::Seconds(3);
    config.max_retry_after = absl::Seconds(30);
  }
  absl::StatusOr<ChatResponse> Complete() {
    OpenAiClient client(config, &http, &clock, [this](absl::Duration d) { sleeps.push_back(d); });
    return client.Complete(RequestOf({UserMessage("go")}));
  }

  LlmEndpointConfig config;
  FakeHttpClient http;
  FakeClock clock;
  std::vector<absl::Duration> sleeps;
};

TEST_CASE("retries 429 and 5xx, waiting what Retry-After says, else backing off") {
  RetryFixture f;
  f.http.RespondJson(429, {{"error", {{"message", "rate limited"}}}}, {{"retry-after", "7"}});
  f.http.RespondJson(500, {{"error", {{"message", "boom"}}}});
  f.http.Fail(absl::UnavailableError("connection refused"));
  f.http.RespondJson(200, kOkReply);
  absl::StatusOr<ChatResponse> response = f.Complete();
  INFO(response.status().ToString());
  REQUIRE(response.ok());
  CHECK(response->message.content == "done");
  CHECK(f.http.requests().size() == 4);
  // Retry-After, then the backoff of the 2nd and 3rd attempts.
  CHECK(f.sleeps ==
        std::vector<absl::Duration>{absl::Seconds(7), absl::Seconds(2), absl::Seconds(3)});
}

TEST_CASE("gives up with UNAVAILABLE after the last attempt, naming the last error") {
  RetryFixture f;
  for (int i = 0; i < 4; ++i) f.http.RespondJson(503, {{"error", {{"message", "overloaded"}}}});
  absl::Status status = f.Complete().status();
  CHECK(status.code() == absl::StatusCode::kUnavailable);
  CHECK(status.message() ==
        "POST to https://llm.example/v1/chat/completions failed after 4 attempts; last error: "
        "POST to https://llm.example/v1/chat/completions: HTTP 503: overloaded");
  CHECK(f.http.requests().size() == 4);
  CHECK(f.sleeps ==
        std::vector<absl::Duration>{absl::Seconds(1), absl::Seconds(2), absl::Seconds(3)});
}

TEST_CASE("timeouts and connection errors are retried like 5xx") {
  RetryFixture f;
  f.config.max_attempts = 2;
  f.http.Fail(absl::DeadlineExceededError("POST x: Operation timed out"));
  f.http.Fail(absl::UnavailableError("POST x: Couldn't connect to server"));
  absl::Status status = f.Complete().status();
  CHECK(status.code() == absl::StatusCode::kUnavailable);
  CHECK(status.message().find("Couldn't connect to server") != absl::string_view::npos);
  CHECK(f.http.requests().size() == 2);
}

TEST_CASE("a Retry-After longer than the limit fails at once instead of blocking") {
  RetryFixture f;
  f.http.RespondJson(429, {{"error", {{"message", "quota"}}}}, {{"retry-after", "3600"}});
  absl::Status status = f.Complete().status();
  CHECK(status.code() == absl::StatusCode::kUnavailable);
  CHECK(status.message().find("quota") != absl::string_view::npos);
  CHECK(status.message().find("30s") != absl::string_view::npos);
  CHECK(f.http.requests().size() == 1);
  CHECK(f.sleeps.empty());
}

TEST_CASE("a 401 is not retried and its message never contains the key") {
  RetryFixture f;
  // OpenAI quotes the key it was sent; the client must not pass it on.
  f.http.RespondJson(401, {{"error",
                            {{"message", std::string("Incorrect API key provided: ") + kKey},
                             {"code", "invalid_api_key"}}}});
  absl::Status status = f.Complete().status();
  CHECK(status.code() == absl::StatusCode::kUnauthenticated);
  CHECK(status.message().find(kKey) == absl::string_view::npos);
  CHECK(status.message().find("Incorrect API key provided: [redacted API key]") !=
        absl::string_view::npos);
  CHECK(status.ToString().find(kKey) == std::string::npos);
  CHECK(f.http.requests().size() == 1);
}

TEST_CASE("HTTP errors map to codes by what the caller should do") {
  auto code_for = [](int http_status) {
    RetryFixture f;
    f.http.Respond(http_status, "{}");
    return f.Complete().status().code();
  };
  CHECK(code_for(400) == absl::StatusCode::kInvalidArgument);
  CHECK(code_for(413) == absl::StatusCode::kInvalidArgument);
  CHECK(code_for(403) == absl::StatusCode::kPermissionDenied);
  CHECK(code_for(404) == absl::StatusCode::kNotFound);
  CHECK(code_for(409) == absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("a reply over the size cap is RESOURCE_EXHAUSTED and not retried") {
  RetryFixture f;
  f.http.Fail(absl::ResourceExhaustedError("response is longer than the limit of 4194304 bytes"));
  absl::Status status = f.Complete().status();
  CHECK(status.code() == absl::StatusCode::kResourceExhausted);
  CHECK(f.http.requests().size() == 1);
}

TEST_CASE("requests carry the configured timeouts and size cap") {
  RetryFixture f;
  f.config.connect_timeout = absl::Seconds(3);
  f.config.request_timeout = absl::Seconds(90);
  f.config.max_response_bytes = 1234;
  f.http.RespondJson(200, kOkReply);
  REQUIRE(f.Complete().ok());
  const HttpRequest& request = f.http.requests()[0];
  CHECK(request.connect_timeout == absl::Seconds(3));
  CHECK(request.total_timeout == absl::Seconds(90));
  CHECK(request.max_response_bytes == 1234);
}

TEST_CASE("ParseRetryAfter reads delay-seconds and HTTP dates") {
  const absl::Time now = absl::FromUnixSeconds(1'445'412'480);  // Wed, 21 Oct 2015 07:28:00 GMT
  CHECK(ParseRetryAfter("120", now) == absl::Seconds(120));
  CHECK(ParseRetryAfter(" 0 ", now) == absl::ZeroDuration());
  CHECK(ParseRetryAfter("Wed, 21 Oct 2015 07:28:30 GMT", now) == absl::Seconds(30));
  CHECK(ParseRetryAfter("Wed, 21 Oct 2015 07:27:00 GMT", now) == absl::ZeroDuration());
  CHECK_FALSE(ParseRetryAfter("soon", now).has_value());
}

// The admin's endpoints: their error text may name internal hosts or echo
// the key, so users get the status and "see the server log" and the text
// goes to the log (key redacted).
struct AdminEndpointFixture : RetryFixture {
  AdminEndpointFixture() {
    config.display_name = "LLM endpoint \"team\"";
    config.show_endpoint_errors = false;
    config.log = [this](const std::string& line) { logged.push_back(line); };
  }
  std::vector<std::string> logged;
};

TEST_CASE("an admin endpoint's HTTP error shows the status and the endpoint's name, never its text") {
  AdminEndpointFixture f;
  f.http.RespondJson(401, {{"error", {{"message", std::string("Incorrect API key provided: ") + kKey}}}});
  absl::Status status = f.Complete().status();
  CHECK(status.code() == absl::StatusCode::kUnauthenticated);
  CHECK(status.message() == "POST to LLM endpoint \"team\": HTTP 401; see the server log");
  REQUIRE(f.logged.size() == 1);
  CHECK(f.logged[0].find("Incorrect API key provided: [redacted API key]") != std::string::npos);
  CHECK(f.logged[0].find(kKey) == std::string::npos);
}

TEST_CASE("an admin endpoint's transport error and non-JSON reply are not quoted to the user") {
  AdminEndpointFixture f;
  f.config.max_attempts = 1;
  f.http.Fail(absl::UnavailableError("POST http://10.1.2.3:8000/v1: Failed to connect to 10.1.2.3 port 8000"));
  absl::Status down = f.Complete().status();
  CHECK(down.code() == absl::StatusCode::kUnavailable);
  CHECK(down.message().find("10.1.2.3") == absl::string_view::npos);
  CHECK(down.message().find("see the server log") != absl::string_view::npos);

  f.http.Respond(200, "<html>internal admin console: build 7f3a</html>");
  absl::Status html = f.Complete().status();
  CHECK(html.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(html.message().find("internal admin console") == absl::string_view::npos);
  CHECK(html.message().find("see the server log") != absl::string_view::npos);

  f.http.Respond(200, R"({"secret_field": "internal-build-7f3a"})");
  absl::Status shape = f.Complete().status();
  CHECK(shape.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(shape.message().find("7f3a") == absl::string_view::npos);
  CHECK(f.logged.size() == 3);
}

TEST_CASE("a fired CancelToken stops a call before it is sent and cuts a retry backoff short") {
  RetryFixture f;
  CancelToken cancelled;
  cancelled.Cancel();
  ChatRequest request = RequestOf({UserMessage("go")});
  request.cancel = &cancelled;
  OpenAiClient sleeping(f.config, &f.http, &f.clock);
  CHECK(sleeping.Complete(request).status().code() == absl::StatusCode::kCancelled);
  CHECK(f.http.requests().empty());

  // A 503 asks for a retry after 60 s; the real (not injected) backoff waits
  // on the token, so cancelling it ends the call at once.
  f.config.initial_backoff = absl::Seconds(60);
  f.config.max_backoff = absl::Seconds(60);
  f.http.RespondJson(503, {{"error", {{"message", "overloaded"}}}});
  OpenAiClient client(f.config, &f.http, &f.clock);
  CancelToken token;
  request.cancel = &token;
  std::thread canceller([&token] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    token.Cancel();
  });
  const auto start = std::chrono::steady_clock::now();
  absl::Status status = client.Complete(request).status();
  const auto waited = std::chrono::steady_clock::now() - start;
  canceller.join();
  CHECK(status.code() == absl::StatusCode::kCancelled);
  CHECK(waited < std::chrono::seconds(5));
  CHECK(f.http.requests().size() == 1);
}

}  // namespace
}  // namespace kseek::llm
