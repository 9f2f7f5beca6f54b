// kseek cancel.
#include "client/commands/cancel.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/exit_codes.h"
#include "client/commands/session.h"
#include "common/flags.h"

namespace kseek {

using kernelseek::v1::Job;

int RunCancel(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  bool session = false;
  FlagSet flags("kseek cancel", "JOB_ID | --session SESSION_ID [flags]",
                "Cancels one of your jobs: a queued job never runs, a running one is stopped\n"
                "(its worker kills the compiler or runner and frees the GPU). The job ends\n"
                "CANCELLED, with who cancelled it. With --session, stops a running session\n"
                "instead, as `kseek session stop` does: it ends STOPPED. Either can be ended\n"
                "once; one that has already ended is refused, saying how it ended (exit 3).\n"
                "A team admin may cancel or stop any of the team's; a member only its own.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  flags.Bool("session", &session, "the ID is a session's, not a job's: stop that session");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, session ? "one session ID" : "one job ID", "cancel")) {
    return *done;
  }

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  if (session) return StopSessionAndPrint(client.get(), server, positional[0], common.json);
  absl::StatusOr<Job> job = client->CancelJob(positional[0]);
  if (!job.ok()) return FailRpc(job.status(), server);
  if (common.json) return PrintJson(*job);
  std::cout << "job " << job->id() << ": cancelled\n";
  return kExitOk;
}

}  // namespace kseek
