#include "server/llm_endpoints.h"

#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log.h"
#include "common/text_proto.h"
#include "server/llm/anthropic_client.h"
#include "server/llm/openai_client.h"
#include "server/llm/replay_client.h"

namespace kseek {
namespace {

using kernelseek::v1::LlmConfig;
using kernelseek::v1::LlmEndpoint;
using kernelseek::v1::LlmEndpointsFile;

bool IsPlainName(const std::string& name) {
  static const std::regex kName("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
  return std::regex_match(name, kName);
}

bool IsEnvName(const std::string& name) {
  static const std::regex kEnv("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(name, kEnv);
}

// An http(s) URL without blanks, control characters, backslashes or user
// info ('@'), which could make the host another than the one it reads as.
bool IsPlainHttpUrl(const std::string& url) {
  if (!absl::StartsWith(url, "http://") && !absl::StartsWith(url, "https://")) return false;
  if (url.size() > 2048) return false;
  return std::all_of(url.begin(), url.end(), [](char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    return u > 0x20 && u < 0x7f && c != '\\' && c != '@';
  });
}

// A prefix that fixes the host: scheme://host followed by ':' or '/'.
bool IsHostPrefix(const std::string& prefix) {
  static const std::regex kPrefix("https?://[^/:@\\\\\\s]+[:/].*");
  return IsPlainHttpUrl(prefix) && std::regex_match(prefix, kPrefix);
}

// A key goes into a header: printable ASCII without blanks, so that it can
// neither end the header nor add another.
bool IsHeaderSafe(const std::string& key) {
  return std::all_of(key.begin(), key.end(), [](char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    return u > 0x20 && u < 0x7f;
  });
}

std::string StripSlash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

absl::Status CheckEndpoint(const LlmEndpoint& e, const std::string& where) {
  if (!IsPlainName(e.name())) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": endpoint name \"", e.name(),
                                                   "\" is not a plain name (letters, digits, '.', '_', '-')"));
  }
  if (e.provider() != "openai" && e.provider() != "anthropic") {
    return absl::InvalidArgumentError(absl::StrCat(where, ": endpoint \"", e.name(), "\": provider \"", e.provider(),
                                                   "\" is not openai or anthropic"));
  }
  if (!IsPlainHttpUrl(e.base_url())) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": endpoint \"", e.name(), "\": base_url \"", e.base_url(), "\" is not an http(s) URL"));
  }
  if (!e.api_key_env().empty() && !IsEnvName(e.api_key_env())) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": endpoint \"", e.name(), "\": api_key_env \"",
                                                   e.api_key_env(), "\" is not an environment variable name"));
  }
  if (e.models().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": endpoint \"", e.name(), "\" lists no models (give at least one `models: \"...\"`)"));
  }
  for (const std::string& model : e.models()) {
    if (model.empty() || !IsHeaderSafe(model)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": endpoint \"", e.name(), "\": model \"", model, "\" is empty or has blanks"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LlmEndpoints> LlmEndpoints::FromText(const std::string& text, const std::string& name,
                                                    std::string replay_dir, LlmClientOptions options,
                                                    llm::HttpClient* http, const Clock* clock, GetEnv get_env) {
  if (!get_env) get_env = [](const std::string& var) { return std::getenv(var.c_str()); };
  google::protobuf::TextFormat::ParseInfoTree locations;
  LlmEndpointsFile file;
  if (absl::Status s = ParseTextProto(text, name, &file, &locations); !s.ok()) return s;
  LlmEndpoints result;
  result.replay_dir_ = std::move(replay_dir);
  result.options_ = options;
  result.http_ = http;
  result.clock_ = clock;
  const google::protobuf::FieldDescriptor* endpoint_field = LlmEndpointsFile::descriptor()->FindFieldByName("endpoint");
  for (int i = 0; i < file.endpoint_size(); ++i) {
    const LlmEndpoint& e = file.endpoint(i);
    const std::string where = absl::StrCat(name, ":", locations.GetLocation(endpoint_field, i).line + 1);
    if (absl::Status s = CheckEndpoint(e, where); !s.ok()) return s;
    Endpoint endpoint{e, ""};
    endpoint.config.set_base_url(StripSlash(e.base_url()));
    if (!e.api_key_env().empty()) {
      const char* key = get_env(e.api_key_env());
      if (key == nullptr || *key == '\0') {
        return absl::FailedPreconditionError(absl::StrCat(where, ": endpoint \"", e.name(), "\": environment variable ",
                                                          e.api_key_env(), " (its API key) is not set"));
      }
      endpoint.key = key;
      if (!IsHeaderSafe(endpoint.key)) {
        return absl::FailedPreconditionError(absl::StrCat(where, ": endpoint \"", e.name(), "\": the value of ",
                                                          e.api_key_env(), " has blanks or control characters"));
      }
    }
    if (!result.endpoints_.emplace(e.name(), std::move(endpoint)).second) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": endpoint name \"", e.name(), "\" is used twice"));
    }
  }
  for (const std::string& prefix : file.user_endpoint_url_prefix()) {
    if (!IsHostPrefix(prefix)) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ": user_endpoint_url_prefix \"", prefix,
          "\" must be an http(s) URL up to at least the host and the ':' or '/' after it, e.g. "
          "\"https://api.openai.com/\""));
    }
    result.user_url_prefixes_.push_back(prefix);
  }
  return result;
}

