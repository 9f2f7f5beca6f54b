#include "client/session_request.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "absl/strings/match.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using kernelseek::v1::LlmConfig;
using kernelseek::v1::SessionSpec;

SessionRequest ValidRequest(const std::string& kernel_path) {
  SessionRequest request;
  request.kernel_path = kernel_path;
  request.problem = "attention_fwd";
  request.arch = "sm_90a";
  request.target_speedup = 1.10;
  request.llm_url = "https://api.example/v1";
  request.llm_model = "gpt-test";
  request.questions = "bank";
  request.max_steps = 40;
  return request;
}

SessionRequest LlmOnly() {
  SessionRequest request;
  request.llm_provider = "openai";
  return request;
}

const char* NoEnv(const std::string&) { return nullptr; }

TEST_CASE("the --llm-endpoint flag picks the server's endpoint by name, the model is optional and no key travels") {
  SessionRequest request = LlmOnly();
  request.llm_endpoint = "team-openai";
  absl::StatusOr<LlmChoice> choice = MakeLlmChoice(request, NoEnv);
  REQUIRE(choice.ok());
  CHECK(choice->config.endpoint() == "team-openai");
  CHECK(choice->config.model().empty());
  CHECK(choice->config.provider().empty());
  CHECK(choice->api_key.empty());
  request.llm_model = "gpt-4o";
  CHECK(MakeLlmChoice(request, NoEnv)->config.model() == "gpt-4o");
}

TEST_CASE("the --llm-url flag brings your own endpoint, its key is read on the client from --api-key-env or --api-key-file") {
  testing::TempDir dir;
  SessionRequest request = LlmOnly();
  request.llm_url = "http://127.0.0.1:8000/v1";
  request.llm_model = "llama3:8b";
  request.api_key_env = "MY_KEY";
  absl::StatusOr<LlmChoice> choice =
      MakeLlmChoice(request, [](const std::string& name) { return name == "MY_KEY" ? "sk-mine" : nullptr; });
  REQUIRE(choice.ok());
  CHECK(choice->config.provider() == "openai");
  CHECK(choice->config.base_url() == "http://127.0.0.1:8000/v1");
  CHECK(choice->config.model() == "llama3:8b");
  CHECK(choice->api_key == "sk-mine");
  CHECK(choice->config.legacy_api_key_env().empty());  // the variable's name never travels

  request.api_key_env.clear();
  request.api_key_file = dir.File("key");
  std::ofstream(request.api_key_file) << "sk-from-file\n";
  request.llm_provider = "anthropic";
  choice = MakeLlmChoice(request, NoEnv);
  REQUIRE(choice.ok());
  CHECK(choice->api_key == "sk-from-file");
  CHECK(choice->config.provider() == "anthropic");
}

TEST_CASE("the --replay-trace flag names a server trace by plain name, --replay-file uploads one") {
  testing::TempDir dir;
  SessionRequest request = LlmOnly();
  request.replay_trace = "demo.jsonl";
  absl::StatusOr<LlmChoice> named = MakeLlmChoice(request, NoEnv);
  REQUIRE(named.ok());
  CHECK(named->config.provider() == "replay");
  CHECK(named->config.replay_trace() == "demo.jsonl");
  request.replay_trace.clear();
  request.replay_file = dir.File("t.jsonl");
  std::ofstream(request.replay_file) << "{\"kind\": \"model_message\"}\n";
  absl::StatusOr<LlmChoice> uploaded = MakeLlmChoice(request, NoEnv);
  REQUIRE(uploaded.ok());
  CHECK(uploaded->config.replay_jsonl() == "{\"kind\": \"model_message\"}\n");
  CHECK(uploaded->config.replay_trace().empty());
}

TEST_CASE("a wrong LLM choice is a usage error naming what is wrong") {
  auto message = [](const std::function<void(SessionRequest*)>& edit) {
    SessionRequest request = LlmOnly();
    edit(&request);
    absl::StatusOr<LlmChoice> choice = MakeLlmChoice(request, NoEnv);
    REQUIRE(!choice.ok());
    return std::string(choice.status().message());
  };
  CHECK(absl::StartsWith(message([](SessionRequest*) {}), "no LLM given; give one of --llm-endpoint NAME"));
  CHECK(absl::StartsWith(message([](SessionRequest* r) {
                           r->llm_endpoint = "a";
                           r->llm_url = "http://x/v1";
                         }),
                         "more than one LLM given"));
  CHECK_THAT(message([](SessionRequest* r) {
               r->llm_endpoint = "a";
               r->api_key_env = "K";
             }),
             Catch::Contains("are for an endpoint you bring"));
  CHECK(message([](SessionRequest* r) {
          r->llm_url = "http://x/v1";
          r->llm_model = "m";
          r->api_key_env = "MY-KEY";
        }) == "--api-key-env \"MY-KEY\" is not an environment variable name");
  CHECK(message([](SessionRequest* r) {
          r->llm_url = "http://x/v1";
          r->llm_model = "m";
          r->api_key_env = "UNSET_HERE";
        }) == "--api-key-env: environment variable UNSET_HERE is not set or empty here");
  CHECK_THAT(message([](SessionRequest* r) { r->llm_url = "http://x/v1"; }), Catch::Contains("--llm-model is required"));
  CHECK_THAT(message([](SessionRequest* r) { r->replay_trace = "/etc/shadow"; }),
             Catch::Contains("is not a plain name"));
  CHECK_THAT(message([](SessionRequest* r) { r->replay_file = "/nonexistent/t.jsonl"; }),
             Catch::Contains("--replay-file /nonexistent/t.jsonl"));
}

