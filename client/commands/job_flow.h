// How the commands that submit or follow a job (compile, verify, bench,
// profile, job --wait) take their shared flags, wait for the job and print it.
#ifndef KSEEK_CLIENT_COMMANDS_JOB_FLOW_H_
#define KSEEK_CLIENT_COMMANDS_JOB_FLOW_H_

#include <string>

#include "client/commands/command.h"
#include "client/compile_request.h"
#include "client/coordinator_client.h"
#include "common/flags.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

// Prints a finished job as `kseek compile` does and returns its exit code.
int ReportFinishedCompile(const kernelseek::v1::Job& job, bool json);

// Prints a finished verify or bench job and returns its exit code (see
// RunExitCode).
int ReportFinishedRun(const kernelseek::v1::Job& job, bool json);

// Prints a finished profile job and returns its exit code (see
// ProfileExitCode).
int ReportFinishedProfile(const kernelseek::v1::Job& job, bool json);

// The nvcc flags of `kseek compile`, which verify and bench take too.
void AddCompileFlags(FlagSet* flags, CompileRequest* request);

// How a submitting command waits: --no-wait and --wait-for-worker.
struct WaitFlags {
  bool no_wait = false;
  bool wait_for_worker = false;
};

void AddWaitFlags(FlagSet* flags, WaitFlags* wait);

// Follows `job_id` on stderr (the text of each update from `progress_text`)
// until it ends, and hands the finished job to `report`. Ctrl-C meanwhile
// says that the job goes on and exits kExitInterrupted. Returns the exit code.
int FollowJob(CoordinatorClient* client, const std::string& server, const std::string& job_id, bool json,
              const std::string& first_status, std::string (*progress_text)(const kernelseek::v1::Job&),
              int (*report)(const kernelseek::v1::Job& job, bool json));

// Submits `spec`; with --no-wait prints the job id, else follows it as
// FollowJob does. A job no connected worker can run is refused by the server
// (unless --wait-for-worker): exit kExitNoWorker. Returns the exit code.
int SubmitAndReport(const kernelseek::v1::JobSpec& spec, const GlobalOptions& global,
                    const CommonFlags& common, const WaitFlags& wait,
                    std::string (*progress_text)(const kernelseek::v1::Job&),
                    int (*report)(const kernelseek::v1::Job& job, bool json));

// How `kseek job ID --wait` shows a job of `kind` as the command that
// submits such a job does.
struct JobOutput {
  std::string (*progress_text)(const kernelseek::v1::Job&);
  int (*report)(const kernelseek::v1::Job& job, bool json);
};

JobOutput OutputFor(kernelseek::v1::JobKind kind);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_JOB_FLOW_H_