std::vector<std::string> LlmEndpoints::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, e] : endpoints_) names.push_back(name);
  return names;
}

std::string LlmEndpoints::Describe() const {
  std::vector<std::string> parts;
  for (const auto& [name, e] : endpoints_) {
    parts.push_back(absl::StrCat(name, " (", e.config.provider(), ", ", e.config.models_size(), " models)"));
  }
  return absl::StrCat("LLM endpoints: ", parts.empty() ? "none" : absl::StrJoin(parts, ", "),
                      "; user-brought endpoints: ",
                      user_url_prefixes_.empty() ? "not allowed" : absl::StrJoin(user_url_prefixes_, " "),
                      "; replay traces: ", replay_dir_.empty() ? "uploads only" : replay_dir_);
}

llm::LlmEndpointConfig LlmEndpoints::BaseConfig() const {
  llm::LlmEndpointConfig endpoint;
  endpoint.max_attempts = options_.max_attempts;
  endpoint.initial_backoff = options_.initial_backoff;
  endpoint.request_timeout = options_.request_timeout;
  endpoint.log = log_ ? log_ : [](const std::string& line) { Log(line); };
  return endpoint;
}

absl::StatusOr<std::unique_ptr<llm::LlmClient>> LlmEndpoints::MakeHttpClient(const std::string& provider,
                                                                             llm::LlmEndpointConfig endpoint) const {
  if (provider == "openai") return std::unique_ptr<llm::LlmClient>(new llm::OpenAiClient(endpoint, http_, clock_));
  return std::unique_ptr<llm::LlmClient>(new llm::AnthropicClient(endpoint, http_, clock_));
}

absl::StatusOr<std::unique_ptr<llm::LlmClient>> LlmEndpoints::MakeReplay(const LlmConfig& config) const {
  if (!config.model().empty() || !config.base_url().empty() || !config.endpoint().empty()) {
    return absl::InvalidArgumentError("llm: a replay session takes no model, base_url or endpoint");
  }
  if (config.replay_trace().empty() == config.replay_jsonl().empty()) {
    return absl::InvalidArgumentError(
        "llm: a replay session needs exactly one of replay_trace (a trace in the server's folder) and replay_jsonl "
        "(an uploaded trace)");
  }
  absl::StatusOr<std::unique_ptr<llm::ReplayLlmClient>> replay;
  if (!config.replay_jsonl().empty()) {
    if (config.replay_jsonl().size() > kMaxReplayTraceBytes) {
      return absl::InvalidArgumentError(absl::StrCat("llm.replay_jsonl: the uploaded trace is ",
                                                     config.replay_jsonl().size(), " bytes; the limit is ",
                                                     kMaxReplayTraceBytes));
    }
    replay = llm::ReplayLlmClient::FromJsonl(config.replay_jsonl(), "the uploaded trace");
  } else {
    const std::string& name = config.replay_trace();
    if (!IsPlainName(name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "llm.replay_trace \"", name,
          "\" is not a plain file name (letters, digits, '.', '_', '-'; no '/'): name a trace in the server's "
          "--replay-traces folder, or upload one"));
    }
    if (replay_dir_.empty()) {
      return absl::FailedPreconditionError(
          "this server has no replay trace folder (kseek-server --replay-traces); upload the trace instead");
    }
    replay = llm::ReplayLlmClient::FromFile(absl::StrCat(replay_dir_, "/", name), name, kMaxReplayTraceBytes);
    if (!replay.ok() && replay.status().code() == absl::StatusCode::kNotFound) {
      return absl::NotFoundError(absl::StrCat("the server has no replay trace \"", name, "\""));
    }
  }
  if (!replay.ok()) return absl::Status(replay.status().code(), absl::StrCat("llm: ", replay.status().message()));
  return std::unique_ptr<llm::LlmClient>(*std::move(replay));
}

