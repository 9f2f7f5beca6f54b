#include "server/coordinator_service.h"

#include <google/protobuf/util/time_util.h>

#include "absl/strings/str_cat.h"
#include "server/authenticated_call.h"
#include "server/watch_stream.h"
#include "common/grpc_status.h"
#include "common/job_state.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;

constexpr int kDefaultListLimit = 50;
constexpr int kMaxListLimit = 1000;

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

namespace {

absl::Status ShuttingDown() { return absl::UnavailableError("server is shutting down; watch again"); }

// WatchJob's stream: the job each time it changes, until it has finished.
class JobWatch final : public WatchStream<Job> {
 public:
  JobWatch(Authenticator* auth, grpc::CallbackServerContext* context, JobQueue* queue,
           std::function<absl::StatusOr<Job>()> read)
      : WatchStream<Job>(auth, context), queue_(queue), read_(std::move(read)) {}

  // Subscribes before the first read, so no change after it is missed.
  absl::Status Begin(const std::string& job_id) {
    absl::StatusOr<ChangeNotifier::Subscription> subscription = queue_->SubscribeJob(job_id, [this] { Wake(); });
    if (!subscription.ok()) return subscription.status();
    subscription_ = *std::move(subscription);
    Start();
    return absl::OkStatus();
  }

 private:
  Batch Read(bool woken) override {
    if (queue_->shutting_down()) return {.end = ShuttingDown()};
    // A queued job's waiting_for also follows the clock (a worker going
    // offline), so it is read again at the periodic step too.
    if (!woken && !queued_) return {};
    absl::StatusOr<Job> job = read_();
    if (!job.ok()) return {.end = job.status()};
    queued_ = job->state() == kernelseek::v1::JOB_STATE_QUEUED;
    Batch batch;
    if (IsFinishedState(job->state())) batch.end = absl::OkStatus();
    // Only changes are streamed: the same state and stage is not sent twice.
    std::string key = absl::StrCat(job->state(), "/", job->stage(), "/", job->attempts(), "/", job->progress().done(),
                                   "/", job->progress().total(), "/", job->queue_position(), "/", job->waiting_for());
    if (key != last_sent_) {
      last_sent_ = std::move(key);
      batch.messages.push_back(*std::move(job));
    }
    return batch;
  }
  void Unsubscribe() override { subscription_.Reset(); }

  JobQueue* const queue_;
  const std::function<absl::StatusOr<Job>()> read_;
  ChangeNotifier::Subscription subscription_;
  // Steps never overlap, so these need no lock.
  std::string last_sent_;
  bool queued_ = false;
};

// WatchSession's stream: the events after from_seq; with follow, each new
// one as it is appended, until the session has ended and all were sent.
class SessionWatch final : public WatchStream<kernelseek::v1::SessionEvent> {
 public:
  SessionWatch(Authenticator* auth, grpc::CallbackServerContext* context, SessionManager* sessions,
               const kernelseek::v1::WatchSessionRequest& request)
      : WatchStream(auth, context), sessions_(sessions), id_(request.session_id()), follow_(request.follow()),
        sent_(request.from_seq()) {}

  absl::Status Begin() {
    absl::StatusOr<ChangeNotifier::Subscription> subscription = sessions_->SubscribeSession(id_, [this] { Wake(); });
    if (!subscription.ok()) return subscription.status();
    subscription_ = *std::move(subscription);
    Start();
    return absl::OkStatus();
  }

 private:
  static constexpr int kBatch = 500;

  Batch Read(bool woken) override {
    if (sessions_->shutting_down()) return {.end = ShuttingDown()};
    // Every event and the end of a session are notified: nothing to read.
    if (!woken) return {};
    // The state before the events: an event appended after this read is
    // still streamed, so "ended and nothing new" means nothing was missed.
    absl::StatusOr<kernelseek::v1::SessionDetails> details = sessions_->GetSession(id_);
    if (!details.ok()) return {.end = details.status()};
    absl::StatusOr<std::vector<kernelseek::v1::SessionEvent>> events = sessions_->Events(id_, sent_, kBatch);
    if (!events.ok()) return {.end = events.status()};
    Batch batch;
    if (!events->empty()) {
      sent_ = events->back().seq();
      batch.messages = *std::move(events);
      batch.more = true;
    } else if (!follow_ || details->session().state() != kernelseek::v1::SESSION_STATE_RUNNING) {
      batch.end = absl::OkStatus();
    }
    return batch;
  }
  void Unsubscribe() override { subscription_.Reset(); }

