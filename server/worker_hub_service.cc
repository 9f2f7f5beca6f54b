#include "server/worker_hub_service.h"

#include <google/protobuf/util/time_util.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/grpc_status.h"

namespace kseek {

grpc::Status WorkerHubService::Synchronize(grpc::ServerContext* context,
                                           const kernelseek::v1::SynchronizeRequest* request,
                                           kernelseek::v1::SynchronizeResponse* response) {
  absl::StatusOr<TokenRecord> worker = auth_->Check(*context, TokenKind::kWorker);
  if (!worker.ok()) return ToGrpcStatus(worker.status());

  // The long poll is measured in real time: it is about the connection, not
  // about leases, which follow the queue's clock.
  absl::Time poll_end = absl::Now() + queue_->options().idle_poll;
  kernelseek::v1::SynchronizeRequest current = *request;
  while (true) {
    uint64_t generation = queue_->generation();
    absl::StatusOr<SyncResult> result = queue_->Synchronize(current);
    if (!result.ok()) return ToGrpcStatus(result.status());
    bool idle = result->desired_state.has_idle();
    // A worker that reported a job and is told to be idle must drop that job
    // now (cancelled, or its lease lost), and a draining one waits for its
    // dropped job itself: no long poll for either.
    const bool drop = idle && (request->current_state().has_executing() || !request->draining().empty());
    absl::Time now = absl::Now();
    if (!idle || drop || now >= poll_end || context->IsCancelled() || queue_->shutting_down()) {
      *response->mutable_desired_state() = std::move(result->desired_state);
      *response->mutable_next_sync_deadline() = google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(
          absl::ToUnixMicros(result->next_sync_deadline));
      return grpc::Status::OK;
    }
    // Whatever the worker reported has been taken; from here on it is idle.
    current.mutable_current_state()->mutable_idle();
    queue_->AwaitChange(generation, std::min(poll_end - now, absl::Seconds(1)));
  }
}

grpc::Status WorkerHubService::PutCompiledArtifact(grpc::ServerContext* context,
                                                   const kernelseek::v1::PutCompiledArtifactRequest* request,
                                                   kernelseek::v1::PutCompiledArtifactResponse* response) {
  absl::StatusOr<TokenRecord> worker = auth_->Check(*context, TokenKind::kWorker);
  if (!worker.ok()) return ToGrpcStatus(worker.status());
  if (artifacts_ == nullptr) return grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "this server keeps no builds");
  // Recorded as the token's worker, not the name the request claims.
  absl::StatusOr<bool> stored = artifacts_->Put(absl::StrCat(worker->name, " (", request->worker_name().substr(0, 100), ")"),
                                                request->entry());
  if (!stored.ok()) return ToGrpcStatus(stored.status());
  response->set_stored(*stored);
  return grpc::Status::OK;
}

grpc::Status WorkerHubService::GetCompiledArtifact(grpc::ServerContext* context,
                                                   const kernelseek::v1::GetCompiledArtifactRequest* request,
                                                   kernelseek::v1::GetCompiledArtifactResponse* response) {
  absl::StatusOr<TokenRecord> worker = auth_->Check(*context, TokenKind::kWorker);
  if (!worker.ok()) return ToGrpcStatus(worker.status());
  if (artifacts_ == nullptr) return grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "this server keeps no builds");
  absl::StatusOr<std::optional<kernelseek::v1::CompileCacheEntry>> entry = artifacts_->Get(request->key());
  if (!entry.ok()) return ToGrpcStatus(entry.status());
  if (entry->has_value()) {
    response->set_found(true);
    *response->mutable_entry() = **std::move(entry);
  }
  return grpc::Status::OK;
}

}  // namespace kseek