TEST_CASE("a session spec carries the kernel file and every option") {
  testing::TempDir dir;
  std::string path = dir.File("naive.cu");
  std::ofstream(path) << "extern \"C\" int attention_fwd() { return 0; }\n";
  SessionRequest request = ValidRequest(path);
  request.questions = "self";
  request.bench_scenarios = "perf-a,perf-b";
  request.bench_rounds = 3;
  request.plateau_benchmarks = 4;
  request.plateau_min_gain = 0.05;
  request.failure_streak = 2;

  absl::StatusOr<SessionSpec> spec = MakeSessionSpec(request);
  REQUIRE(spec.ok());
  CHECK(spec->kernel_name() == "naive.cu");
  CHECK(spec->kernel_source() == "extern \"C\" int attention_fwd() { return 0; }\n");
  CHECK(spec->problem() == "attention_fwd");
  CHECK(spec->arch() == "sm_90a");
  CHECK(spec->baseline().empty());  // the problem's default_baseline, filled in by the server
  CHECK(spec->target_speedup() == 1.10);
  CHECK(spec->llm().model() == "gpt-test");
  CHECK(spec->questions() == kernelseek::v1::QUESTION_MODE_SELF);
  CHECK(spec->max_steps() == 40);
  CHECK(spec->verify_scenarios().empty());
  CHECK(spec->bench_scenarios() == "perf-a,perf-b");
  CHECK(spec->bench_rounds() == 3);
  CHECK(spec->policy().plateau_benchmarks() == 4);
  CHECK(spec->policy().plateau_min_gain() == 0.05);
  CHECK(spec->policy().failure_streak() == 2);
}

TEST_CASE("bad session options are usage errors checked before the file is read") {
  testing::TempDir dir;
  std::string path = dir.File("naive.cu");
  std::ofstream(path) << "// kernel\n";
  auto error = [&](void (*change)(SessionRequest*)) {
    SessionRequest request = ValidRequest(path);
    change(&request);
    absl::StatusOr<SessionSpec> spec = MakeSessionSpec(request);
    REQUIRE(!spec.ok());
    return spec.status();
  };
  CHECK(error([](SessionRequest* r) { r->questions = "sometimes"; }).message() ==
        "--questions \"sometimes\" is not one of human, bank, self, off");
  CHECK(error([](SessionRequest* r) { r->questions = ""; }).message() ==
        "--questions is required: human, bank, self or off");
  CHECK(error([](SessionRequest* r) { r->baseline = "none"; }).message() ==
        "--baseline \"none\" is not one baseline of the problem's, e.g. cudnn");
  CHECK(error([](SessionRequest* r) { r->baseline = "fa3,cudnn"; }).message() ==
        "--baseline \"fa3,cudnn\" is not one baseline of the problem's, e.g. cudnn");
  CHECK(absl::StartsWith(error([](SessionRequest* r) { r->target_speedup = 0; }).message(),
                         "--target wants a speedup over the baseline in (0, 1000]"));
  CHECK(error([](SessionRequest* r) { r->max_steps = 0; }).message() ==
        "--max-steps wants 1..100000, got 0");
  CHECK(absl::StartsWith(error([](SessionRequest* r) { r->bench_scenarios = "perf,"; }).message(),
                         "--bench-scenarios \"perf,\" has an empty item"));
  CHECK(absl::StartsWith(error([](SessionRequest* r) { r->plateau_min_gain = 2; }).message(),
                         "--plateau-gain wants a fraction in [0, 1)"));
  CHECK(error([](SessionRequest* r) { r->bench_rounds = 11; }).message() ==
        "--bench-rounds wants 0..10 (0: the server's default), got 11");
  CHECK(error([](SessionRequest* r) { r->plateau_benchmarks = -1; }).message() ==
        "--plateau wants 0..1000 (0: the server's default), got -1");
  CHECK(error([](SessionRequest* r) { r->arch = "hopper"; }).message() ==
        "--arch \"hopper\" is not an architecture like sm_90a or sm_100a");
  CHECK(error([](SessionRequest* r) { r->kernel_path.clear(); }).message() ==
        "--kernel is required: the starting kernel's .cu file");
  CHECK(error([](SessionRequest* r) { r->problem = "attention fwd"; }).message() ==
        "--problem \"attention fwd\" is not a problem name like attention_fwd");
}

TEST_CASE("an unreadable kernel file is NOT_FOUND naming the path") {
  SessionRequest request = ValidRequest("/nonexistent/naive.cu");
  absl::StatusOr<SessionSpec> spec = MakeSessionSpec(request);
  CHECK(spec.status().code() == absl::StatusCode::kNotFound);
  CHECK(spec.status().message() == "cannot read /nonexistent/naive.cu: No such file or directory");
}

}  // namespace
}  // namespace kseek
