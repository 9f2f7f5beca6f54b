// The real libcurl client against tests/fake_llm_server.py on loopback, in
// both wire formats: what the unit tests with FakeHttpClient cannot show is
// that the bytes on the wire are what a real endpoint accepts and returns.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/clock.h"
#include "server/llm/anthropic_client.h"
#include "server/llm/curl_http_client.h"
#include "server/llm/openai_client.h"
#include "tests/server/llm/fake_llm_server_process.h"

namespace kseek::llm {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

ChatRequest RequestOf(std::vector<ChatMessage> messages, std::vector<ToolDefinition> tools = {}) {
  ChatRequest request;
  request.messages = std::move(messages);
  request.tools = std::move(tools);
  return request;
}

constexpr char kKey[] = "sk-fake-server-key-777";

enum class Format { kOpenAi, kAnthropic };

// A temp dir holding the script and the request log, removed at the end.
class ScriptedServer {
 public:
  explicit ScriptedServer(const json& steps, std::vector<std::string> extra_args = {}) {
    dir_ = fs::temp_directory_path() /
           ("kseek_fake_llm_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "script.json") << steps.dump();
    extra_args.push_back("--request-log");
    extra_args.push_back((dir_ / "requests.jsonl").string());
    auto process = FakeLlmServerProcess::Start((dir_ / "script.json").string(), extra_args);
    INFO(process.status().ToString());
    REQUIRE(process.ok());
    process_ = *std::move(process);
  }
  ~ScriptedServer() {
    process_.reset();
    fs::remove_all(dir_);
  }

  std::string base_url() const { return process_->base_url(); }

  std::vector<json> Requests() const {
    std::vector<json> out;
    std::ifstream in(dir_ / "requests.jsonl");
    for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
    return out;
  }

 private:
  static inline int counter_ = 0;
  fs::path dir_;
  std::unique_ptr<FakeLlmServerProcess> process_;
};

struct Endpoint {
  Endpoint(Format format, const std::string& base_url) : format(format) {
    config.base_url = base_url;
    config.model = "fake-model";
    config.api_key = kKey;
    config.initial_backoff = absl::Milliseconds(1);
  }
  absl::StatusOr<ChatResponse> Complete(const ChatRequest& request) {
    auto record = [this](absl::Duration d) { sleeps.push_back(d); };
    if (format == Format::kOpenAi)
      return OpenAiClient(config, &http, &clock, record).Complete(request);
    return AnthropicClient(config, &http, &clock, record).Complete(request);
  }

