#include "client/session_request.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "client/compile_request.h"
#include "client/run_request.h"
#include "common/run_limits.h"

namespace kseek {
namespace {

using kernelseek::v1::LlmConfig;
using kernelseek::v1::QuestionMode;
using kernelseek::v1::SessionSpec;

// Bounds that only catch typos: a session of more model turns than this, or
// a target speedup beyond this factor, is a slip of the keyboard, not a plan.
constexpr int64_t kMaxSteps = 100'000;
constexpr double kMaxTargetSpeedup = 1000;
constexpr int64_t kMaxPolicyCount = 1000;

// Problem names, set names and scenario ids share the alphabet of
// proto/problem.proto: letters, digits, '-', '_', '.'.
bool IsName(absl::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

// An environment variable name as a POSIX shell accepts it.
bool IsEnvName(absl::string_view name) {
  if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// The server's own caps are larger; these catch a wrong file.
constexpr size_t kMaxReplayUploadBytes = 8 << 20;
constexpr size_t kMaxApiKeyFileBytes = 4096;

// The file at `path`, at most `max_bytes`; errors name --`flag`.
absl::StatusOr<std::string> ReadSmallFile(absl::string_view flag, const std::string& path, size_t max_bytes) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return absl::NotFoundError(absl::StrCat("--", flag, " ", path, ": not a readable file"));
  }
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " ", path, " is ", ec ? 0 : size, " bytes; the limit is ", max_bytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::PermissionDeniedError(absl::StrCat("--", flag, " ", path, ": cannot be read"));
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

// Empty: the problem's default, which the server fills in.
absl::Status CheckScenarios(absl::string_view flag, const std::string& scenarios) {
  if (scenarios.empty()) return absl::OkStatus();
  for (absl::string_view item : absl::StrSplit(scenarios, ',')) {
    if (!IsName(item)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, " \"", scenarios, "\" has ",
                       item.empty() ? "an empty item" : absl::StrCat("\"", item, "\""),
                       "; give all, a set name or ID,ID,... (letters, digits, '-', '_', '.')"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckCount(absl::string_view flag, int64_t value, int64_t max, bool zero_ok) {
  if (value < (zero_ok ? 0 : 1) || value > max) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, " wants ", zero_ok ? 0 : 1, "..",
                                                   max, zero_ok ? " (0: the server's default)" : "",
                                                   ", got ", value));
  }
  return absl::OkStatus();
}

absl::Status CheckOptions(const SessionRequest& request) {
  if (request.problem.empty()) {
    return absl::InvalidArgumentError("--problem is required, e.g. --problem attention_fwd");
  }
  if (!IsName(request.problem)) {
    return absl::InvalidArgumentError(absl::StrCat("--problem \"", request.problem,
                                                   "\" is not a problem name like attention_fwd"));
  }
  // A session's goal is a speedup over one baseline, so "none" or a list
  // cannot be one. Empty is the problem's default; the server checks that the
  // problem has the baseline named.
  if (!request.baseline.empty() && (request.baseline == "none" || !IsName(request.baseline))) {
    return absl::InvalidArgumentError(absl::StrCat("--baseline \"", request.baseline,
                                                   "\" is not one baseline of the problem's, e.g. cudnn"));
  }
  double target = request.target_speedup;
  if (!std::isfinite(target) || target <= 0 || target > kMaxTargetSpeedup) {
    return absl::InvalidArgumentError(
        absl::StrCat("--target wants a speedup over the baseline in (0, ", kMaxTargetSpeedup,
                     "], e.g. 1.10, got ", target));
  }
  if (absl::Status s = CheckCount("max-steps", request.max_steps, kMaxSteps, false); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckScenarios("verify-scenarios", request.verify_scenarios); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckScenarios("bench-scenarios", request.bench_scenarios); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckCount("bench-rounds", request.bench_rounds, kMaxBenchRounds, true);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckCount("plateau", request.plateau_benchmarks, kMaxPolicyCount, true);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckCount("failure-streak", request.failure_streak, kMaxPolicyCount, true);
      !s.ok()) {
    return s;
  }
  double gain = request.plateau_min_gain;
  if (!std::isfinite(gain) || gain < 0 || gain >= 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--plateau-gain wants a fraction in [0, 1), e.g. 0.02 for 2% (0: the "
                     "server's default), got ",
                     gain));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LlmChoice> MakeLlmChoice(const SessionRequest& request, const GetEnvFunction& get_env_in) {
  const GetEnvFunction get_env =
      get_env_in ? get_env_in : GetEnvFunction([](const std::string& name) { return std::getenv(name.c_str()); });
  constexpr absl::string_view kChoices =
      "give one of --llm-endpoint NAME (the server's), --llm-url URL (your own), --replay-trace NAME or "
      "--replay-file FILE";
  const int chosen = !request.llm_endpoint.empty() + !request.llm_url.empty() + !request.replay_trace.empty() +
                     !request.replay_file.empty();
  if (chosen == 0) return absl::InvalidArgumentError(absl::StrCat("no LLM given; ", kChoices));
  if (chosen > 1) return absl::InvalidArgumentError(absl::StrCat("more than one LLM given; ", kChoices));
  const bool own = !request.llm_url.empty();
  if (!own && (!request.api_key_env.empty() || !request.api_key_file.empty())) {
    return absl::InvalidArgumentError(
        "--api-key-env and --api-key-file are for an endpoint you bring (--llm-url); the server's endpoints have "
        "their own keys");
  }
  const bool replay = !request.replay_trace.empty() || !request.replay_file.empty();
  if (replay && !request.llm_model.empty()) {
    return absl::InvalidArgumentError("--llm-model does not apply to a replay (--replay-trace, --replay-file)");
  }

  LlmChoice choice;
  LlmConfig& config = choice.config;
  if (!request.llm_endpoint.empty()) {
    if (!IsName(request.llm_endpoint)) {
      return absl::InvalidArgumentError(absl::StrCat("--llm-endpoint \"", request.llm_endpoint,
                                                     "\" is not an endpoint name (letters, digits, '-', '_', '.')"));
    }
    config.set_endpoint(request.llm_endpoint);
    config.set_model(request.llm_model);
    return choice;
  }
  if (!request.replay_trace.empty()) {
    if (!IsName(request.replay_trace)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--replay-trace \"", request.replay_trace,
          "\" is not a plain name of a trace the server has (no '/'); to send a file of yours use --replay-file"));
    }
    config.set_provider("replay");
    config.set_replay_trace(request.replay_trace);
    return choice;
  }
  if (!request.replay_file.empty()) {
    absl::StatusOr<std::string> text = ReadSmallFile("replay-file", request.replay_file, kMaxReplayUploadBytes);
    if (!text.ok()) return text.status();
    config.set_provider("replay");
    config.set_replay_jsonl(*std::move(text));
    return choice;
  }
  // An endpoint of the user's own.
  if (request.llm_provider != "openai" && request.llm_provider != "anthropic") {
    return absl::InvalidArgumentError(
        absl::StrCat("--llm-provider \"", request.llm_provider, "\" is not openai or anthropic"));
  }
  if (request.llm_url.rfind("http://", 0) != 0 && request.llm_url.rfind("https://", 0) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("--llm-url \"", request.llm_url, "\" is not an http(s) URL"));
  }
  if (request.llm_url.find_first_of(" \t\r\n") != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("--llm-url \"", request.llm_url, "\" contains a blank"));
  }
  if (request.llm_model.empty()) {
    return absl::InvalidArgumentError("--llm-model is required with --llm-url, e.g. --llm-model gpt-4o");
  }
  if (!request.api_key_env.empty() && !request.api_key_file.empty()) {
    return absl::InvalidArgumentError("give --api-key-env or --api-key-file, not both");
  }
  if (!request.api_key_env.empty()) {
    if (!IsEnvName(request.api_key_env)) {
      return absl::InvalidArgumentError(absl::StrCat("--api-key-env \"", request.api_key_env,
                                                     "\" is not an environment variable name"));
    }
    const char* key = get_env(request.api_key_env);
    if (key == nullptr || *key == '\0') {
      return absl::InvalidArgumentError(absl::StrCat("--api-key-env: environment variable ", request.api_key_env,
                                                     " is not set or empty here"));
    }
    choice.api_key = key;
  } else if (!request.api_key_file.empty()) {
    absl::StatusOr<std::string> key = ReadSmallFile("api-key-file", request.api_key_file, kMaxApiKeyFileBytes);
    if (!key.ok()) return key.status();
    choice.api_key = std::string(absl::StripTrailingAsciiWhitespace(*key));
    if (choice.api_key.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--api-key-file ", request.api_key_file, " is empty"));
    }
  }
  if (!std::all_of(choice.api_key.begin(), choice.api_key.end(),
                   [](char c) { return static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7f; })) {
    return absl::InvalidArgumentError("the API key has blanks or control characters");
  }
  config.set_provider(request.llm_provider);
  config.set_base_url(request.llm_url);
  config.set_model(request.llm_model);
  return choice;
}

