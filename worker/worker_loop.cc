#include "worker/worker_loop.h"

#include <cstdio>
#include <fstream>

#include <google/protobuf/util/time_util.h>
#include <grpcpp/client_context.h>

#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/grpc_status.h"
#include "common/log.h"
#include "common/subprocess.h"

namespace kseek {
namespace {

// How long a draining worker waits for its dropped job before it syncs again
// (to say it is still alive).
constexpr absl::Duration kDrainCheck = absl::Seconds(5);

using kernelseek::v1::JobResult;

bool IsPermanent(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::PERMISSION_DENIED ||
         code == grpc::StatusCode::INVALID_ARGUMENT || code == grpc::StatusCode::ALREADY_EXISTS ||
         code == grpc::StatusCode::FAILED_PRECONDITION;  // e.g. the other side's protocol version
}

}  // namespace

WorkerLoop::WorkerLoop(kernelseek::v1::WorkerHub::StubInterface* stub, JobExecutor* executor,
                       WorkerLoopOptions options)
    : stub_(stub), executor_(executor), options_(std::move(options)) {}

void WorkerLoop::Stop() {
  stop_.Notify();
  absl::MutexLock lock(&call_mu_);
  if (call_ != nullptr) call_->TryCancel();
}

std::string ReadLeaseMarker(const std::string& lease_marker_path) {
  if (lease_marker_path.empty()) return "";
  std::ifstream in(lease_marker_path);
  std::string lease;
  std::getline(in, lease);
  return lease;
}

void WorkerLoop::DropJob() {
  if (job_ != nullptr) {
    absl::MutexLock lock(&job_->mu);
    if (!job_->done) {
      // Its programs are killed now; until its thread has ended the worker
      // is draining.
      job_->cancelled = true;
      abandoned_.push_back(job_);
    }
  }
  job_.reset();
  if (!options_.lease_marker_path.empty()) std::remove(options_.lease_marker_path.c_str());
}

void WorkerLoop::WaitForAbandoned(absl::Time until) {
  while (absl::Now() < until && !stop_.HasBeenNotified() && !Draining().empty()) {
    absl::SleepFor(absl::Milliseconds(50));
  }
}

std::string WorkerLoop::Draining() {
  std::erase_if(abandoned_, [](const std::shared_ptr<RunningJob>& job) {
    absl::MutexLock lock(&job->mu);
    return job->done;
  });
  if (abandoned_.empty()) return "";
  return absl::StrCat("lease ", abandoned_.front()->lease_id, ", which the server moved off, still runs here");
}

void WorkerLoop::Start(const kernelseek::v1::DesiredState::Execute& execute) {
  if (!options_.lease_marker_path.empty()) {
    // Written whole (rename) so that a crash mid-write leaves no half id.
    const std::string tmp = options_.lease_marker_path + ".tmp";
    std::ofstream(tmp) << execute.lease_id() << "\n";
    std::rename(tmp.c_str(), options_.lease_marker_path.c_str());
  }
  auto job = std::make_shared<RunningJob>();
  job->lease_id = execute.lease_id();
  {
    absl::MutexLock lock(&job->mu);
    job->stage = "starting";
  }
  job_ = job;
  Log(absl::StrCat("lease ", execute.lease_id(), ": job ", execute.job_id(), " (",
                   kernelseek::v1::JobKind_Name(execute.spec().kind()), ")"));
  JobExecutor* executor = executor_;
  std::thread([job, executor, spec = execute.spec()] {
    CancelScope cancel(&job->cancelled);
    absl::StatusOr<JobResult> result =
        executor->Execute(spec, [&job](const std::string& stage, const kernelseek::v1::Progress& progress) {
          absl::MutexLock lock(&job->mu);
          job->stage = stage;
          job->progress = progress;
          ++job->reports;
        });
    absl::MutexLock lock(&job->mu);
    job->result = std::move(result);
    job->done = true;
  }).detach();
}

kernelseek::v1::CurrentState WorkerLoop::CurrentState() {
  kernelseek::v1::CurrentState state;
  if (job_ == nullptr) {
    state.mutable_idle();
    return state;
  }
  absl::MutexLock lock(&job_->mu);
  if (!job_->done) {
    state.mutable_executing()->set_lease_id(job_->lease_id);
    state.mutable_executing()->set_stage(job_->stage);
    *state.mutable_executing()->mutable_progress() = job_->progress;
    return state;
  }
  auto* completed = state.mutable_completed();
  completed->set_lease_id(job_->lease_id);
  if (job_->result.ok()) {
    *completed->mutable_result() = *job_->result;
  } else {
    completed->set_error(std::string(job_->result.status().message()));
  }
  return state;
}

void WorkerLoop::WaitForJob(absl::Time until) {
  if (job_ == nullptr) return;
  std::shared_ptr<RunningJob> job = job_;
  // A new stage or progress is reported early, but at most once per
  // kProgressInterval, so a job with fast progress does not flood the server.
  constexpr absl::Duration kProgressInterval = absl::Seconds(1);
  const absl::Time progress_after = absl::Now() + kProgressInterval;
  uint64_t seen;
  {
    absl::MutexLock lock(&job->mu);
    seen = job->reports;
  }
  while (absl::Now() < until && !stop_.HasBeenNotified()) {
    absl::MutexLock lock(&job->mu);
    auto wake = [&job, seen, progress_after]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(job->mu) {
      return job->done || (job->reports != seen && absl::Now() >= progress_after);
    };
    if (job->mu.AwaitWithTimeout(absl::Condition(&wake), std::min(until - absl::Now(), absl::Milliseconds(200)))) {
      return;
    }
  }
}

absl::Status WorkerLoop::Run() {
  absl::Duration backoff = absl::Milliseconds(100);
  bool reported_outage = false;
  while (!stop_.HasBeenNotified()) {
    kernelseek::v1::SynchronizeRequest request;
    request.set_worker_name(options_.name);
    for (const auto& p : options_.capabilities) *request.add_capabilities() = p;
    *request.mutable_current_state() = CurrentState();
    if (!crash_reported_ && !options_.crash.lease_id().empty()) *request.mutable_crash() = options_.crash;
    request.set_instance_id(options_.instance_id);
    if (job_ == nullptr) request.set_draining(Draining());
    const bool sent_completion = request.current_state().has_completed();

    grpc::ClientContext context;
    context.AddMetadata("authorization", absl::StrCat("Bearer ", options_.token));
    context.set_deadline(absl::ToChronoTime(absl::Now() + options_.max_call));
    kernelseek::v1::SynchronizeResponse response;
    {
      absl::MutexLock lock(&call_mu_);
      if (stop_.HasBeenNotified()) break;
      call_ = &context;
    }
    grpc::Status status = stub_->Synchronize(&context, request, &response);
    {
      absl::MutexLock lock(&call_mu_);
      call_ = nullptr;
    }
    if (stop_.HasBeenNotified()) break;
    if (!status.ok()) {
      if (IsPermanent(status.error_code())) {
        return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                            absl::StrCat("server rejected this worker: ", status.error_message()));
      }
      if (!reported_outage) {
        Log(absl::StrCat("cannot sync with server (", status.error_message(), "); retrying"));
        reported_outage = true;
      }
      // Keep the state as it is: a completed result is re-sent next time.
      WaitForJob(absl::Now() + backoff);
      backoff = std::min(backoff * 2, options_.max_backoff);
      continue;
    }
    crash_reported_ = true;
    if (reported_outage) Log("reconnected to server");
    reported_outage = false;
    backoff = absl::Milliseconds(100);
    // The server has taken the result (or ignored it as late): it is done with.
    if (sent_completion) DropJob();

    const auto& desired = response.desired_state();
    if (desired.has_execute()) {
      if (job_ == nullptr || job_->lease_id != desired.execute().lease_id()) {
        if (job_ != nullptr) {
          Log(absl::StrCat("dropping lease ", job_->lease_id, ": server moved on"));
          DropJob();
        }
        Start(desired.execute());
      }
      // Sync again well before the deadline, or as soon as the job is done.
      absl::Time deadline = absl::FromUnixMicros(
          google::protobuf::util::TimeUtil::TimestampToMicroseconds(response.next_sync_deadline()));
      absl::Duration slack = std::max((deadline - absl::Now()) / 3, absl::Milliseconds(100));
      WaitForJob(absl::Now() + slack);
    } else if (job_ != nullptr) {
      Log(absl::StrCat("dropping lease ", job_->lease_id, ": server says idle"));
      DropJob();
    }
    if (job_ == nullptr && !abandoned_.empty()) WaitForAbandoned(absl::Now() + kDrainCheck);
  }
  return absl::OkStatus();
}

}  // namespace kseek