  Format format;
  LlmEndpointConfig config;
  CurlHttpClient http;
  FakeClock clock;
  std::vector<absl::Duration> sleeps;
};

const ToolDefinition kCompileTool{
    "compile", "Compile a kernel file of the workspace.",
    R"({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]})"};

TEST_CASE("a tool round trip through the fake server, after a 500 and a 429") {
  const Format format = GENERATE(Format::kOpenAi, Format::kAnthropic);
  ScriptedServer server(json::parse(R"([
    {"error": {"status": 500, "message": "internal hiccup"}},
    {"error": {"status": 429, "message": "slow down", "retry_after": "2"}},
    {"reply": {"content": "Let me compile.",
               "tool_calls": [{"id": "call_7", "name": "compile", "arguments": {"path": "k.cu"}}]},
     "usage": {"input_tokens": 321, "output_tokens": 12}},
    {"reply": {"content": "It compiles."}, "usage": {"input_tokens": 400, "output_tokens": 3}}
  ])"));
  Endpoint endpoint(format, server.base_url());

  ChatRequest request = RequestOf(
      {SystemMessage("You optimize kernels."), UserMessage("Compile k.cu.")}, {kCompileTool});
  absl::StatusOr<ChatResponse> first = endpoint.Complete(request);
  INFO(first.status().ToString());
  REQUIRE(first.ok());
  CHECK(first->message.content == "Let me compile.");
  REQUIRE(first->message.tool_calls.size() == 1);
  CHECK(first->message.tool_calls[0].id == "call_7");
  CHECK(first->message.tool_calls[0].name == "compile");
  CHECK(json::parse(first->message.tool_calls[0].arguments) == json{{"path", "k.cu"}});
  CHECK(first->stop_reason == StopReason::kToolUse);
  CHECK(first->usage == TokenUsage{321, 12});
  CHECK(endpoint.sleeps == std::vector<absl::Duration>{absl::Milliseconds(1), absl::Seconds(2)});

  // The server checks that the tool result answers the call, as the real APIs do.
  request.messages.push_back(first->message);
  request.messages.push_back(ToolResultMessage("call_7", "0 errors, 0 warnings"));
  absl::StatusOr<ChatResponse> second = endpoint.Complete(request);
  INFO(second.status().ToString());
  REQUIRE(second.ok());
  CHECK(second->message.content == "It compiles.");
  CHECK(second->stop_reason == StopReason::kEndTurn);

  const std::vector<json> requests = server.Requests();
  REQUIRE(requests.size() == 4);
  const json& headers = requests[3]["headers"];
  if (format == Format::kOpenAi) {
    CHECK(requests[3]["path"] == "/v1/chat/completions");
    CHECK(headers["authorization"] == "[set]");
    CHECK(requests[3]["body"]["tools"][0]["function"]["name"] == "compile");
  } else {
    CHECK(requests[3]["path"] == "/v1/messages");
    CHECK(headers["x-api-key"] == "[set]");
    CHECK(requests[3]["body"]["tools"][0]["name"] == "compile");
  }
}

TEST_CASE("a wrong key gives UNAUTHENTICATED without the key in the message") {
  const Format format = GENERATE(Format::kOpenAi, Format::kAnthropic);
  ScriptedServer server(json::array(), {"--api-key", "sk-the-right-key"});
  Endpoint endpoint(format, server.base_url());
  absl::Status status = endpoint.Complete(RequestOf({UserMessage("hi")})).status();
  CHECK(status.code() == absl::StatusCode::kUnauthenticated);
  CHECK(status.message().find("Incorrect API key provided") != absl::string_view::npos);
  CHECK(status.ToString().find(kKey) == std::string::npos);
}

TEST_CASE("a 10 MB reply is refused over the cap and read under a larger one") {
  const Format format = GENERATE(Format::kOpenAi, Format::kAnthropic);
  constexpr int kTenMb = 10 * 1024 * 1024;
  ScriptedServer server(json::array(
      {json{{"big_reply", {{"bytes", kTenMb}}}}, json{{"big_reply", {{"bytes", kTenMb}}}}}));
  Endpoint endpoint(format, server.base_url());

  absl::Status status = endpoint.Complete(RequestOf({UserMessage("hi")})).status();
  CHECK(status.code() == absl::StatusCode::kResourceExhausted);
  CHECK(status.message().find("longer than the limit of 4194304 bytes") != absl::string_view::npos);

  endpoint.config.max_response_bytes = 16 << 20;
  absl::StatusOr<ChatResponse> response = endpoint.Complete(RequestOf({UserMessage("hi")}));
  INFO(response.status().ToString());
  REQUIRE(response.ok());
  CHECK(response->message.content.size() == static_cast<size_t>(kTenMb));
}

TEST_CASE("a body that is not JSON is FAILED_PRECONDITION") {
  const Format format = GENERATE(Format::kOpenAi, Format::kAnthropic);
  ScriptedServer server(json::parse(R"([{"raw": {
      "status": 200, "body": "<html>proxy login</html>", "content_type": "text/html"}}])"));
  Endpoint endpoint(format, server.base_url());
  absl::Status status = endpoint.Complete(RequestOf({UserMessage("hi")})).status();
  CHECK(status.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(status.message().find("proxy login") != absl::string_view::npos);
}

TEST_CASE("a reply slower than the timeout is retried, then UNAVAILABLE") {
  ScriptedServer server(json::parse(R"([
    {"delay_s": 3, "reply": {"content": "too late"}},
    {"delay_s": 3, "reply": {"content": "too late again"}}])"));
  Endpoint endpoint(Format::kOpenAi, server.base_url());
  endpoint.config.request_timeout = absl::Milliseconds(300);
  endpoint.config.max_attempts = 2;
  absl::Status status = endpoint.Complete(RequestOf({UserMessage("hi")})).status();
  CHECK(status.code() == absl::StatusCode::kUnavailable);
  CHECK(status.message().find("failed after 2 attempts") != absl::string_view::npos);
  CHECK(status.message().find("imed out") != absl::string_view::npos);
}

TEST_CASE("an endpoint that is down is retried, then UNAVAILABLE") {
  // A port that was free a moment ago: nothing listens there.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  socklen_t len = sizeof(addr);
  REQUIRE(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  close(fd);

  Endpoint endpoint(Format::kAnthropic,
                    "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/v1");
  endpoint.config.max_attempts = 3;
  absl::Status status = endpoint.Complete(RequestOf({UserMessage("hi")})).status();
  CHECK(status.code() == absl::StatusCode::kUnavailable);
  CHECK(status.message().find("failed after 3 attempts") != absl::string_view::npos);
  CHECK(endpoint.sleeps.size() == 2);
}

}  // namespace
}  // namespace kseek::llm
