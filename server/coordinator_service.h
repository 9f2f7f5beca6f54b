// CoordinatorService: the client-facing gRPC service. Checks the user token,
// decodes the request, calls JobQueue and encodes the answer; no logic of its
// own. Thread-safe (gRPC calls it from many threads).
#ifndef KERNELSEEK_SERVER_COORDINATOR_SERVICE_H_
#define KERNELSEEK_SERVER_COORDINATOR_SERVICE_H_

#include "proto/kernelseek.grpc.pb.h"
#include "server/auth.h"
#include "server/job_queue.h"
#include "server/problem_catalog.h"

namespace kseek {

class CoordinatorService final : public kernelseek::v1::Coordinator::Service {
 public:
  CoordinatorService(JobQueue* queue, Authenticator* auth, const ProblemCatalog* problems)
      : queue_(queue), auth_(auth), problems_(problems) {}

  grpc::Status SubmitJob(grpc::ServerContext* context, const kernelseek::v1::SubmitJobRequest* request,
                         kernelseek::v1::SubmitJobResponse* response) override;
  grpc::Status GetJob(grpc::ServerContext* context, const kernelseek::v1::GetJobRequest* request,
                      kernelseek::v1::Job* response) override;
  grpc::Status WatchJob(grpc::ServerContext* context, const kernelseek::v1::WatchJobRequest* request,
                        grpc::ServerWriter<kernelseek::v1::Job>* writer) override;
  grpc::Status ListJobs(grpc::ServerContext* context, const kernelseek::v1::ListJobsRequest* request,
                        kernelseek::v1::ListJobsResponse* response) override;
  grpc::Status ListWorkers(grpc::ServerContext* context, const kernelseek::v1::ListWorkersRequest* request,
                           kernelseek::v1::ListWorkersResponse* response) override;
  grpc::Status ListScenarios(grpc::ServerContext* context, const kernelseek::v1::ListScenariosRequest* request,
                             kernelseek::v1::ListScenariosResponse* response) override;

 private:
  JobQueue* const queue_;
  Authenticator* const auth_;
  const ProblemCatalog* const problems_;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_COORDINATOR_SERVICE_H_