absl::StatusOr<std::unique_ptr<llm::LlmClient>> LlmEndpoints::MakeClient(LlmConfig* config,
                                                                         const std::string& api_key) const {
  if (!config->legacy_api_key_env().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "llm: naming a server environment variable for the key (", config->legacy_api_key_env(),
        ") is no longer possible; pick one of the server's endpoints by name, or bring your own endpoint with its key"));
  }
  if (api_key.size() > kMaxApiKeyBytes || !IsHeaderSafe(api_key)) {
    return absl::InvalidArgumentError(absl::StrCat("llm_api_key must be at most ", kMaxApiKeyBytes,
                                                   " bytes of printable ASCII without blanks"));
  }
  if (config->provider() == "replay") {
    if (!api_key.empty()) return absl::InvalidArgumentError("llm_api_key does not apply to a replay session");
    return MakeReplay(*config);
  }
  if (!config->replay_trace().empty() || !config->replay_jsonl().empty()) {
    return absl::InvalidArgumentError("llm: a replay trace needs provider \"replay\"");
  }

  if (!config->endpoint().empty()) {
    if (!config->provider().empty() || !config->base_url().empty()) {
      return absl::InvalidArgumentError(
          "llm: give either an endpoint of the server's by name, or provider and base_url of your own, not both");
    }
    if (!api_key.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("llm_api_key does not apply to the server's endpoint \"",
                                                     config->endpoint(), "\": it has its own key"));
    }
    auto it = endpoints_.find(config->endpoint());
    if (it == endpoints_.end()) {
      const std::string known = endpoints_.empty() ? "none" : absl::StrJoin(Names(), ", ");
      return absl::InvalidArgumentError(
          absl::StrCat("llm.endpoint: the server has no LLM endpoint \"", config->endpoint(), "\"; it has: ", known));
    }
    const LlmEndpoint& e = it->second.config;
    if (config->model().empty()) config->set_model(e.models(0));
    if (std::find(e.models().begin(), e.models().end(), config->model()) == e.models().end()) {
      return absl::InvalidArgumentError(absl::StrCat("llm.model \"", config->model(), "\" is not offered by endpoint \"",
                                                     e.name(), "\"; it offers: ", absl::StrJoin(e.models(), ", ")));
    }
    config->set_key_from_client(false);
    llm::LlmEndpointConfig endpoint = BaseConfig();
    endpoint.base_url = e.base_url();
    endpoint.model = config->model();
    endpoint.api_key = it->second.key;
    endpoint.display_name = absl::StrCat("LLM endpoint \"", e.name(), "\"");
    endpoint.show_endpoint_errors = false;
    return MakeHttpClient(e.provider(), std::move(endpoint));
  }

  // An endpoint the user brings.
  if (config->provider() != "openai" && config->provider() != "anthropic") {
    return absl::InvalidArgumentError(absl::StrCat(
        "llm: give endpoint (one of the server's: ", endpoints_.empty() ? "none" : absl::StrJoin(Names(), ", "),
        "), or provider openai or anthropic with base_url for your own, or provider replay; got provider \"",
        config->provider(), "\""));
  }
  if (config->base_url().empty()) {
    return absl::InvalidArgumentError("llm.base_url is required for an endpoint you bring (provider " +
                                      config->provider() + ")");
  }
  if (!IsPlainHttpUrl(config->base_url())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "llm.base_url \"", config->base_url(), "\" is not a plain http(s) URL (no blanks, '\\' or '@')"));
  }
  const bool allowed = std::any_of(user_url_prefixes_.begin(), user_url_prefixes_.end(),
                                   [&](const std::string& p) { return absl::StartsWith(config->base_url(), p); });
  if (!allowed) {
    return absl::PermissionDeniedError(absl::StrCat(
        "llm.base_url \"", config->base_url(), "\": ",
        user_url_prefixes_.empty()
            ? "this server does not let users bring LLM endpoints; pick one of its own by name ("
            : "this server lets users bring endpoints only under ",
        user_url_prefixes_.empty() ? (endpoints_.empty() ? "none configured" : absl::StrJoin(Names(), ", "))
                                   : absl::StrJoin(user_url_prefixes_, " "),
        user_url_prefixes_.empty() ? ")" : ""));
  }
  if (config->model().empty()) return absl::InvalidArgumentError("llm.model is required");
  if (!IsHeaderSafe(config->model()) || config->model().size() > 256) {
    return absl::InvalidArgumentError(absl::StrCat("llm.model \"", config->model(), "\" has blanks or is too long"));
  }
  if (config->key_from_client() && api_key.empty()) {
    return absl::FailedPreconditionError(
        "the API key of this session's endpoint came from the client and was held only in the server's memory, so "
        "it was lost when the server restarted; start a new session with the key (its best kernel: kseek best ID)");
  }
  config->set_key_from_client(!api_key.empty());
  llm::LlmEndpointConfig endpoint = BaseConfig();
  endpoint.base_url = StripSlash(config->base_url());
  endpoint.model = config->model();
  endpoint.api_key = api_key;
  endpoint.display_name = endpoint.base_url;
  endpoint.show_endpoint_errors = true;
  return MakeHttpClient(config->provider(), std::move(endpoint));
}

}  // namespace kseek