absl::StatusOr<QuestionMode> ParseQuestionMode(const std::string& mode) {
  if (mode == "human") return kernelseek::v1::QUESTION_MODE_HUMAN;
  if (mode == "bank") return kernelseek::v1::QUESTION_MODE_BANK;
  if (mode == "self") return kernelseek::v1::QUESTION_MODE_SELF;
  if (mode == "off") return kernelseek::v1::QUESTION_MODE_OFF;
  if (mode.empty()) {
    return absl::InvalidArgumentError("--questions is required: human, bank, self or off");
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--questions \"", mode, "\" is not one of human, bank, self, off"));
}

absl::StatusOr<SessionSpec> MakeSessionSpec(const SessionRequest& request, std::string* api_key,
                                            const GetEnvFunction& get_env) {
  if (request.kernel_path.empty()) {
    return absl::InvalidArgumentError("--kernel is required: the starting kernel's .cu file");
  }
  if (absl::Status s = CheckOptions(request); !s.ok()) return s;
  absl::StatusOr<LlmChoice> llm = MakeLlmChoice(request, get_env);
  if (!llm.ok()) return llm.status();
  absl::StatusOr<QuestionMode> questions = ParseQuestionMode(request.questions);
  if (!questions.ok()) return questions.status();
  // The compile checks cover the arch spelling and reading the file.
  CompileRequest compile;
  compile.path = request.kernel_path;
  compile.arch = request.arch;
  absl::StatusOr<kernelseek::v1::JobSpec> job = MakeCompileSpec(compile);
  if (!job.ok()) return job.status();

  SessionSpec spec;
  spec.set_problem(request.problem);
  spec.set_arch(request.arch);
  spec.set_kernel_name(job->source_name());
  spec.set_kernel_source(job->source());
  spec.set_baseline(request.baseline);
  spec.set_target_speedup(request.target_speedup);
  *spec.mutable_llm() = std::move(llm->config);
  if (api_key != nullptr) *api_key = std::move(llm->api_key);
  spec.set_questions(*questions);
  spec.set_max_steps(static_cast<int32_t>(request.max_steps));
  spec.set_verify_scenarios(request.verify_scenarios);
  spec.set_bench_scenarios(request.bench_scenarios);
  spec.set_bench_rounds(static_cast<int32_t>(request.bench_rounds));
  kernelseek::v1::PolicyOptions* policy = spec.mutable_policy();
  policy->set_plateau_benchmarks(static_cast<int32_t>(request.plateau_benchmarks));
  policy->set_plateau_min_gain(request.plateau_min_gain);
  policy->set_failure_streak(static_cast<int32_t>(request.failure_streak));
  return spec;
}

}  // namespace kseek
