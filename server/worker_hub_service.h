// WorkerHubService: the worker-facing gRPC service. Checks the worker token
// and holds an idle worker's Synchronize call (the long poll) until JobQueue
// has work for it or the poll interval ends. Thread-safe.
#ifndef KERNELSEEK_SERVER_WORKER_HUB_SERVICE_H_
#define KERNELSEEK_SERVER_WORKER_HUB_SERVICE_H_

#include "proto/kernelseek.grpc.pb.h"
#include "server/auth.h"
#include "server/job_queue.h"

namespace kseek {

class WorkerHubService final : public kernelseek::v1::WorkerHub::Service {
 public:
  WorkerHubService(JobQueue* queue, Authenticator* auth) : queue_(queue), auth_(auth) {}

  grpc::Status Synchronize(grpc::ServerContext* context, const kernelseek::v1::SynchronizeRequest* request,
                           kernelseek::v1::SynchronizeResponse* response) override;

 private:
  JobQueue* const queue_;
  Authenticator* const auth_;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_WORKER_HUB_SERVICE_H_
