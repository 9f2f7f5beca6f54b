#include "server/coordinator_service.h"

#include "absl/strings/str_cat.h"
#include "common/grpc_status.h"
#include "common/job_state.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;

constexpr int kDefaultListLimit = 50;
constexpr int kMaxListLimit = 1000;

bool IsFinished(const Job& job) { return IsFinishedState(job.state()); }

}  // namespace

grpc::Status CoordinatorService::SubmitJob(grpc::ServerContext* context, const kernelseek::v1::SubmitJobRequest* request,
                                           kernelseek::v1::SubmitJobResponse* response) {
  absl::StatusOr<TokenRecord> user = auth_->Check(*context, TokenKind::kUser);
  if (!user.ok()) return ToGrpcStatus(user.status());
  absl::StatusOr<std::string> id =
      queue_->Submit(user->name, request->spec(), SubmitOptions{.wait_for_worker = request->wait_for_worker()});
  if (!id.ok()) return ToGrpcStatus(id.status());
  response->set_job_id(*id);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::CancelJob(grpc::ServerContext* context,
                                           const kernelseek::v1::CancelJobRequest* request, Job* response) {
  absl::StatusOr<TokenRecord> user = auth_->Check(*context, TokenKind::kUser);
  if (!user.ok()) return ToGrpcStatus(user.status());
  absl::StatusOr<Job> job = queue_->Cancel(user->name, request->job_id());
  if (!job.ok()) return ToGrpcStatus(job.status());
  *response = *std::move(job);
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
                                   job->progress().done(), "/", job->progress().total(), "/",
                                   job->queue_position(), "/", job->waiting_for());
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
  if (!kernelseek::v1::JobState_IsValid(request->state())) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, absl::StrCat("unknown job state ", request->state()));
  }
  JobFilter filter;
  filter.user = request->user();
  filter.state = request->state();
  filter.problem = request->problem();
  filter.limit = request->limit() <= 0 ? kDefaultListLimit : std::min(request->limit(), kMaxListLimit);
  absl::StatusOr<std::vector<Job>> jobs = queue_->ListJobs(filter);
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
  absl::StatusOr<const Problem*> problem = problems_->Find(request->problem());
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

// --- Sessions ---

namespace {

grpc::Status NoSessions() {
  return grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "this server does not run optimization sessions");
}

bool HasEnded(const kernelseek::v1::Session& session) {
  return session.state() != kernelseek::v1::SESSION_STATE_RUNNING;
}

}  // namespace

