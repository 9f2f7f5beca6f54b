#include "server/worker_hub_service.h"

#include <google/protobuf/util/time_util.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/grpc_status.h"
#include "server/authenticated_call.h"
#include "server/reactor_alarm.h"

namespace kseek {
namespace {

// One Synchronize call: a round with JobQueue at once and, while the worker
// stays idle, again whenever work is queued, at least every kRound (which
// keeps the worker's last_seen and the lease deadlines current, as rounds
// are what expire leases), until the poll interval ends. The long poll is
// measured in real time: it is about the connection, not about leases, which
// follow the queue's clock. Deletes itself when done.
class SyncPoll final : public grpc::ServerUnaryReactor {
 public:
  static constexpr absl::Duration kRound = absl::Seconds(1);

  SyncPoll(JobQueue* queue, const kernelseek::v1::SynchronizeRequest& request,
           kernelseek::v1::SynchronizeResponse* response)
      : queue_(queue),
        request_(request),
        current_(request),
        response_(response),
        poll_end_(absl::Now() + queue->options().idle_poll),
        alarm_([this](bool) { Round(); }) {
    subscription_ = queue_->SubscribeWork([this] { alarm_.Wake(); });
    alarm_.Arm(absl::Now());
  }

 private:
  void Round() {
    {
      // A worker that has gone is leased nothing.
      absl::MutexLock lock(&mu_);
      if (finished_) return;
    }
    absl::StatusOr<SyncResult> result = queue_->Synchronize(current_);
    absl::MutexLock lock(&mu_);
    if (finished_) return;
    if (!result.ok()) {
      FinishLocked(ToGrpcStatus(result.status()));
      return;
    }
    bool idle = result->desired_state.has_idle();
    // A worker that reported a job and is told to be idle must drop that job
    // now (cancelled, or its lease lost), and a draining one waits for its
    // dropped job itself: no long poll for either.
    const bool drop = idle && (request_.current_state().has_executing() || !request_.draining().empty());
    const absl::Time now = absl::Now();
    if (!idle || drop || now >= poll_end_ || queue_->shutting_down()) {
      *response_->mutable_desired_state() = std::move(result->desired_state);
      *response_->mutable_next_sync_deadline() = google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(
          absl::ToUnixMicros(result->next_sync_deadline));
      FinishLocked(grpc::Status::OK);
      return;
    }
    // Whatever the worker reported has been taken; from here on it is idle.
    current_.mutable_current_state()->mutable_idle();
    alarm_.Arm(std::min(poll_end_, now + kRound));
  }

  void FinishLocked(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_) return;
    finished_ = true;
    Finish(status);
  }

  void OnCancel() override {
    absl::MutexLock lock(&mu_);
    FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled by the worker"));
  }

  void OnDone() override {
    subscription_.Reset();
    alarm_.Stop([this] { delete this; });
  }

  JobQueue* const queue_;
  const kernelseek::v1::SynchronizeRequest request_;
  kernelseek::v1::SynchronizeRequest current_;  // only rounds use it, one at a time
  kernelseek::v1::SynchronizeResponse* const response_;
  const absl::Time poll_end_;
  ChangeNotifier::Subscription subscription_;
  ReactorAlarm alarm_;
  absl::Mutex mu_;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace

grpc::ServerUnaryReactor* WorkerHubService::Synchronize(grpc::CallbackServerContext* context,
                                                        const kernelseek::v1::SynchronizeRequest* request,
                                                        kernelseek::v1::SynchronizeResponse* response) {
  return WorkerReactor(auth_, context, [&](const TokenRecord&) { return new SyncPoll(queue_, *request, response); });
}

grpc::ServerUnaryReactor* WorkerHubService::PutCompiledArtifact(
    grpc::CallbackServerContext* context, const kernelseek::v1::PutCompiledArtifactRequest* request,
    kernelseek::v1::PutCompiledArtifactResponse* response) {
  return WorkerCall(auth_, context, [&](const TokenRecord& worker) -> absl::Status {
    if (artifacts_ == nullptr) return absl::UnimplementedError("this server keeps no builds");
    // Recorded as the token's worker, not the name the request claims.
    absl::StatusOr<bool> stored =
        artifacts_->Put(absl::StrCat(worker.name, " (", request->worker_name().substr(0, 100), ")"), request->entry());
    if (!stored.ok()) return stored.status();
    response->set_stored(*stored);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* WorkerHubService::GetCompiledArtifact(
    grpc::CallbackServerContext* context, const kernelseek::v1::GetCompiledArtifactRequest* request,
    kernelseek::v1::GetCompiledArtifactResponse* response) {
  return WorkerCall(auth_, context, [&](const TokenRecord&) -> absl::Status {
    if (artifacts_ == nullptr) return absl::UnimplementedError("this server keeps no builds");
    absl::StatusOr<std::optional<kernelseek::v1::CompileCacheEntry>> entry = artifacts_->Get(request->key());
    if (!entry.ok()) return entry.status();
    if (entry->has_value()) {
      response->set_found(true);
      *response->mutable_entry() = **std::move(entry);
    }
    return absl::OkStatus();
  });
}

}  // namespace kseek
