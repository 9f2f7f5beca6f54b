#include "server/coordinator_service.h"

#include <google/protobuf/util/time_util.h>

#include "absl/strings/str_cat.h"
#include "common/grpc_status.h"
#include "common/job_state.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;

constexpr int kDefaultListLimit = 50;
constexpr int kMaxListLimit = 1000;

bool IsFinished(const Job& job) { return IsFinishedState(job.state()); }

google::protobuf::Timestamp ToTimestamp(absl::Time t) {
  return google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(t));
}

kernelseek::v1::TokenInfo ToTokenInfo(const TokenRecord& record) {
  kernelseek::v1::TokenInfo info;
  info.set_id(record.id);
  info.set_kind(record.kind == TokenKind::kUser ? "user" : "worker");
  info.set_name(record.name);
  if (record.kind == TokenKind::kUser) {
    info.set_team(record.team);
    info.set_role(RoleName(record.role));
  }
  *info.mutable_created() = ToTimestamp(record.created_at);
  info.set_created_by(record.created_by);
  if (record.expires_at.has_value()) *info.mutable_expires() = ToTimestamp(*record.expires_at);
  if (record.revoked_at.has_value()) *info.mutable_revoked() = ToTimestamp(*record.revoked_at);
  info.set_revoked_by(record.revoked_by);
  return info;
}

}  // namespace

absl::StatusOr<Job> CoordinatorService::VisibleJob(const Caller& caller, const std::string& id) {
  absl::StatusOr<Job> job = queue_->GetJob(id);
  if (!job.ok()) return job.status();
  // Worded as JobQueue words an unknown id, so another team's ids cannot be told apart from free ones.
  if (!caller.CanRead(job->team())) return absl::NotFoundError(absl::StrCat("no job with id ", id));
  return job;
}

absl::StatusOr<kernelseek::v1::Session> CoordinatorService::VisibleSession(const Caller& caller,
                                                                           const std::string& id) {
  absl::StatusOr<kernelseek::v1::Session> session = sessions_->FindSession(id);
  if (!session.ok()) return session.status();
  // Worded as SessionManager words an unknown id.
  if (!caller.CanRead(session->team())) return absl::NotFoundError(absl::StrCat("session ", id, " not found"));
  return session;
}

