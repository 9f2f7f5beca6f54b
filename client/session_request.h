// Turns what a user typed for `kseek session start` into the SessionSpec to
// send.
//
// Checks what the CLI can check before any network call (names, the --llm
// spelling, numeric ranges, the kernel file being readable) so a typo is a
// usage error naming the bad value. The server still validates everything
// itself, and resolves the problem, scenario sets and baseline.
#ifndef KERNELSEEK_CLIENT_SESSION_REQUEST_H_
#define KERNELSEEK_CLIENT_SESSION_REQUEST_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

struct SessionRequest {
  std::string kernel_path;  // starting kernel source to read
  std::string problem;      // e.g. "attention_fwd"
  std::string arch;         // e.g. "sm_90a"
  std::string baseline = "cudnn";
  double target_speedup = 0;
  // PROVIDER:MODEL with PROVIDER openai or anthropic, or replay:TRACE.jsonl.
  std::string llm;
  std::string llm_url;      // empty: the provider's default endpoint
  std::string api_key_env;  // empty: OPENAI_API_KEY or ANTHROPIC_API_KEY by provider
  std::string questions;    // human, bank, self or off
  int64_t max_steps = 0;
  std::string verify_scenarios = "all";
  std::string bench_scenarios = "perf";
  int64_t bench_rounds = 0;  // 0: the server's default, one round
  // Zero leaves each policy option to the server's default.
  int64_t plateau_benchmarks = 0;
  double plateau_min_gain = 0;
  int64_t failure_streak = 0;
};

// The LlmConfig for `--llm` (with --llm-url and --api-key-env). A replay
// trace path is made absolute, since the server reads it from its own working
// directory. INVALID_ARGUMENT naming the flag for a bad spelling.
absl::StatusOr<kernelseek::v1::LlmConfig> MakeLlmConfig(const std::string& llm,
                                                        const std::string& llm_url,
                                                        const std::string& api_key_env);

// QUESTION_MODE_* for "human", "bank", "self" or "off"; INVALID_ARGUMENT else.
absl::StatusOr<kernelseek::v1::QuestionMode> ParseQuestionMode(const std::string& mode);

// Reads request.kernel_path and builds the spec; kernel_name is the file's
// base name. INVALID_ARGUMENT for a bad option, NOT_FOUND or PERMISSION_DENIED
// (with the path and the OS's reason) for an unreadable file.
absl::StatusOr<kernelseek::v1::SessionSpec> MakeSessionSpec(const SessionRequest& request);

}  // namespace kseek

#endif  // KERNELSEEK_CLIENT_SESSION_REQUEST_H_
