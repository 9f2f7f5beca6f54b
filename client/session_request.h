// Turns what a user typed for `kseek session start` into the SessionSpec to
// send.
//
// Checks what the CLI can check before any network call (names, the LLM
// flags, numeric ranges, the kernel file being readable) so a typo is a
// usage error naming the bad value. The server still validates everything
// itself, and resolves the problem, scenario sets and baseline.
#ifndef KERNELSEEK_CLIENT_SESSION_REQUEST_H_
#define KERNELSEEK_CLIENT_SESSION_REQUEST_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

struct SessionRequest {
  std::string kernel_path;  // starting kernel source to read
  std::string problem;      // e.g. "attention_fwd"
  std::string arch;         // e.g. "sm_90a"
  std::string baseline;  // empty: the problem's default_baseline
  double target_speedup = 0;
  // The LLM, exactly one of: an endpoint of the server's by name (with
  // llm_model, or its default model); an endpoint of the user's (llm_url with
  // llm_provider and llm_model, and a key read HERE, on the client, from
  // api_key_env or api_key_file); a trace the server has (replay_trace) or one
  // uploaded from this machine (replay_file).
  std::string llm_endpoint;
  std::string llm_model;
  std::string llm_url;
  std::string llm_provider = "openai";
  std::string api_key_env;   // the client's environment variable holding the key
  std::string api_key_file;  // a file holding the key (one line)
  std::string replay_trace;
  std::string replay_file;
  std::string questions;    // human, bank, self or off
  int64_t max_steps = 0;
  std::string verify_scenarios;  // empty: the problem's default, as bench_scenarios
  std::string bench_scenarios;
  int64_t bench_rounds = 0;  // 0: the server's default, one round
  // Zero leaves each policy option to the server's default.
  int64_t plateau_benchmarks = 0;
  double plateau_min_gain = 0;
  int64_t failure_streak = 0;
};

// What goes to the server for the LLM: the config, stored with the session,
// and the key of a user-brought endpoint, which is sent beside the spec
// (StartSessionRequest.llm_api_key) and never stored.
struct LlmChoice {
  kernelseek::v1::LlmConfig config;
  std::string api_key;
};

// Reads an environment variable of the client; injected by tests.
using GetEnvFunction = std::function<const char*(const std::string& name)>;

// The LlmChoice for the --llm-* / --api-key-* / --replay-* flags of
// `request`, reading the key or the uploaded trace here. INVALID_ARGUMENT
// naming the flag for a bad combination or value, NOT_FOUND or
// PERMISSION_DENIED for a file that cannot be read.
absl::StatusOr<LlmChoice> MakeLlmChoice(const SessionRequest& request, const GetEnvFunction& get_env = nullptr);

// QUESTION_MODE_* for "human", "bank", "self" or "off"; INVALID_ARGUMENT else.
absl::StatusOr<kernelseek::v1::QuestionMode> ParseQuestionMode(const std::string& mode);

// Reads request.kernel_path and builds the spec; kernel_name is the file's
// base name. INVALID_ARGUMENT for a bad option, NOT_FOUND or PERMISSION_DENIED
// (with the path and the OS's reason) for an unreadable file. `api_key` (may
// be null) receives the key of a user-brought endpoint.
absl::StatusOr<kernelseek::v1::SessionSpec> MakeSessionSpec(const SessionRequest& request,
                                                            std::string* api_key = nullptr,
                                                            const GetEnvFunction& get_env = nullptr);

}  // namespace kseek

#endif  // KERNELSEEK_CLIENT_SESSION_REQUEST_H_
