#include "server/llm_endpoints.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "server/llm/chat_json.h"
#include "server/llm/replay_client.h"
#include "tests/server/llm/fake_http_client.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using kernelseek::v1::LlmConfig;

constexpr char kTwoEndpoints[] = R"(# the team's endpoints
endpoint {
  name: "team-openai"
  provider: "openai"
  base_url: "https://api.openai.com/v1/"
  api_key_env: "KSEEK_TEST_TEAM_KEY"
  models: "gpt-4o"
  models: "gpt-4.1"
}
endpoint {
  name: "local"
  provider: "anthropic"
  base_url: "http://10.0.0.7:8000/v1"
  models: "claude-x"
}
user_endpoint_url_prefix: "https://api.anthropic.com/"
)";

const char* TestEnv(const std::string& name) { return name == "KSEEK_TEST_TEAM_KEY" ? "sk-team-secret" : nullptr; }

struct EndpointsFixture {
  absl::StatusOr<LlmEndpoints> Load(const std::string& text, const std::string& replay_dir = "") {
    return LlmEndpoints::FromText(text, "endpoints.textproto", replay_dir, {}, &http, &clock, TestEnv);
  }
  llm::FakeHttpClient http;
  FakeClock clock;
};

TEST_CASE("an endpoints file that does not parse or check is an error with its line", "[llm_endpoints]") {
  EndpointsFixture f;
  absl::Status typo = f.Load("endpoint {\n  name: \"a\"\n  provder: \"openai\"\n}\n").status();
  CHECK(typo.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(typo.message()), Catch::StartsWith("endpoints.textproto:3:") && Catch::Contains("provder"));

  absl::Status no_models =
      f.Load("\n\nendpoint { name: \"a\" provider: \"openai\" base_url: \"https://x/v1\" }\n").status();
  CHECK(no_models.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(no_models.message()), Catch::StartsWith("endpoints.textproto:3:") &&
                                                   Catch::Contains("lists no models"));

  absl::Status twice = f.Load(R"(endpoint { name: "a" provider: "openai" base_url: "https://x/v1" models: "m" }
endpoint { name: "a" provider: "openai" base_url: "https://y/v1" models: "m" })")
                           .status();
  CHECK_THAT(std::string(twice.message()), Catch::Contains(":2:") && Catch::Contains("used twice"));

  // A prefix must fix the host, or "http://127.0.0.1" would allow "http://127.0.0.1.evil/".
  for (const char* prefix : {"http://127.0.0.1", "https://", "ftp://x/", "http://user@host/"}) {
    INFO(prefix);
    CHECK(f.Load(absl::StrCat("user_endpoint_url_prefix: \"", prefix, "\"")).status().code() ==
          absl::StatusCode::kInvalidArgument);
  }
}

TEST_CASE("an endpoint whose key variable is not set stops the server at start", "[llm_endpoints]") {
  EndpointsFixture f;
  absl::Status unset = f.Load(R"(endpoint { name: "a" provider: "openai" base_url: "https://x/v1"
    api_key_env: "KSEEK_TEST_NOT_SET" models: "m" })")
                           .status();
  CHECK(unset.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(unset.message()), Catch::Contains("KSEEK_TEST_NOT_SET") && Catch::Contains("not set"));
}

