#include "client/session_request.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
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
  request.llm = "openai:gpt-test";
  request.questions = "bank";
  request.max_steps = 40;
  return request;
}

TEST_CASE("the --llm flag picks the provider, the model and the API key variable") {
  absl::StatusOr<LlmConfig> openai = MakeLlmConfig("openai:gpt-4o", "http://127.0.0.1:8000/v1", "");
  REQUIRE(openai.ok());
  CHECK(openai->provider() == "openai");
  CHECK(openai->model() == "gpt-4o");
  CHECK(openai->base_url() == "http://127.0.0.1:8000/v1");
  CHECK(openai->api_key_env() == "OPENAI_API_KEY");

  absl::StatusOr<LlmConfig> anthropic = MakeLlmConfig("anthropic:claude-x", "", "");
  REQUIRE(anthropic.ok());
  CHECK(anthropic->api_key_env() == "ANTHROPIC_API_KEY");

  // Ollama model names hold a colon of their own.
  absl::StatusOr<LlmConfig> ollama = MakeLlmConfig("openai:llama3:8b", "", "LOCAL_KEY");
  REQUIRE(ollama.ok());
  CHECK(ollama->model() == "llama3:8b");
  CHECK(ollama->api_key_env() == "LOCAL_KEY");
}

TEST_CASE("a replay:FILE --llm sends an absolute path the server can open") {
  absl::StatusOr<LlmConfig> replay = MakeLlmConfig("replay:traces/demo.jsonl", "", "");
  REQUIRE(replay.ok());
  CHECK(replay->provider() == "replay");
  CHECK(replay->replay_trace() ==
        (std::filesystem::current_path() / "traces/demo.jsonl").lexically_normal().string());
  CHECK(replay->model().empty());
  CHECK(replay->api_key_env().empty());
}

TEST_CASE("a mistyped --llm is a usage error naming what is wrong") {
  auto message = [](const std::string& llm, const std::string& url, const std::string& env) {
    absl::StatusOr<LlmConfig> config = MakeLlmConfig(llm, url, env);
    REQUIRE(config.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(config.status().message());
  };
  CHECK(message("", "", "") ==
        "--llm is required; give openai:MODEL, anthropic:MODEL or "
        "replay:TRACE.jsonl");
  CHECK(absl::StartsWith(message("gpt-4o", "", ""), "--llm \"gpt-4o\" names no known provider"));
  CHECK(absl::StartsWith(message("openai:", "", ""),
                         "--llm \"openai:\" lacks the model after \"openai:\""));
  CHECK(absl::StartsWith(message("replay:", "", ""), "--llm \"replay:\" lacks the trace file"));
  CHECK(message("openai:m", "", "MY-KEY") ==
        "--api-key-env \"MY-KEY\" is not an environment variable name");
  CHECK(message("replay:t.jsonl", "http://x", "") ==
        "--llm-url and --api-key-env do not apply to --llm replay:TRACE.jsonl");
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
  CHECK(spec->baseline() == "cudnn");
  CHECK(spec->target_speedup() == 1.10);
  CHECK(spec->llm().model() == "gpt-test");
  CHECK(spec->questions() == kernelseek::v1::QUESTION_MODE_SELF);
  CHECK(spec->max_steps() == 40);
  CHECK(spec->verify_scenarios() == "all");
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
        "--baseline \"none\" is not one of cudnn, fa2, fa3, fa4");
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