grpc::Status CoordinatorService::StartSession(grpc::ServerContext* context,
                                              const kernelseek::v1::StartSessionRequest* request,
                                              kernelseek::v1::Session* response) {
  absl::StatusOr<TokenRecord> user = auth_->Check(*context, TokenKind::kUser);
  if (!user.ok()) return ToGrpcStatus(user.status());
  if (sessions_ == nullptr) return NoSessions();
  absl::StatusOr<kernelseek::v1::Session> session = sessions_->StartSession(user->name, request->spec(), request->llm_api_key());
  if (!session.ok()) return ToGrpcStatus(session.status());
  *response = *std::move(session);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::GetSession(grpc::ServerContext* context,
                                            const kernelseek::v1::GetSessionRequest* request,
                                            kernelseek::v1::SessionDetails* response) {
  absl::StatusOr<TokenRecord> user = auth_->Check(*context, TokenKind::kUser);
  if (!user.ok()) return ToGrpcStatus(user.status());
  if (sessions_ == nullptr) return NoSessions();
  absl::StatusOr<kernelseek::v1::SessionDetails> details = sessions_->GetSession(request->session_id());
  if (!details.ok()) return ToGrpcStatus(details.status());
  *response = *std::move(details);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::ListSessions(grpc::ServerContext* context,
                                              const kernelseek::v1::ListSessionsRequest* request,
                                              kernelseek::v1::ListSessionsResponse* response) {
  absl::StatusOr<TokenRecord> user = auth_->Check(*context, TokenKind::kUser);
  if (!user.ok()) return ToGrpcStatus(user.status());
  if (sessions_ == nullptr) return NoSessions();
  int limit = request->limit() <= 0 ? kDefaultListLimit : std::min(request->limit(), kMaxListLimit);
  absl::StatusOr<std::vector<kernelseek::v1::Session>> sessions = sessions_->ListSessions(limit);
  if (!sessions.ok()) return ToGrpcStatus(sessions.status());
  for (kernelseek::v1::Session& s : *sessions) *response->add_sessions() = std::move(s);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::PostMessage(grpc::ServerContext* context,
                                             const kernelseek::v1::PostMessageRequest* request,
                                             kernelseek::v1::PostMessageResponse* response) {
  absl::StatusOr<TokenRecord> user = auth_->Check(*context, TokenKind::kUser);
  if (!user.ok()) return ToGrpcStatus(user.status());
  if (sessions_ == nullptr) return NoSessions();
  absl::StatusOr<int64_t> seq = sessions_->PostMessage(user->name, request->session_id(), request->text());
  if (!seq.ok()) return ToGrpcStatus(seq.status());
  response->set_seq(*seq);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::WatchSession(grpc::ServerContext* context,
                                              const kernelseek::v1::WatchSessionRequest* request,
                                              grpc::ServerWriter<kernelseek::v1::SessionEvent>* writer) {
  absl::StatusOr<TokenRecord> user = auth_->Check(*context, TokenKind::kUser);
  if (!user.ok()) return ToGrpcStatus(user.status());
  if (sessions_ == nullptr) return NoSessions();
  int64_t sent = request->from_seq();
  while (!context->IsCancelled()) {
    uint64_t generation = sessions_->generation();
    // Read the state before the events: an event appended after this read is
    // still streamed, so "ended and nothing new" means nothing was missed.
    absl::StatusOr<kernelseek::v1::SessionDetails> details = sessions_->GetSession(request->session_id());
    if (!details.ok()) return ToGrpcStatus(details.status());
    absl::StatusOr<std::vector<kernelseek::v1::SessionEvent>> events =
        sessions_->Events(request->session_id(), sent, 500);
    if (!events.ok()) return ToGrpcStatus(events.status());
    for (const kernelseek::v1::SessionEvent& event : *events) {
      if (!writer->Write(event)) return grpc::Status::CANCELLED;
      sent = event.seq();
    }
    if (!events->empty()) continue;
    if (!request->follow() || HasEnded(details->session())) return grpc::Status::OK;
    sessions_->AwaitChange(generation, absl::Seconds(1));
  }
  return grpc::Status::CANCELLED;
}

grpc::Status CoordinatorService::StopSession(grpc::ServerContext* context,
                                             const kernelseek::v1::StopSessionRequest* request,
                                             kernelseek::v1::Session* response) {
  absl::StatusOr<TokenRecord> user = auth_->Check(*context, TokenKind::kUser);
  if (!user.ok()) return ToGrpcStatus(user.status());
  if (sessions_ == nullptr) return NoSessions();
  absl::StatusOr<kernelseek::v1::Session> session = sessions_->StopSession(user->name, request->session_id());
  if (!session.ok()) return ToGrpcStatus(session.status());
  *response = *std::move(session);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::GetBestKernel(grpc::ServerContext* context,
                                               const kernelseek::v1::GetBestKernelRequest* request,
                                               kernelseek::v1::KernelVersion* response) {
  absl::StatusOr<TokenRecord> user = auth_->Check(*context, TokenKind::kUser);
  if (!user.ok()) return ToGrpcStatus(user.status());
  if (sessions_ == nullptr) return NoSessions();
  absl::StatusOr<kernelseek::v1::KernelVersion> best = sessions_->GetBestKernel(request->session_id());
  if (!best.ok()) return ToGrpcStatus(best.status());
  *response = *std::move(best);
  return grpc::Status::OK;
}

}  // namespace kseek