grpc::Status CoordinatorService::SubmitJob(grpc::ServerContext* context, const kernelseek::v1::SubmitJobRequest* request,
                                           kernelseek::v1::SubmitJobResponse* response) {
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (absl::Status s = caller->CheckSubmit(); !s.ok()) return ToGrpcStatus(s);
  absl::StatusOr<std::string> id = queue_->Submit(caller->name, caller->team, request->spec(),
                                                  SubmitOptions{.wait_for_worker = request->wait_for_worker()});
  if (!id.ok()) return ToGrpcStatus(id.status());
  response->set_job_id(*id);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::CancelJob(grpc::ServerContext* context,
                                           const kernelseek::v1::CancelJobRequest* request, Job* response) {
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::StatusOr<Job> visible = VisibleJob(*caller, request->job_id());
  if (!visible.ok()) return ToGrpcStatus(visible.status());
  if (absl::Status s = caller->CheckControl(absl::StrCat("job ", request->job_id()), visible->user(), visible->team(),
                                          "cancel");
      !s.ok()) {
    return ToGrpcStatus(s);
  }
  absl::StatusOr<Job> job = queue_->Cancel(caller->name, request->job_id());
  if (!job.ok()) return ToGrpcStatus(job.status());
  *response = *std::move(job);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::GetJob(grpc::ServerContext* context, const kernelseek::v1::GetJobRequest* request,
                                        Job* response) {
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::StatusOr<Job> job = VisibleJob(*caller, request->job_id());
  if (!job.ok()) return ToGrpcStatus(job.status());
  *response = *std::move(job);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::WatchJob(grpc::ServerContext* context, const kernelseek::v1::WatchJobRequest* request,
                                          grpc::ServerWriter<Job>* writer) {
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  std::string last_sent;
  while (!context->IsCancelled() && !queue_->shutting_down()) {
    uint64_t generation = queue_->generation();
    // A token revoked or expired while the stream is open ends it too.
    if (absl::StatusOr<Caller> still = auth_->CheckUser(*context); !still.ok()) return ToGrpcStatus(still.status());
    absl::StatusOr<Job> job = VisibleJob(*caller, request->job_id());
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
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (!kernelseek::v1::JobState_IsValid(request->state())) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, absl::StrCat("unknown job state ", request->state()));
  }
  JobFilter filter;
  filter.team = caller->team;
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
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  for (auto& worker : queue_->ListWorkers()) *response->add_workers() = std::move(worker);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::ListScenarios(grpc::ServerContext* context,
                                               const kernelseek::v1::ListScenariosRequest* request,
                                               kernelseek::v1::ListScenariosResponse* response) {
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
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
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (sessions_ == nullptr) return NoSessions();
  if (absl::Status s = caller->CheckSubmit(); !s.ok()) return ToGrpcStatus(s);
  absl::StatusOr<kernelseek::v1::Session> session =
      sessions_->StartSession(caller->name, caller->team, request->spec(), request->llm_api_key());
  if (!session.ok()) return ToGrpcStatus(session.status());
  *response = *std::move(session);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::GetSession(grpc::ServerContext* context,
                                            const kernelseek::v1::GetSessionRequest* request,
                                            kernelseek::v1::SessionDetails* response) {
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (sessions_ == nullptr) return NoSessions();
  if (absl::StatusOr<kernelseek::v1::Session> s = VisibleSession(*caller, request->session_id()); !s.ok()) {
    return ToGrpcStatus(s.status());
  }
  absl::StatusOr<kernelseek::v1::SessionDetails> details = sessions_->GetSession(request->session_id());
  if (!details.ok()) return ToGrpcStatus(details.status());
  *response = *std::move(details);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::ListSessions(grpc::ServerContext* context,
                                              const kernelseek::v1::ListSessionsRequest* request,
                                              kernelseek::v1::ListSessionsResponse* response) {
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (sessions_ == nullptr) return NoSessions();
  int limit = request->limit() <= 0 ? kDefaultListLimit : std::min(request->limit(), kMaxListLimit);
  absl::StatusOr<std::vector<kernelseek::v1::Session>> sessions = sessions_->ListSessions(caller->team, limit);
  if (!sessions.ok()) return ToGrpcStatus(sessions.status());
  for (kernelseek::v1::Session& s : *sessions) *response->add_sessions() = std::move(s);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::PostMessage(grpc::ServerContext* context,
                                             const kernelseek::v1::PostMessageRequest* request,
                                             kernelseek::v1::PostMessageResponse* response) {
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (sessions_ == nullptr) return NoSessions();
  if (absl::StatusOr<kernelseek::v1::Session> s = VisibleSession(*caller, request->session_id()); !s.ok()) {
    return ToGrpcStatus(s.status());
  }
  if (absl::Status s = caller->CheckAsk(); !s.ok()) return ToGrpcStatus(s);
  absl::StatusOr<int64_t> seq = sessions_->PostMessage(caller->name, request->session_id(), request->text());
  if (!seq.ok()) return ToGrpcStatus(seq.status());
  response->set_seq(*seq);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::WatchSession(grpc::ServerContext* context,
                                              const kernelseek::v1::WatchSessionRequest* request,
                                              grpc::ServerWriter<kernelseek::v1::SessionEvent>* writer) {
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (sessions_ == nullptr) return NoSessions();
  if (absl::StatusOr<kernelseek::v1::Session> s = VisibleSession(*caller, request->session_id()); !s.ok()) {
    return ToGrpcStatus(s.status());
  }
  int64_t sent = request->from_seq();
  while (!context->IsCancelled()) {
    uint64_t generation = sessions_->generation();
    // A token revoked or expired while the stream is open ends it too.
    if (absl::StatusOr<Caller> still = auth_->CheckUser(*context); !still.ok()) return ToGrpcStatus(still.status());
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
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (sessions_ == nullptr) return NoSessions();
  absl::StatusOr<kernelseek::v1::Session> visible = VisibleSession(*caller, request->session_id());
  if (!visible.ok()) return ToGrpcStatus(visible.status());
  if (absl::Status s = caller->CheckControl(absl::StrCat("session ", request->session_id()), visible->user(),
                                          visible->team(), "stop");
      !s.ok()) {
    return ToGrpcStatus(s);
  }
  absl::StatusOr<kernelseek::v1::Session> session = sessions_->StopSession(caller->name, request->session_id());
  if (!session.ok()) return ToGrpcStatus(session.status());
  *response = *std::move(session);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::GetBestKernel(grpc::ServerContext* context,
                                               const kernelseek::v1::GetBestKernelRequest* request,
                                               kernelseek::v1::KernelVersion* response) {
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (sessions_ == nullptr) return NoSessions();
  if (absl::StatusOr<kernelseek::v1::Session> s = VisibleSession(*caller, request->session_id()); !s.ok()) {
    return ToGrpcStatus(s.status());
  }
  absl::StatusOr<kernelseek::v1::KernelVersion> best = sessions_->GetBestKernel(request->session_id());
  if (!best.ok()) return ToGrpcStatus(best.status());
  *response = *std::move(best);
  return grpc::Status::OK;
}

// --- Tokens of the caller's team ---

namespace {

grpc::Status NoTokens() {
  return grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "this server does not manage tokens over RPC");
}

}  // namespace

grpc::Status CoordinatorService::CreateToken(grpc::ServerContext* context,
                                             const kernelseek::v1::CreateTokenRequest* request,
                                             kernelseek::v1::CreateTokenResponse* response) {
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (tokens_ == nullptr) return NoTokens();
  if (absl::Status s = caller->CheckAdmin(); !s.ok()) return ToGrpcStatus(s);
  TokenRequest token;
  token.kind = TokenKind::kUser;
  token.name = request->name();
  token.team = caller->team;
  if (!request->role().empty()) {
    absl::StatusOr<Role> role = ParseRole(request->role());
    if (!role.ok()) return ToGrpcStatus(role.status());
    token.role = *role;
  }
  token.expires = request->expires();
  token.created_by = caller->name;
  absl::StatusOr<CreatedToken> created = tokens_->Create(token);
  if (!created.ok()) return ToGrpcStatus(created.status());
  *response->mutable_info() = ToTokenInfo(created->record);
  response->set_token(created->token);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::ListTokens(grpc::ServerContext* context,
                                            const kernelseek::v1::ListTokensRequest* request,
                                            kernelseek::v1::ListTokensResponse* response) {
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (tokens_ == nullptr) return NoTokens();
  if (absl::Status s = caller->CheckAdmin(); !s.ok()) return ToGrpcStatus(s);
  absl::StatusOr<std::vector<TokenRecord>> tokens = tokens_->List(caller->team);
  if (!tokens.ok()) return ToGrpcStatus(tokens.status());
  for (const TokenRecord& record : *tokens) *response->add_tokens() = ToTokenInfo(record);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::RevokeToken(grpc::ServerContext* context,
                                             const kernelseek::v1::RevokeTokenRequest* request,
                                             kernelseek::v1::TokenInfo* response) {
  absl::StatusOr<Caller> caller = auth_->CheckUser(*context);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (tokens_ == nullptr) return NoTokens();
  if (absl::Status s = caller->CheckAdmin(); !s.ok()) return ToGrpcStatus(s);
  absl::StatusOr<TokenRecord> revoked = tokens_->Revoke(request->id(), caller->team, caller->name);
  if (!revoked.ok()) return ToGrpcStatus(revoked.status());
  *response = ToTokenInfo(*revoked);
  return grpc::Status::OK;
}

}  // namespace kseek
