// Turns what a user typed for `kseek verify`, `kseek bench` and `kseek
// profile` into the JobSpec to submit.
//
// Checks the run options before any network call (problem and scenario id
// spelling, the baseline list's form, the time cap, profile's one scenario id) and
// then the compile options and file as MakeCompileSpec does, so a typo is a
// usage error naming the bad value. The server still resolves the problem and
// scenario names itself.
#ifndef KERNELSEEK_CLIENT_RUN_REQUEST_H_
#define KERNELSEEK_CLIENT_RUN_REQUEST_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "client/compile_request.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

struct RunRequest {
  kernelseek::v1::JobKind kind = kernelseek::v1::JOB_KIND_VERIFY;  // VERIFY, BENCH or PROFILE
  CompileRequest compile;
  std::string problem;                  // e.g. "attention_fwd"
  std::string scenarios;                // "all", sets and IDs, comma-separated; empty: the problem's default; profile: one ID
  std::string baseline;                 // bench only; a list (SplitBaselineList); empty: the problem's default
  double max_seconds_per_scenario = 0;  // bench only; 0: the worker's default
  bool reuse_baseline = false;          // bench only: the worker's cached baseline timings
  int64_t rounds = 0;                   // bench only: timing rounds, best kept; 0: one
  std::string shards;                   // bench only: GPUs to spread over, N or "auto"; empty: one
  int64_t hotspots = 0;                 // profile only: SASS lines with the most warp stalls, 0..50
};

// INVALID_ARGUMENT for a bad option, naming the flag and value (profile: no
// --scenario, a list, or "all"; that a set name is not an id only the server
// knows; --hotspots outside 0..50 or on another kind; --rounds outside 0..10 or
// on another kind); NOT_FOUND or PERMISSION_DENIED for an unreadable file (from
// MakeCompileSpec).
absl::StatusOr<kernelseek::v1::JobSpec> MakeRunSpec(const RunRequest& request);

}  // namespace kseek

#endif  // KERNELSEEK_CLIENT_RUN_REQUEST_H_
