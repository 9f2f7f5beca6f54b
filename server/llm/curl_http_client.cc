#include "server/llm/curl_http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "server/llm/llm_client.h"

namespace kseek::llm {
namespace {

// What the libcurl callbacks fill in during one transfer.
struct Transfer {
  size_t max_body_bytes = 0;
  bool body_too_large = false;
  const CancelToken* cancel = nullptr;
  HttpResponse response;
};

// libcurl calls this at least once a second, also while it connects or
// waits for a silent peer; non-zero aborts with CURLE_ABORTED_BY_CALLBACK.
int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* transfer = static_cast<const Transfer*>(user);
  return transfer->cancel != nullptr && transfer->cancel->cancelled() ? 1 : 0;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (transfer->response.body.size() + n > transfer->max_body_bytes) {
    transfer->body_too_large = true;
    return 0;  // makes libcurl abort the transfer with CURLE_WRITE_ERROR
  }
  transfer->response.body.append(data, n);
  return n;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const size_t n = size * count;
  absl::string_view line(data, n);
  if (absl::StartsWith(line, "HTTP/")) {
    // A new status line (after a 100 Continue or a redirect): earlier
    // headers belonged to another response.
    transfer->response.headers.clear();
    return n;
  }
  const size_t colon = line.find(':');
  if (colon == absl::string_view::npos) return n;
  std::string name = absl::AsciiStrToLower(absl::StripAsciiWhitespace(line.substr(0, colon)));
  std::string value(absl::StripAsciiWhitespace(line.substr(colon + 1)));
  transfer->response.headers.emplace_back(std::move(name), std::move(value));
  return n;
}

struct EasyDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

}  // namespace

CurlHttpClient::CurlHttpClient() {
  // curl_global_init is not thread-safe and must run before any other call.
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

absl::StatusOr<HttpResponse> CurlHttpClient::Post(const HttpRequest& request) {
  std::unique_ptr<CURL, EasyDeleter> curl(curl_easy_init());
  if (curl == nullptr) return absl::ResourceExhaustedError("curl_easy_init failed");

  std::unique_ptr<curl_slist, SlistDeleter> headers;
  for (const auto& [name, value] : request.headers) {
    curl_slist* appended =
        curl_slist_append(headers.get(), absl::StrCat(name, ": ", value).c_str());
    if (appended == nullptr) return absl::ResourceExhaustedError("curl_slist_append failed");
    headers.release();
    headers.reset(appended);
  }
  // Without this libcurl waits for "100 Continue" before sending large bodies.
  curl_slist* appended = curl_slist_append(headers.get(), "Expect:");
  if (appended == nullptr) return absl::ResourceExhaustedError("curl_slist_append failed");
  headers.release();
  headers.reset(appended);

  Transfer transfer;
  transfer.max_body_bytes = request.max_response_bytes;
  transfer.cancel = request.cancel;
  if (transfer.cancel != nullptr && transfer.cancel->cancelled()) {
    return absl::CancelledError(absl::StrCat("POST ", request.url, ": cancelled before it started"));
  }
  char error_buffer[CURL_ERROR_SIZE] = {};
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, &OnHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(request.connect_timeout)));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(request.total_timeout)));
  // Signals would be unsafe with one transfer per session thread.
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, &OnProgress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &transfer);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);

  const CURLcode code = curl_easy_perform(c);
  if (transfer.body_too_large) {
    return absl::ResourceExhaustedError(absl::StrCat("response from ", request.url,
                                                     " is longer than the limit of ",
                                                     request.max_response_bytes, " bytes"));
  }
  if (code != CURLE_OK) {
    const std::string detail = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
    const std::string message = absl::StrCat("POST ", request.url, ": ", detail);
    switch (code) {
      case CURLE_ABORTED_BY_CALLBACK:
        return absl::CancelledError(absl::StrCat("POST ", request.url, ": cancelled"));
      case CURLE_OPERATION_TIMEDOUT:
        return absl::DeadlineExceededError(message);
      case CURLE_URL_MALFORMAT:
      case CURLE_UNSUPPORTED_PROTOCOL:
        return absl::InvalidArgumentError(message);
      default:
        return absl::UnavailableError(message);
    }
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  transfer.response.status_code = static_cast<int>(status);
  return std::move(transfer.response);
}

}  // namespace kseek::llm
