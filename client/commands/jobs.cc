// kseek jobs.
#include "client/commands/jobs.h"

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/exit_codes.h"
#include "client/report_format.h"
#include "common/flags.h"

namespace kseek {

using kernelseek::v1::Job;

int RunJobs(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  int64_t limit = 0;
  std::string state;
  kernelseek::v1::ListJobsRequest request;
  FlagSet flags("kseek jobs", "[--user NAME] [--state STATE] [--problem PROBLEM] [--limit N] [flags]",
                "Lists jobs, newest first; the server applies the filters, all of those given,\n"
                "before --limit. A queued job's stage says its place in the queue.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  flags.Int("limit", &limit, "most jobs to list (0: the server's default)");
  flags.String("user", request.mutable_user(), "only this user's jobs");
  flags.String("state", &state, "only jobs in this state: queued, leased, succeeded, failed or cancelled");
  flags.String("problem", request.mutable_problem(),
               "only verify, bench and profile jobs of this problem, e.g. attention_fwd");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 0, "no arguments", "jobs")) return *done;
  if (auto done = CheckListLimit(limit)) return *done;
  request.set_limit(static_cast<int>(limit));
  if (!state.empty()) {
    absl::StatusOr<kernelseek::v1::JobState> parsed = ParseJobStateLabel(state);
    if (!parsed.ok()) return Fail(kExitUsage, absl::StrCat("--state: ", parsed.status().message()));
    request.set_state(*parsed);
  }

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<std::vector<Job>> jobs = client->ListJobs(request);
  if (!jobs.ok()) return FailRpc(jobs.status(), server);
  if (common.json) {
    kernelseek::v1::ListJobsResponse response;
    for (const Job& job : *jobs) *response.add_jobs() = job;
    return PrintJson(response);
  }
  std::cout << FormatJobTable(*jobs, absl::Now());
  return kExitOk;
}

}  // namespace kseek
