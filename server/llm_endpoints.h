// LlmEndpoints: the LLM endpoints a server's admin configured (a
// LlmEndpointsFile from `kseek-server --llm-endpoints FILE`), their keys (read
// once from the server's environment at start), and the folder of replay
// traces; makes each session's LlmClient from its LlmConfig.
//
// This is the one place where a session's LLM is resolved, so the trust rules
// live here: a user picks an admin endpoint by name and an allowed model;
// a user-brought endpoint must match a user_endpoint_url_prefix and carries
// its own key (from the client, held in memory only); a replay trace is a
// plain name in the folder or an upload, size-capped. No name a user sends
// selects a server environment variable or a file outside the folder.
//
// Immutable after construction, so thread-safe when the HttpClient is. Does
// not own `http` or `clock`.
#ifndef KERNELSEEK_SERVER_LLM_ENDPOINTS_H_
#define KERNELSEEK_SERVER_LLM_ENDPOINTS_H_

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "proto/kernelseek.pb.h"
#include "proto/llm_endpoints.pb.h"
#include "server/llm/http_client.h"
#include "server/llm/llm_client.h"

namespace kseek {

// Retry and timeout settings for the HTTP providers.
struct LlmClientOptions {
  int max_attempts = 5;
  absl::Duration initial_backoff = absl::Seconds(1);
  absl::Duration request_timeout = absl::Minutes(5);
};

// Largest replay trace, uploaded or read from the folder.
inline constexpr size_t kMaxReplayTraceBytes = 8 << 20;
// Largest API key a client may send.
inline constexpr size_t kMaxApiKeyBytes = 4096;

class LlmEndpoints {
 public:
  // Reads the environment variable `name`; injected by tests.
  using GetEnv = std::function<const char*(const std::string& name)>;

  // Parses and checks a --llm-endpoints file. INVALID_ARGUMENT with
  // "NAME:LINE:COLUMN: ..." for text that does not parse and "NAME:LINE: ..."
  // for a bad endpoint; FAILED_PRECONDITION when an endpoint's api_key_env is
  // not set. `text` empty: no endpoints, no user-brought ones.
  static absl::StatusOr<LlmEndpoints> FromText(const std::string& text, const std::string& name,
                                               std::string replay_dir, LlmClientOptions options,
                                               llm::HttpClient* http, const Clock* clock, GetEnv get_env = nullptr);

  // The client for a session's `config`, filling in defaults (the endpoint's
  // first model). `api_key` is the key that came with StartSession (empty:
  // none). INVALID_ARGUMENT naming the field for a bad config,
  // PERMISSION_DENIED for a user-brought URL the admin does not allow,
  // NOT_FOUND for an unknown replay trace, FAILED_PRECONDITION when the
  // session's key came from the client (config.key_from_client) and
  // `api_key` is empty: it was lost with a restart. Sets key_from_client.
  absl::StatusOr<std::unique_ptr<llm::LlmClient>> MakeClient(kernelseek::v1::LlmConfig* config,
                                                             const std::string& api_key) const;

  // Endpoint names, sorted.
  std::vector<std::string> Names() const;
  // Log lines saying what is configured (names, never keys or URLs' secrets).
  std::string Describe() const;

  // Where the full error text of an admin endpoint goes (default: stderr).
  void set_log(std::function<void(const std::string&)> log) { log_ = std::move(log); }

 private:
  struct Endpoint {
    kernelseek::v1::LlmEndpoint config;
    std::string key;
  };
  LlmEndpoints() = default;
  llm::LlmEndpointConfig BaseConfig() const;
  absl::StatusOr<std::unique_ptr<llm::LlmClient>> MakeHttpClient(const std::string& provider,
                                                                 llm::LlmEndpointConfig endpoint) const;
  absl::StatusOr<std::unique_ptr<llm::LlmClient>> MakeReplay(const kernelseek::v1::LlmConfig& config) const;

  std::map<std::string, Endpoint> endpoints_;
  std::vector<std::string> user_url_prefixes_;
  std::string replay_dir_;
  LlmClientOptions options_;
  llm::HttpClient* http_ = nullptr;
  const Clock* clock_ = nullptr;
  std::function<void(const std::string&)> log_;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_LLM_ENDPOINTS_H_
