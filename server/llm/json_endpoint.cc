#include "server/llm/json_endpoint.h"

#include <algorithm>
#include <iostream>

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
      sleep_(std::move(sleep)) {}

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

std::string JsonEndpoint::Name() const {
  return config_.display_name.empty() ? url_ : config_.display_name;
}

absl::Status JsonEndpoint::UserError(absl::StatusCode code, const std::string& shown,
                                     const std::string& detail) const {
  const std::string redacted = Redact(detail, config_.api_key);
  if (config_.show_endpoint_errors) return absl::Status(code, absl::StrCat(shown, ": ", redacted));
  const std::string line = absl::StrCat(Name(), " (", url_, "): ", shown, ": ", redacted);
  if (config_.log) {
    config_.log(line);
  } else {
    std::cerr << line << "\n";
  }
  return absl::Status(code, absl::StrCat(shown, "; see the server log"));
}

absl::Status JsonEndpoint::ReplyError(const absl::Status& parse_error) const {
  return UserError(parse_error.code(), absl::StrCat("the reply from ", Name(), " is not in the expected format"),
                   std::string(parse_error.message()));
}

absl::StatusOr<nlohmann::json> JsonEndpoint::Post(const nlohmann::json& body,
                                                  const CancelToken* cancel) const {
  const std::string& key = config_.api_key;
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
  request.cancel = cancel;
  auto cancelled = [&] {
    return absl::CancelledError(absl::StrCat("the call to ", Name(), " was cancelled"));
  };

  const int attempts = std::max(config_.max_attempts, 1);
  absl::Status last_error;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    if (cancel != nullptr && cancel->cancelled()) return cancelled();
    absl::StatusOr<HttpResponse> response = http_->Post(request);
    const HttpResponse* retry_hint = nullptr;
    if (!response.ok()) {
      const absl::StatusCode code = response.status().code();
      if (code == absl::StatusCode::kCancelled) return cancelled();
      const std::string shown = absl::StrCat("POST to ", Name(), " failed (", absl::StatusCodeToString(code), ")");
      if (code != absl::StatusCode::kUnavailable && code != absl::StatusCode::kDeadlineExceeded) {
        return UserError(code, shown, std::string(response.status().message()));
      }
      last_error = UserError(code, shown, std::string(response.status().message()));
    } else if (response->status_code >= 200 && response->status_code < 300) {
      nlohmann::json parsed =
          ParseUntrustedJson(response->body);
      if (parsed.is_discarded()) {
        return UserError(absl::StatusCode::kFailedPrecondition,
                         absl::StrCat("POST to ", Name(), ": HTTP ", response->status_code,
                                      " with a body that is not JSON (", response->body.size(), " bytes)"),
                         Truncate(response->body));
      }
      return parsed;
    } else {
      const std::string shown = absl::StrCat("POST to ", Name(), ": HTTP ", response->status_code);
      const std::string detail = Truncate(ErrorMessageOf(response->body));
      if (!IsRetryableStatus(response->status_code)) {
        absl::Status error = UserError(absl::StatusCode::kUnknown, shown, detail);
        return StatusForHttpError(response->status_code, std::string(error.message()));
      }
      last_error = UserError(absl::StatusCode::kUnavailable, shown, detail);
      retry_hint = &*response;
    }
    if (attempt == attempts) break;
    std::optional<absl::Duration> delay = RetryDelay(retry_hint, attempt);
    if (!delay.has_value()) {
      return absl::UnavailableError(
          absl::StrCat(last_error.message(), "; the endpoint asked to retry after more than ",
                       absl::FormatDuration(config_.max_retry_after), ", so this call gives up"));
    }
    if (sleep_) {
      sleep_(*delay);
    } else if (cancel != nullptr) {
      if (!cancel->SleepFor(*delay)) return cancelled();
    } else {
      absl::SleepFor(*delay);
    }
  }
  return absl::UnavailableError(absl::StrCat("POST to ", Name(), " failed after ", attempts,
                                             " attempts; last error: ", last_error.message()));
}

}  // namespace kseek::llm
