// WorkerHubService: the worker-facing gRPC service, on gRPC's callback API.
// Every call is authenticated once as a worker (server/authenticated_call.h).
// An idle worker's Synchronize call (the long poll) is a reactor held, with
// no thread waiting, until JobQueue queues work (SubscribeWork) or the poll
// interval ends; serves the fleet's compile cache (CompileArtifactCache) to
// workers. Thread-safe.
#ifndef KERNELSEEK_SERVER_WORKER_HUB_SERVICE_H_
#define KERNELSEEK_SERVER_WORKER_HUB_SERVICE_H_

#include "proto/kernelseek.grpc.pb.h"
#include "server/auth.h"
#include "server/compile_artifact_cache.h"
#include "server/job_queue.h"

namespace kseek {

class WorkerHubService final : public kernelseek::v1::WorkerHub::CallbackService {
 public:
  // `artifacts` may be null: the server keeps no builds (both calls answer
  // UNIMPLEMENTED, and workers compile).
  WorkerHubService(JobQueue* queue, Authenticator* auth, CompileArtifactCache* artifacts = nullptr)
      : queue_(queue), auth_(auth), artifacts_(artifacts) {}

  grpc::ServerUnaryReactor* Synchronize(grpc::CallbackServerContext* context,
                                        const kernelseek::v1::SynchronizeRequest* request,
                                        kernelseek::v1::SynchronizeResponse* response) override;
  grpc::ServerUnaryReactor* PutCompiledArtifact(grpc::CallbackServerContext* context,
                                                const kernelseek::v1::PutCompiledArtifactRequest* request,
                                                kernelseek::v1::PutCompiledArtifactResponse* response) override;
  grpc::ServerUnaryReactor* GetCompiledArtifact(grpc::CallbackServerContext* context,
                                                const kernelseek::v1::GetCompiledArtifactRequest* request,
                                                kernelseek::v1::GetCompiledArtifactResponse* response) override;

 private:
  JobQueue* const queue_;
  Authenticator* const auth_;
  CompileArtifactCache* const artifacts_;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_WORKER_HUB_SERVICE_H_
