#include "client/session_request.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
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

absl::Status CheckScenarios(absl::string_view flag, const std::string& scenarios) {
  if (scenarios.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " is empty; give all, a set name or ID,ID,..."));
  }
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
  // A session's goal is a speedup over the baseline, so "none" cannot be one.
  std::vector<std::string> baselines;
  for (const char* name : kBaselineNames) {
    if (absl::string_view(name) != "none") baselines.push_back(name);
  }
  if (std::find(baselines.begin(), baselines.end(), request.baseline) == baselines.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--baseline \"", request.baseline, "\" is not one of ", absl::StrJoin(baselines, ", ")));
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

absl::StatusOr<LlmConfig> MakeLlmConfig(const std::string& llm, const std::string& llm_url,
                                        const std::string& api_key_env) {
  constexpr absl::string_view kSpelling =
      "give openai:MODEL, anthropic:MODEL or replay:TRACE.jsonl";
  if (llm.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--llm is required; ", kSpelling));
  }
  size_t colon = llm.find(':');
  // Model names may hold colons themselves (Ollama's "llama3:8b"), so only
  // the first one separates the provider.
  std::string provider = colon == std::string::npos ? llm : llm.substr(0, colon);
  std::string rest = colon == std::string::npos ? "" : llm.substr(colon + 1);
  if (provider != "openai" && provider != "anthropic" && provider != "replay") {
    return absl::InvalidArgumentError(
        absl::StrCat("--llm \"", llm, "\" names no known provider; ", kSpelling));
  }
  if (rest.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--llm \"", llm, "\" lacks the ",
                                                   provider == "replay" ? "trace file" : "model",
                                                   " after \"", provider, ":\"; ", kSpelling));
  }
  if (!api_key_env.empty() && !IsEnvName(api_key_env)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--api-key-env \"", api_key_env, "\" is not an environment variable name"));
  }
  if (llm_url.find_first_of(" \t\n") != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("--llm-url \"", llm_url, "\" contains a blank"));
  }

  LlmConfig config;
  config.set_provider(provider);
  if (provider == "replay") {
    if (!llm_url.empty() || !api_key_env.empty()) {
      return absl::InvalidArgumentError(
          "--llm-url and --api-key-env do not apply to --llm replay:TRACE.jsonl");
    }
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(rest, ec);
    config.set_replay_trace(ec ? rest : absolute.lexically_normal().string());
    return config;
  }
  config.set_model(rest);
  config.set_base_url(llm_url);
  if (!api_key_env.empty()) {
    config.set_api_key_env(api_key_env);
  } else {
    config.set_api_key_env(provider == "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY");
  }
  return config;
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

absl::StatusOr<SessionSpec> MakeSessionSpec(const SessionRequest& request) {
  if (request.kernel_path.empty()) {
    return absl::InvalidArgumentError("--kernel is required: the starting kernel's .cu file");
  }
  if (absl::Status s = CheckOptions(request); !s.ok()) return s;
  absl::StatusOr<LlmConfig> llm = MakeLlmConfig(request.llm, request.llm_url, request.api_key_env);
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
  *spec.mutable_llm() = *std::move(llm);
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
