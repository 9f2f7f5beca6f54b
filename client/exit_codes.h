// Exit codes of the kseek CLI and the one-line messages for failed RPCs.
//
// Scripts branch on these codes, so they are part of the CLI's interface and
// are listed in `kseek --help`. Plain functions; thread-safe.
#ifndef KERNELSEEK_CLIENT_EXIT_CODES_H_
#define KERNELSEEK_CLIENT_EXIT_CODES_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kseek {

enum ExitCode : int {
  kExitOk = 0,
  // The job ran and the kernel is rejected: it has compile errors or (verify,
  // bench) a scenario failed verification. One code for both, because either
  // way the kernel needs fixing; the report says which.
  kExitDidNotCompile = 1,
  kExitScenarioFailed = 1,
  kExitUsage = 2,   // bad flags or arguments, or input the server rejected
  kExitServer = 3,  // no token, server unreachable, token rejected, server error
  // The job gave no verdict to act on: no result (attempts exhausted, worker
  // error), or (verify, bench) the runner stopped early or a scenario that
  // passed was not timed, so the result is incomplete.
  kExitJobFailed = 4,
  // A submit the server refused because no connected worker could ever run
  // the job (nothing was queued); --wait-for-worker queues it anyway.
  kExitNoWorker = 5,
  // Ctrl-C while a command waited on a job: the job goes on on the server.
  // 128 + SIGINT, as shells report a command that Ctrl-C ended.
  kExitInterrupted = 130,
};

// The exit code for a failed RPC: INVALID_ARGUMENT, NOT_FOUND and OUT_OF_RANGE
// mean the user must fix the input (kExitUsage); everything else is kExitServer.
ExitCode ExitCodeForRpcError(const absl::Status& status);

// One line, without the "kseek: " prefix, saying what went wrong with a call
// to the server at `server`, e.g. "token rejected by server: token revoked at
// 2026-12-02 01:00:00 UTC".
std::string DescribeRpcError(const absl::Status& status, absl::string_view server);

}  // namespace kseek

#endif  // KERNELSEEK_CLIENT_EXIT_CODES_H_
