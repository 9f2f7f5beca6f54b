// Submitting, following and printing jobs; see job_flow.h.
#include "client/commands/job_flow.h"

#include <unistd.h>

#include <iostream>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "client/exit_codes.h"
#include "client/interrupt_notice.h"
#include "client/progress_display.h"
#include "client/report_format.h"
#include "client/run_report.h"
#include "common/clock.h"

namespace kseek {

using kernelseek::v1::Job;

namespace {

// Prints a finished job and returns its exit code: the JSON when asked for;
// one line on stderr for a job that failed, or finished without a result of
// the kind it was (`expected`, called `what`); else `format`'s text and
// `exit_code`'s verdict on it.
int ReportFinished(const Job& job, bool json, kernelseek::v1::JobResult::ResultCase expected,
                   const char* what, std::string (*format)(const Job&),
                   ExitCode (*exit_code)(const Job&)) {
  if (json) {
    if (int code = PrintJson(job); code != kExitOk) return code;
  }
  if (job.state() == kernelseek::v1::JOB_STATE_CANCELLED) {
    return Fail(kExitJobFailed, absl::StrCat("job ", job.id(), " was cancelled: ", job.failure()));
  }
  if (job.state() == kernelseek::v1::JOB_STATE_FAILED) {
    return Fail(kExitJobFailed,
                absl::StrCat("job ", job.id(), " failed after ", job.attempts(), " attempt(s): ",
                             job.failure().empty() ? "no reason given" : job.failure()));
  }
  if (job.result().result_case() != expected) {
    return Fail(kExitServer, absl::StrCat("job ", job.id(), " finished without a ", what, " result"));
  }
  if (!json) std::cout << format(job);
  return exit_code(job);
}

}  // namespace

int ReportFinishedCompile(const Job& job, bool json) {
  return ReportFinished(job, json, kernelseek::v1::JobResult::kCompile, "compile", &FormatCompileReport,
                        [](const Job& j) {
                          return j.result().compile().success() ? kExitOk : kExitDidNotCompile;
                        });
}

int ReportFinishedRun(const Job& job, bool json) {
  return ReportFinished(job, json, kernelseek::v1::JobResult::kRun, "run", &FormatRunReport, &RunExitCode);
}

int ReportFinishedProfile(const Job& job, bool json) {
  return ReportFinished(job, json, kernelseek::v1::JobResult::kProfile, "profile", &FormatProfileReport,
                        &ProfileExitCode);
}

void AddCompileFlags(FlagSet* flags, CompileRequest* request) {
  flags->String("arch", &request->arch, "target architecture, e.g. sm_90a or sm_100a");
  flags->Int("opt-level", &request->opt_level, "optimisation level 1..3 (-1: worker default, -O3)");
  flags->Bool("lineinfo", &request->line_info, "compile with -lineinfo");
  flags->Repeated("define", &request->defines, "NAME or NAME=VALUE, passed as -D");
  flags->Int("maxrregcount", &request->max_registers, "register limit per thread (0: none)");
}

void AddWaitFlags(FlagSet* flags, WaitFlags* wait) {
  flags->Bool("no-wait", &wait->no_wait, "print the job id and return without waiting");
  flags->Bool("wait-for-worker", &wait->wait_for_worker,
              "queue the job even when no connected worker can run it, until one connects (else "
              "the submit fails at once, exit 5, saying what is missing)");
}

int FollowJob(CoordinatorClient* client, const std::string& server, const std::string& job_id, bool json,
              const std::string& first_status, std::string (*progress_text)(const Job&),
              int (*report)(const Job& job, bool json)) {
  RealClock clock;
  const bool terminal = isatty(STDERR_FILENO) == 1;
  ProgressDisplay progress(&std::cerr, terminal, &clock, job_id);
  progress.Update(first_status);
  progress.StartTicker();
  absl::StatusOr<Job> job;
  {
    // Only while waiting: once the job has ended, Ctrl-C may end kseek as usual.
    InterruptNotice notice(JobGoesOnMessage(job_id), /*after_newline=*/terminal);
    job = client->WatchJob(
        job_id, [&](const Job& update) { progress.Update(progress_text(update)); },
        [&](const absl::Status& lost) {
          progress.Update(
              absl::StrCat("lost the server (", DescribeRpcError(lost, server), "), reconnecting"));
        });
  }
  if (!job.ok()) {
    progress.Finish("stopped watching");
    std::cerr << "kseek: `kseek job " << job_id << " --wait` follows the job again\n";
    return FailRpc(job.status(), server);
  }
  progress.Finish(FormatProgress(*job));
  return report(*job, json);
}

int SubmitAndReport(const kernelseek::v1::JobSpec& spec, const GlobalOptions& global,
                    const CommonFlags& common, const WaitFlags& wait,
                    std::string (*progress_text)(const Job&),
                    int (*report)(const Job& job, bool json)) {
  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<std::string> job_id = client->SubmitJob(spec, wait.wait_for_worker);
  if (job_id.status().code() == absl::StatusCode::kFailedPrecondition) {
    return Fail(kExitNoWorker, absl::StrCat(job_id.status().message(),
                                            " (--wait-for-worker queues it until such a worker connects)"));
  }
  if (!job_id.ok()) return FailRpc(job_id.status(), server);

  if (wait.no_wait) {
    if (common.json) {
      kernelseek::v1::SubmitJobResponse response;
      response.set_job_id(*job_id);
      return PrintJson(response);
    }
    std::cout << *job_id << "\n";
    return kExitOk;
  }
  return FollowJob(client.get(), server, *job_id, common.json, "submitted", progress_text, report);
}

JobOutput OutputFor(kernelseek::v1::JobKind kind) {
  switch (kind) {
    case kernelseek::v1::JOB_KIND_VERIFY:
    case kernelseek::v1::JOB_KIND_BENCH:
      return {&FormatRunProgress, &ReportFinishedRun};
    case kernelseek::v1::JOB_KIND_PROFILE:
      return {&FormatRunProgress, &ReportFinishedProfile};
    default:
      return {&FormatProgress, &ReportFinishedCompile};
  }
}

}  // namespace kseek
