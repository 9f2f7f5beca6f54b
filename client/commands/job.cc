// kseek job.
#include "client/commands/job.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "client/commands/job_flow.h"
#include "client/exit_codes.h"
#include "client/report_format.h"
#include "common/flags.h"
#include "common/job_state.h"

namespace kseek {

using kernelseek::v1::Job;

int RunJob(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  bool wait = false;
  FlagSet flags("kseek job", "ID [--wait] [flags]",
                "Shows one job: its state, where it ran, and its compile, verify, bench or\n"
                "profile report once finished; while queued, its place in the queue and what\n"
                "it waits for. With --wait, follows it until it ends, as the command that\n"
                "submitted it would, and exits as that command would.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  flags.Bool("wait", &wait,
             "wait for the job to end, showing its progress on stderr, then print its report and "
             "exit with the submitting command's exit code (Ctrl-C leaves the job running)");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one job ID", "job")) return *done;

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<Job> job = client->GetJob(positional[0]);
  if (!job.ok()) return FailRpc(job.status(), server);
  if (wait) {
    const JobOutput output = OutputFor(job->spec().kind());
    if (IsFinishedState(job->state())) return output.report(*job, common.json);
    return FollowJob(client.get(), server, job->id(), common.json, output.progress_text(*job),
                     output.progress_text, output.report);
  }
  if (common.json) return PrintJson(*job);
  std::cout << FormatJobDetails(*job, absl::Now());
  return kExitOk;
}

}  // namespace kseek
