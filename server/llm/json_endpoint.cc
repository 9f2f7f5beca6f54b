#include "server/llm/json_endpoint.h"

#include <algorithm>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "common/untrusted_json.h"

namespace kseek::llm {
namespace {

// Error text quoted from an endpoint is cut to this many bytes: enough for any
// real error message, short enough for a log line.
constexpr size_t kMaxQuotedBytes = 500;

std::string Truncate(std::string text) {
  if (text.size() > kMaxQuotedBytes) {
    text.resize(kMaxQuotedBytes);
    text += "...";
  }
  return text;
}

bool IsRetryableStatus(int status) { return status == 408 || status == 429 || status >= 500; }

// The human-readable part of an error body: {"error":{"message":...}} for
// OpenAI and Anthropic, {"error":"..."} or {"message":"..."} for some
// compatible servers, else the body itself.
std::string ErrorMessageOf(const std::string& body) {
  nlohmann::json parsed = ParseUntrustedJson(body);
  if (parsed.is_object()) {
    auto error = parsed.find("error");
    if (error != parsed.end()) {
      if (error->is_string()) return error->get<std::string>();
      if (error->is_object()) {
        auto message = error->find("message");
        if (message != error->end() && message->is_string()) return message->get<std::string>();
      }
    }
    auto message = parsed.find("message");
    if (message != parsed.end() && message->is_string()) return message->get<std::string>();
  }
  return body.empty() ? "(empty body)" : body;
}

absl::Status StatusForHttpError(int status, std::string message) {
  switch (status) {
    case 400:
    case 413:
    case 422:
      return absl::InvalidArgumentError(message);
    case 401:
      return absl::UnauthenticatedError(message);
    case 403:
      return absl::PermissionDeniedError(message);
    case 404:
      return absl::NotFoundError(message);
    default:
      return absl::FailedPreconditionError(message);
  }
}

}  // namespace

std::optional<absl::Duration> ParseRetryAfter(std::string_view value, absl::Time now) {
  const absl::string_view trimmed =
      absl::StripAsciiWhitespace(absl::string_view(value.data(), value.size()));
  int64_t seconds = 0;
  if (absl::SimpleAtoi(trimmed, &seconds)) return absl::Seconds(std::max<int64_t>(seconds, 0));
  absl::Time when;
  std::string error;
  if (absl::ParseTime("%a, %d %b %Y %H:%M:%S GMT", trimmed, absl::UTCTimeZone(), &when, &error)) {
    return std::max(when - now, absl::ZeroDuration());
  }
  return std::nullopt;
}

JsonEndpoint::JsonEndpoint(LlmEndpointConfig config, std::string path, ApiKeyHeader key_header,
                           std::vector<std::pair<std::string, std::string>> fixed_headers,
                           HttpClient* http, const Clock* clock, SleepFunction sleep)
    : config_(std::move(config)),
      url_(config_.base_url + path),
      key_header_(std::move(key_header)),
      fixed_headers_(std::move(fixed_headers)),
      http_(http),
      clock_(clock),
      sleep_(sleep ? std::move(sleep)
                   : SleepFunction([](absl::Duration d) { absl::SleepFor(d); })) {}

std::string JsonEndpoint::Redact(std::string text, const std::string& key) const {
  if (key.empty()) return text;
  return absl::StrReplaceAll(text, {{key, "[redacted API key]"}});
}

std::optional<absl::Duration> JsonEndpoint::RetryDelay(const HttpResponse* response,
                                                       int attempt) const {
  if (response != nullptr) {
    std::optional<absl::Duration> asked;
    int64_t ms = 0;
    // OpenAI sends the finer-grained retry-after-ms alongside Retry-After.
    if (absl::SimpleAtoi(std::string(response->Header("retry-after-ms")), &ms) && ms >= 0) {
      asked = absl::Milliseconds(ms);
    } else if (std::string_view value = response->Header("retry-after"); !value.empty()) {
      asked = ParseRetryAfter(value, clock_->Now());
    }
    if (asked.has_value()) {
      if (*asked > config_.max_retry_after) return std::nullopt;
      return *asked;
    }
  }
  absl::Duration backoff = config_.initial_backoff;
  for (int i = 1; i < attempt && backoff < config_.max_backoff; ++i) backoff *= 2;
  return std::min(backoff, config_.max_backoff);
}

absl::StatusOr<nlohmann::json> JsonEndpoint::Post(const nlohmann::json& body) const {
  std::string key;
  if (!config_.api_key_env.empty()) {
    const char* value = std::getenv(config_.api_key_env.c_str());
    if (value == nullptr || *value == '\0') {
      return absl::UnauthenticatedError(absl::StrCat("environment variable ", config_.api_key_env,
                                                     " (the API key for ", url_,
                                                     ") is not set or empty"));
    }
    key = value;
  }

  HttpRequest request;
  request.url = url_;
  request.headers = fixed_headers_;
  request.headers.emplace_back("Content-Type", "application/json");
  request.headers.emplace_back("Accept", "application/json");
  if (!key.empty()) request.headers.emplace_back(key_header_.name, key_header_.value_prefix + key);
  request.body =
      body.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
  request.connect_timeout = config_.connect_timeout;
  request.total_timeout = config_.request_timeout;
  request.max_response_bytes = config_.max_response_bytes;

  const int attempts = std::max(config_.max_attempts, 1);
  std::string last_error;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    absl::StatusOr<HttpResponse> response = http_->Post(request);
    const HttpResponse* retry_hint = nullptr;
    if (!response.ok()) {
      const absl::StatusCode code = response.status().code();
      if (code != absl::StatusCode::kUnavailable && code != absl::StatusCode::kDeadlineExceeded) {
        return absl::Status(code, Redact(std::string(response.status().message()), key));
      }
      last_error = std::string(response.status().message());
    } else if (response->status_code >= 200 && response->status_code < 300) {
      nlohmann::json parsed =
          ParseUntrustedJson(response->body);
      if (parsed.is_discarded()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "POST ", url_, ": HTTP ", response->status_code, " with a body that is not JSON (",
            response->body.size(), " bytes): ", Redact(Truncate(response->body), key)));
      }
      return parsed;
    } else {
      const std::string message =
          absl::StrCat("POST ", url_, ": HTTP ", response->status_code, ": ",
                       Redact(Truncate(ErrorMessageOf(response->body)), key));
      if (!IsRetryableStatus(response->status_code)) {
        return StatusForHttpError(response->status_code, message);
      }
      last_error = message;
      retry_hint = &*response;
    }
    if (attempt == attempts) break;
    std::optional<absl::Duration> delay = RetryDelay(retry_hint, attempt);
    if (!delay.has_value()) {
      return absl::UnavailableError(
          absl::StrCat(last_error, "; the endpoint asked to retry after more than ",
                       absl::FormatDuration(config_.max_retry_after), ", so this call gives up"));
    }
    sleep_(*delay);
  }
  return absl::UnavailableError(absl::StrCat("POST ", url_, " failed after ", attempts,
                                             " attempts; last error: ", last_error));
}

}  // namespace kseek::llm
