#include "server/coordinator_service.h"

#include "absl/strings/str_cat.h"
#include "common/grpc_status.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;

constexpr int kDefaultListLimit = 50;
constexpr int kMaxListLimit = 1000;

bool IsFinished(const Job& job) {
  return job.state() == kernelseek::v1::JOB_STATE_SUCCEEDED || job.state() == kernelseek::v1::JOB_STATE_FAILED;
}

}  // namespace

grpc::Status CoordinatorService::SubmitJob(grpc::ServerContext* context, const kernelseek::v1::SubmitJobRequest* request,
                                           kernelseek::v1::SubmitJobResponse* response) {
  absl::StatusOr<TokenRecord> user = auth_->Check(*context, TokenKind::kUser);
  if (!user.ok()) return ToGrpcStatus(user.status());
  absl::StatusOr<std::string> id = queue_->Submit(user->name, request->spec());
  if (!id.ok()) return ToGrpcStatus(id.status());
  response->set_job_id(*id);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::GetJob(grpc::ServerContext* context, const kernelseek::v1::GetJobRequest* request,
                                        Job* response) {
  absl::StatusOr<TokenRecord> user = auth_->Check(*context, TokenKind::kUser);
  if (!user.ok()) return ToGrpcStatus(user.status());
  absl::StatusOr<Job> job = queue_->GetJob(request->job_id());
  if (!job.ok()) return ToGrpcStatus(job.status());
  *response = *std::move(job);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::WatchJob(grpc::ServerContext* context, const kernelseek::v1::WatchJobRequest* request,
                                          grpc::ServerWriter<Job>* writer) {
  absl::StatusOr<TokenRecord> user = auth_->Check(*context, TokenKind::kUser);
  if (!user.ok()) return ToGrpcStatus(user.status());
  std::string last_sent;
  while (!context->IsCancelled() && !queue_->shutting_down()) {
    uint64_t generation = queue_->generation();
    absl::StatusOr<Job> job = queue_->GetJob(request->job_id());
    if (!job.ok()) return ToGrpcStatus(job.status());
    // Only changes are streamed: the same state and stage is not sent twice.
    std::string key = absl::StrCat(job->state(), "/", job->stage(), "/", job->attempts(), "/",
                                   job->progress().done(), "/", job->progress().total());
    if (key != last_sent) {
      if (!writer->Write(*job)) return grpc::Status::CANCELLED;
      last_sent = key;
    }
    if (IsFinished(*job)) return grpc::Status::OK;
    // Woken by any change in the queue; the timeout bounds how long a
    // cancelled call lingers.
    queue_->AwaitChange(generation, absl::Seconds(1));
  }
  return grpc::Status(grpc::StatusCode::UNAVAILABLE, "server is shutting down; watch again");
}

grpc::Status CoordinatorService::ListJobs(grpc::ServerContext* context, const kernelseek::v1::ListJobsRequest* request,
                                          kernelseek::v1::ListJobsResponse* response) {
  absl::StatusOr<TokenRecord> user = auth_->Check(*context, TokenKind::kUser);
  if (!user.ok()) return ToGrpcStatus(user.status());
  int limit = request->limit() <= 0 ? kDefaultListLimit : std::min(request->limit(), kMaxListLimit);
  absl::StatusOr<std::vector<Job>> jobs = queue_->ListJobs(limit);
  if (!jobs.ok()) return ToGrpcStatus(jobs.status());
  for (Job& job : *jobs) *response->add_jobs() = std::move(job);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::ListWorkers(grpc::ServerContext* context,
                                             const kernelseek::v1::ListWorkersRequest* request,
                                             kernelseek::v1::ListWorkersResponse* response) {
  absl::StatusOr<TokenRecord> user = auth_->Check(*context, TokenKind::kUser);
  if (!user.ok()) return ToGrpcStatus(user.status());
  for (auto& worker : queue_->ListWorkers()) *response->add_workers() = std::move(worker);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::ListScenarios(grpc::ServerContext* context,
                                               const kernelseek::v1::ListScenariosRequest* request,
                                               kernelseek::v1::ListScenariosResponse* response) {
  absl::StatusOr<TokenRecord> user = auth_->Check(*context, TokenKind::kUser);
  if (!user.ok()) return ToGrpcStatus(user.status());
  absl::StatusOr<const runner::Problem*> problem = problems_->Find(request->problem());
  if (!problem.ok()) return ToGrpcStatus(problem.status());
  *response->mutable_problem() = (*problem)->manifest();
  for (const kernelseek::v1::ScenarioSpec& scenario : (*problem)->scenarios()) {
    if (request->set().empty() || scenario.set() == request->set()) *response->add_scenarios() = scenario;
  }
  if (!request->set().empty() && response->scenarios().empty()) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        absl::StrCat("problem ", request->problem(), " has no scenario set \"", request->set(), "\""));
  }
  return grpc::Status::OK;
}

}  // namespace kseek