TEST_CASE("users pick the admin's endpoints by name and model, the key and URL stay on the server",
          "[llm_endpoints]") {
  EndpointsFixture f;
  absl::StatusOr<LlmEndpoints> endpoints = f.Load(kTwoEndpoints);
  REQUIRE(endpoints.ok());
  CHECK(endpoints->Names() == std::vector<std::string>{"local", "team-openai"});
  CHECK(endpoints->Describe().find("sk-team-secret") == std::string::npos);

  LlmConfig config;
  config.set_endpoint("team-openai");
  REQUIRE(endpoints->MakeClient(&config, "").ok());
  CHECK(config.model() == "gpt-4o");  // the first is the default
  config.set_model("gpt-4.1");
  absl::StatusOr<std::unique_ptr<llm::LlmClient>> client = endpoints->MakeClient(&config, "");
  REQUIRE(client.ok());

  // The client sends the admin's key to the admin's URL.
  f.http.RespondJson(200, {{"choices", {{{"message", {{"content", "hi"}}}}}}});
  llm::ChatRequest request;
  request.messages = {llm::UserMessage("go")};
  REQUIRE((*client)->Complete(request).ok());
  CHECK(f.http.requests().back().url == "https://api.openai.com/v1/chat/completions");
  CHECK(f.http.LastHeader("Authorization") == "Bearer sk-team-secret");

  // Its error text is the admin's to read.
  f.http.RespondJson(403, {{"error", {{"message", "org-internal-42 has no access to gpt-4.1"}}}});
  std::vector<std::string> logged;
  LlmEndpoints quiet = *endpoints;
  quiet.set_log([&](const std::string& line) { logged.push_back(line); });
  absl::StatusOr<std::unique_ptr<llm::LlmClient>> quiet_client = quiet.MakeClient(&config, "");
  REQUIRE(quiet_client.ok());
  absl::Status refused = (*quiet_client)->Complete(request).status();
  CHECK(refused.code() == absl::StatusCode::kPermissionDenied);
  CHECK(refused.message() == "POST to LLM endpoint \"team-openai\": HTTP 403; see the server log");
  REQUIRE(logged.size() == 1);
  CHECK_THAT(logged[0], Catch::Contains("org-internal-42"));

  config.set_model("o3-pro");
  absl::Status model = endpoints->MakeClient(&config, "").status();
  CHECK(model.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(model.message()), Catch::Contains("gpt-4o, gpt-4.1"));
  config.set_model("gpt-4o");
  CHECK(endpoints->MakeClient(&config, "sk-mine").status().code() == absl::StatusCode::kInvalidArgument);
  config.set_base_url("http://attacker/v1");
  CHECK(endpoints->MakeClient(&config, "").status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("a user-brought endpoint needs an allowed URL and brings its own key", "[llm_endpoints]") {
  EndpointsFixture f;
  absl::StatusOr<LlmEndpoints> endpoints = f.Load(kTwoEndpoints);
  REQUIRE(endpoints.ok());
  LlmConfig config;
  config.set_provider("anthropic");
  config.set_model("claude-x");
  for (const char* url : {"http://attacker.example/v1", "https://api.anthropic.com.evil/v1",
                          "https://api.anthropic.com@evil/v1", "https://api.anthropic.com/v1\\..\\x",
                          "http://10.0.0.7:8000/v1"}) {
    INFO(url);
    config.set_base_url(url);
    CHECK_FALSE(endpoints->MakeClient(&config, "sk-mine").ok());
  }
  config.set_base_url("https://api.anthropic.com/v1");
  REQUIRE(endpoints->MakeClient(&config, "sk-mine").ok());
  CHECK(config.key_from_client());
  // Without its key after a restart it cannot go on, and says why.
  absl::Status lost = endpoints->MakeClient(&config, "").status();
  CHECK(lost.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(lost.message()), Catch::Contains("lost when the server restarted"));
  // A server without prefixes lets nobody bring an endpoint.
  absl::StatusOr<LlmEndpoints> closed = f.Load("");
  REQUIRE(closed.ok());
  config.clear_key_from_client();
  absl::Status denied = closed->MakeClient(&config, "sk-mine").status();
  CHECK(denied.code() == absl::StatusCode::kPermissionDenied);
  CHECK_THAT(std::string(denied.message()), Catch::Contains("does not let users bring"));
}

TEST_CASE("replay traces come from the configured folder by plain name, or are uploaded, size-capped",
          "[llm_endpoints]") {
  EndpointsFixture f;
  testing::TempDir dir;
  llm::ChatResponse turn;
  turn.message = llm::AssistantMessage("Done.");
  const std::string trace =
      nlohmann::json{{"kind", llm::kModelTurnEventKind}, {"payload", llm::ChatResponseToJson(turn)}}.dump() + "\n";
  std::ofstream(dir.File("demo.jsonl")) << trace;
  mkfifo(dir.File("fifo.jsonl").c_str(), 0600);
  absl::StatusOr<LlmEndpoints> endpoints = f.Load("", dir.path());
  REQUIRE(endpoints.ok());
  auto replay = [&](const std::string& name) {
    LlmConfig config;
    config.set_provider("replay");
    config.set_replay_trace(name);
    return endpoints->MakeClient(&config, "").status();
  };
  CHECK(replay("demo.jsonl").ok());
  CHECK(replay("missing.jsonl").code() == absl::StatusCode::kNotFound);
  CHECK(replay("missing.jsonl").message() == "the server has no replay trace \"missing.jsonl\"");
  CHECK(replay("fifo.jsonl").code() == absl::StatusCode::kInvalidArgument);
  for (const char* bad : {"/etc/shadow", "../demo.jsonl", "sub/demo.jsonl", "..", ".", ""}) {
    INFO(bad);
    CHECK_FALSE(replay(bad).ok());
  }

  LlmConfig upload;
  upload.set_provider("replay");
  upload.set_replay_jsonl(trace);
  CHECK(endpoints->MakeClient(&upload, "").ok());
  upload.set_replay_jsonl(std::string(kMaxReplayTraceBytes + 1, ' '));
  CHECK(endpoints->MakeClient(&upload, "").status().code() == absl::StatusCode::kInvalidArgument);

  absl::StatusOr<LlmEndpoints> no_folder = f.Load("");
  LlmConfig named;
  named.set_provider("replay");
  named.set_replay_trace("demo.jsonl");
  CHECK(no_folder->MakeClient(&named, "").status().code() == absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace kseek