  SessionManager* const sessions_;
  const std::string id_;
  const bool follow_;
  ChangeNotifier::Subscription subscription_;
  int64_t sent_;  // the last seq sent; steps never overlap
};

}  // namespace

grpc::ServerUnaryReactor* CoordinatorService::SubmitJob(grpc::CallbackServerContext* context,
                                                        const kernelseek::v1::SubmitJobRequest* request,
                                                        kernelseek::v1::SubmitJobResponse* response) {
  return UserCall(auth_, context, [&](const Caller& caller) -> absl::Status {
    if (absl::Status s = caller.CheckSubmit(); !s.ok()) return s;
    absl::StatusOr<std::string> id = queue_->Submit(caller.name, caller.team, request->spec(),
                                                    SubmitOptions{.wait_for_worker = request->wait_for_worker()});
    if (!id.ok()) return id.status();
    response->set_job_id(*id);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* CoordinatorService::CancelJob(grpc::CallbackServerContext* context,
                                                        const kernelseek::v1::CancelJobRequest* request,
                                                        Job* response) {
  return UserCall(auth_, context, [&](const Caller& caller) -> absl::Status {
    absl::StatusOr<Job> visible = VisibleJob(caller, request->job_id());
    if (!visible.ok()) return visible.status();
    if (absl::Status s = caller.CheckControl(absl::StrCat("job ", request->job_id()), visible->user(),
                                             visible->team(), "cancel");
        !s.ok()) {
      return s;
    }
    absl::StatusOr<Job> job = queue_->Cancel(caller.name, request->job_id());
    if (!job.ok()) return job.status();
    *response = *std::move(job);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* CoordinatorService::GetJob(grpc::CallbackServerContext* context,
                                                     const kernelseek::v1::GetJobRequest* request, Job* response) {
  return UserCall(auth_, context, [&](const Caller& caller) -> absl::Status {
    absl::StatusOr<Job> job = VisibleJob(caller, request->job_id());
    if (!job.ok()) return job.status();
    *response = *std::move(job);
    return absl::OkStatus();
  });
}

grpc::ServerWriteReactor<Job>* CoordinatorService::WatchJob(grpc::CallbackServerContext* context,
                                                            const kernelseek::v1::WatchJobRequest* request) {
  return UserStream<Job>(auth_, context, [&](const Caller& caller) -> absl::StatusOr<grpc::ServerWriteReactor<Job>*> {
    const std::string id = request->job_id();
    auto* watch = new JobWatch(auth_, context, queue_, [this, caller, id] { return VisibleJob(caller, id); });
    if (absl::Status s = watch->Begin(id); !s.ok()) {
      delete watch;
      return s;
    }
    return watch;
  });
}

grpc::ServerUnaryReactor* CoordinatorService::ListJobs(grpc::CallbackServerContext* context,
                                                       const kernelseek::v1::ListJobsRequest* request,
                                                       kernelseek::v1::ListJobsResponse* response) {
  return UserCall(auth_, context, [&](const Caller& caller) -> absl::Status {
    if (!kernelseek::v1::JobState_IsValid(request->state())) {
      return absl::InvalidArgumentError(absl::StrCat("unknown job state ", request->state()));
    }
    JobFilter filter;
    filter.team = caller.team;
    filter.user = request->user();
    filter.state = request->state();
    filter.problem = request->problem();
    filter.limit = request->limit() <= 0 ? kDefaultListLimit : std::min(request->limit(), kMaxListLimit);
    absl::StatusOr<std::vector<Job>> jobs = queue_->ListJobs(filter);
    if (!jobs.ok()) return jobs.status();
    for (Job& job : *jobs) *response->add_jobs() = std::move(job);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* CoordinatorService::ListWorkers(grpc::CallbackServerContext* context,
                                                          const kernelseek::v1::ListWorkersRequest* request,
                                                          kernelseek::v1::ListWorkersResponse* response) {
  return UserCall(auth_, context, [&](const Caller& caller) -> absl::Status {
    for (auto& worker : queue_->ListWorkers()) *response->add_workers() = std::move(worker);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* CoordinatorService::ListScenarios(grpc::CallbackServerContext* context,
                                                            const kernelseek::v1::ListScenariosRequest* request,
                                                            kernelseek::v1::ListScenariosResponse* response) {
  return UserCall(auth_, context, [&](const Caller& caller) -> absl::Status {
    absl::StatusOr<const Problem*> problem = problems_->Find(request->problem());
    if (!problem.ok()) return problem.status();
    *response->mutable_problem() = (*problem)->manifest();
    for (const kernelseek::v1::ScenarioSpec& scenario : (*problem)->scenarios()) {
      if (request->set().empty() || scenario.set() == request->set()) *response->add_scenarios() = scenario;
    }
    if (!request->set().empty() && response->scenarios().empty()) {
      return absl::NotFoundError(
          absl::StrCat("problem ", request->problem(), " has no scenario set \"", request->set(), "\""));
    }
    return absl::OkStatus();
  });
}

// --- Sessions ---

namespace {

absl::Status NoSessions() { return absl::UnimplementedError("this server does not run optimization sessions"); }

}  // namespace

grpc::ServerUnaryReactor* CoordinatorService::StartSession(grpc::CallbackServerContext* context,
                                                           const kernelseek::v1::StartSessionRequest* request,
                                                           kernelseek::v1::Session* response) {
  return UserCall(auth_, context, [&](const Caller& caller) -> absl::Status {
    if (sessions_ == nullptr) return NoSessions();
    if (absl::Status s = caller.CheckSubmit(); !s.ok()) return s;
    absl::StatusOr<kernelseek::v1::Session> session =
        sessions_->StartSession(caller.name, caller.team, request->spec(), request->llm_api_key());
    if (!session.ok()) return session.status();
    *response = *std::move(session);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* CoordinatorService::GetSession(grpc::CallbackServerContext* context,
                                                         const kernelseek::v1::GetSessionRequest* request,
                                                         kernelseek::v1::SessionDetails* response) {
  return UserCall(auth_, context, [&](const Caller& caller) -> absl::Status {
    if (sessions_ == nullptr) return NoSessions();
    if (absl::StatusOr<kernelseek::v1::Session> s = VisibleSession(caller, request->session_id()); !s.ok()) {
      return s.status();
    }
    absl::StatusOr<kernelseek::v1::SessionDetails> details = sessions_->GetSession(request->session_id());
    if (!details.ok()) return details.status();
    *response = *std::move(details);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* CoordinatorService::ListSessions(grpc::CallbackServerContext* context,
                                                           const kernelseek::v1::ListSessionsRequest* request,
                                                           kernelseek::v1::ListSessionsResponse* response) {
  return UserCall(auth_, context, [&](const Caller& caller) -> absl::Status {
    if (sessions_ == nullptr) return NoSessions();
    int limit = request->limit() <= 0 ? kDefaultListLimit : std::min(request->limit(), kMaxListLimit);
    absl::StatusOr<std::vector<kernelseek::v1::Session>> sessions = sessions_->ListSessions(caller.team, limit);
    if (!sessions.ok()) return sessions.status();
    for (kernelseek::v1::Session& s : *sessions) *response->add_sessions() = std::move(s);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* CoordinatorService::PostMessage(grpc::CallbackServerContext* context,
                                                          const kernelseek::v1::PostMessageRequest* request,
                                                          kernelseek::v1::PostMessageResponse* response) {
  return UserCall(auth_, context, [&](const Caller& caller) -> absl::Status {
    if (sessions_ == nullptr) return NoSessions();
    if (absl::StatusOr<kernelseek::v1::Session> s = VisibleSession(caller, request->session_id()); !s.ok()) {
      return s.status();
    }
    if (absl::Status s = caller.CheckAsk(); !s.ok()) return s;
    absl::StatusOr<int64_t> seq = sessions_->PostMessage(caller.name, request->session_id(), request->text());
    if (!seq.ok()) return seq.status();
    response->set_seq(*seq);
    return absl::OkStatus();
  });
}

grpc::ServerWriteReactor<kernelseek::v1::SessionEvent>* CoordinatorService::WatchSession(
    grpc::CallbackServerContext* context, const kernelseek::v1::WatchSessionRequest* request) {
  using Reactor = grpc::ServerWriteReactor<kernelseek::v1::SessionEvent>;
  return UserStream<kernelseek::v1::SessionEvent>(
      auth_, context, [&](const Caller& caller) -> absl::StatusOr<Reactor*> {
        if (sessions_ == nullptr) return NoSessions();
        if (absl::StatusOr<kernelseek::v1::Session> s = VisibleSession(caller, request->session_id()); !s.ok()) {
          return s.status();
        }
        auto* watch = new SessionWatch(auth_, context, sessions_, *request);
        if (absl::Status s = watch->Begin(); !s.ok()) {
          delete watch;
          return s;
        }
        return watch;
      });
}

grpc::ServerUnaryReactor* CoordinatorService::StopSession(grpc::CallbackServerContext* context,
                                                          const kernelseek::v1::StopSessionRequest* request,
                                                          kernelseek::v1::Session* response) {
  return UserCall(auth_, context, [&](const Caller& caller) -> absl::Status {
    if (sessions_ == nullptr) return NoSessions();
    absl::StatusOr<kernelseek::v1::Session> visible = VisibleSession(caller, request->session_id());
    if (!visible.ok()) return visible.status();
    if (absl::Status s = caller.CheckControl(absl::StrCat("session ", request->session_id()), visible->user(),
                                             visible->team(), "stop");
        !s.ok()) {
      return s;
    }
    absl::StatusOr<kernelseek::v1::Session> session = sessions_->StopSession(caller.name, request->session_id());
    if (!session.ok()) return session.status();
    *response = *std::move(session);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* CoordinatorService::GetBestKernel(grpc::CallbackServerContext* context,
                                                            const kernelseek::v1::GetBestKernelRequest* request,
                                                            kernelseek::v1::KernelVersion* response) {
  return UserCall(auth_, context, [&](const Caller& caller) -> absl::Status {
    if (sessions_ == nullptr) return NoSessions();
    if (absl::StatusOr<kernelseek::v1::Session> s = VisibleSession(caller, request->session_id()); !s.ok()) {
      return s.status();
    }
    absl::StatusOr<kernelseek::v1::KernelVersion> best = sessions_->GetBestKernel(request->session_id());
    if (!best.ok()) return best.status();
    *response = *std::move(best);
    return absl::OkStatus();
  });
}

// --- Tokens of the caller's team ---

namespace {

absl::Status NoTokens() { return absl::UnimplementedError("this server does not manage tokens over RPC"); }

}  // namespace

grpc::ServerUnaryReactor* CoordinatorService::CreateToken(grpc::CallbackServerContext* context,
                                                          const kernelseek::v1::CreateTokenRequest* request,
                                                          kernelseek::v1::CreateTokenResponse* response) {
  return UserCall(auth_, context, [&](const Caller& caller) -> absl::Status {
    if (tokens_ == nullptr) return NoTokens();
    if (absl::Status s = caller.CheckAdmin(); !s.ok()) return s;
    TokenRequest token;
    token.kind = TokenKind::kUser;
    token.name = request->name();
    token.team = caller.team;
    if (!request->role().empty()) {
      absl::StatusOr<Role> role = ParseRole(request->role());
      if (!role.ok()) return role.status();
      token.role = *role;
    }
    token.expires = request->expires();
    token.created_by = caller.name;
    absl::StatusOr<CreatedToken> created = tokens_->Create(token);
    if (!created.ok()) return created.status();
    *response->mutable_info() = ToTokenInfo(created->record);
    response->set_token(created->token);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* CoordinatorService::ListTokens(grpc::CallbackServerContext* context,
                                                         const kernelseek::v1::ListTokensRequest* request,
                                                         kernelseek::v1::ListTokensResponse* response) {
  return UserCall(auth_, context, [&](const Caller& caller) -> absl::Status {
    if (tokens_ == nullptr) return NoTokens();
    if (absl::Status s = caller.CheckAdmin(); !s.ok()) return s;
    absl::StatusOr<std::vector<TokenRecord>> tokens = tokens_->List(caller.team);
    if (!tokens.ok()) return tokens.status();
    for (const TokenRecord& record : *tokens) *response->add_tokens() = ToTokenInfo(record);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* CoordinatorService::RevokeToken(grpc::CallbackServerContext* context,
                                                          const kernelseek::v1::RevokeTokenRequest* request,
                                                          kernelseek::v1::TokenInfo* response) {
  return UserCall(auth_, context, [&](const Caller& caller) -> absl::Status {
    if (tokens_ == nullptr) return NoTokens();
    if (absl::Status s = caller.CheckAdmin(); !s.ok()) return s;
    absl::StatusOr<TokenRecord> revoked = tokens_->Revoke(request->id(), caller.team, caller.name);
    if (!revoked.ok()) return revoked.status();
    *response = ToTokenInfo(*revoked);
    return absl::OkStatus();
  });
}

}  // namespace kseek
