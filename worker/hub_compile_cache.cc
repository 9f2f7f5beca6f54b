#include "worker/hub_compile_cache.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/grpc_status.h"

namespace kseek {

void HubCompileCache::Connect(kernelseek::v1::WorkerHub::StubInterface* stub) {
  absl::MutexLock lock(&mu_);
  stub_ = stub;
}

absl::StatusOr<std::optional<kernelseek::v1::CompileCacheEntry>> HubCompileCache::Fetch(const std::string& key) {
  absl::MutexLock lock(&mu_);
  if (stub_ == nullptr) return absl::UnavailableError("not connected to the server");
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", token_));
  context.set_deadline(absl::ToChronoTime(absl::Now() + call_timeout_));
  kernelseek::v1::GetCompiledArtifactRequest request;
  request.set_key(key);
  kernelseek::v1::GetCompiledArtifactResponse response;
  grpc::Status status = stub_->GetCompiledArtifact(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  if (!response.found()) return std::nullopt;
  return std::move(*response.mutable_entry());
}

absl::Status HubCompileCache::Upload(const kernelseek::v1::CompileCacheEntry& entry) {
  absl::MutexLock lock(&mu_);
  if (stub_ == nullptr) return absl::UnavailableError("not connected to the server");
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", token_));
  context.set_deadline(absl::ToChronoTime(absl::Now() + call_timeout_));
  kernelseek::v1::PutCompiledArtifactRequest request;
  request.set_worker_name(worker_name_);
  *request.mutable_entry() = entry;
  kernelseek::v1::PutCompiledArtifactResponse response;
  grpc::Status status = stub_->PutCompiledArtifact(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return absl::OkStatus();
}

}  // namespace kseek
