#include "client/coordinator_client.h"

#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/grpc_status.h"
#include "common/job_state.h"
#include "common/protocol.h"
#include "common/version.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;
using kernelseek::v1::KernelVersion;
using kernelseek::v1::Session;
using kernelseek::v1::SessionDetails;
using kernelseek::v1::SessionEvent;

bool IsFinished(const Job& job) { return IsFinishedState(job.state()); }

// A broken connection or a server going away mid-stream; anything else
// (bad token, unknown job, ...) would fail the same way again.
bool IsStreamBreak(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kCancelled:
    case absl::StatusCode::kAborted:
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kUnknown:
    case absl::StatusCode::kDeadlineExceeded:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::shared_ptr<grpc::Channel> CoordinatorClient::MakeChannel(
    const std::string& address, const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
  grpc::ChannelArguments args;
  // gRPC's default reconnect backoff grows to 120 s; while it waits, calls
  // fail at once, so a watch would miss a server that is already back.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 250);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 250);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
  return CreateProtocolChannel(address, credentials, args, kProtocolVersion, "kseek");
}

CoordinatorClient::CoordinatorClient(std::shared_ptr<grpc::Channel> channel, std::string token)
    : CoordinatorClient(std::move(channel), std::move(token), Options()) {}

CoordinatorClient::CoordinatorClient(std::shared_ptr<grpc::Channel> channel, std::string token,
                                     Options options)
    : stub_(kernelseek::v1::Coordinator::NewStub(std::move(channel))),
      token_(std::move(token)),
      options_(options) {}

void CoordinatorClient::PrepareContext(grpc::ClientContext* context, bool with_deadline) const {
  context->AddMetadata("authorization", absl::StrCat("Bearer ", token_));
  if (with_deadline) context->set_deadline(absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
}

absl::StatusOr<std::string> CoordinatorClient::SubmitJob(const kernelseek::v1::JobSpec& spec,
                                                         bool wait_for_worker) {
  grpc::ClientContext context;
  PrepareContext(&context, /*with_deadline=*/true);
  kernelseek::v1::SubmitJobRequest request;
  *request.mutable_spec() = spec;
  request.set_wait_for_worker(wait_for_worker);
  kernelseek::v1::SubmitJobResponse response;
  if (grpc::Status s = stub_->SubmitJob(&context, request, &response); !s.ok()) {
    return FromGrpcStatus(s);
  }
  return response.job_id();
}

absl::StatusOr<Job> CoordinatorClient::GetJob(const std::string& job_id) {
  grpc::ClientContext context;
  PrepareContext(&context, /*with_deadline=*/true);
  kernelseek::v1::GetJobRequest request;
  request.set_job_id(job_id);
  Job job;
  if (grpc::Status s = stub_->GetJob(&context, request, &job); !s.ok()) return FromGrpcStatus(s);
  return job;
}

absl::StatusOr<Job> CoordinatorClient::CancelJob(const std::string& job_id) {
  grpc::ClientContext context;
  PrepareContext(&context, /*with_deadline=*/true);
  kernelseek::v1::CancelJobRequest request;
  request.set_job_id(job_id);
  Job job;
  if (grpc::Status s = stub_->CancelJob(&context, request, &job); !s.ok()) return FromGrpcStatus(s);
  return job;
}

absl::StatusOr<std::vector<Job>> CoordinatorClient::ListJobs(
    const kernelseek::v1::ListJobsRequest& request) {
  grpc::ClientContext context;
  PrepareContext(&context, /*with_deadline=*/true);
  kernelseek::v1::ListJobsResponse response;
  if (grpc::Status s = stub_->ListJobs(&context, request, &response); !s.ok()) {
    return FromGrpcStatus(s);
  }
  return std::vector<Job>(response.jobs().begin(), response.jobs().end());
}

absl::StatusOr<std::vector<kernelseek::v1::WorkerInfo>> CoordinatorClient::ListWorkers() {
  grpc::ClientContext context;
  PrepareContext(&context, /*with_deadline=*/true);
  kernelseek::v1::ListWorkersResponse response;
  if (grpc::Status s = stub_->ListWorkers(&context, {}, &response); !s.ok()) {
    return FromGrpcStatus(s);
  }
  return std::vector<kernelseek::v1::WorkerInfo>(response.workers().begin(),
                                                 response.workers().end());
}

absl::StatusOr<kernelseek::v1::CreateTokenResponse> CoordinatorClient::CreateToken(const std::string& name,
                                                                                   const std::string& role,
                                                                                   const std::string& expires) {
  grpc::ClientContext context;
  PrepareContext(&context, /*with_deadline=*/true);
  kernelseek::v1::CreateTokenRequest request;
  request.set_name(name);
  request.set_role(role);
  request.set_expires(expires);
  kernelseek::v1::CreateTokenResponse response;
  if (grpc::Status s = stub_->CreateToken(&context, request, &response); !s.ok()) return FromGrpcStatus(s);
  return response;
}

absl::StatusOr<std::vector<kernelseek::v1::TokenInfo>> CoordinatorClient::ListTokens() {
  grpc::ClientContext context;
  PrepareContext(&context, /*with_deadline=*/true);
  kernelseek::v1::ListTokensResponse response;
  if (grpc::Status s = stub_->ListTokens(&context, {}, &response); !s.ok()) return FromGrpcStatus(s);
  return std::vector<kernelseek::v1::TokenInfo>(response.tokens().begin(), response.tokens().end());
}

absl::StatusOr<kernelseek::v1::TokenInfo> CoordinatorClient::RevokeToken(int64_t id) {
  grpc::ClientContext context;
  PrepareContext(&context, /*with_deadline=*/true);
  kernelseek::v1::RevokeTokenRequest request;
  request.set_id(id);
  kernelseek::v1::TokenInfo response;
  if (grpc::Status s = stub_->RevokeToken(&context, request, &response); !s.ok()) return FromGrpcStatus(s);
  return response;
}

absl::StatusOr<kernelseek::v1::ListScenariosResponse> CoordinatorClient::ListScenarios(
    const std::string& problem, const std::string& set) {
  grpc::ClientContext context;
  PrepareContext(&context, /*with_deadline=*/true);
  kernelseek::v1::ListScenariosRequest request;
  request.set_problem(problem);
  request.set_set(set);
  kernelseek::v1::ListScenariosResponse response;
  if (grpc::Status s = stub_->ListScenarios(&context, request, &response); !s.ok()) {
    return FromGrpcStatus(s);
  }
  return response;
}

absl::StatusOr<Job> CoordinatorClient::WatchJob(
    const std::string& job_id, const std::function<void(const Job&)>& on_update,
    const std::function<void(const absl::Status&)>& on_stream_lost) {
  kernelseek::v1::WatchJobRequest request;
  request.set_job_id(job_id);
  absl::Time last_message = absl::Now();
  absl::Duration backoff = options_.initial_backoff;
  while (true) {
    // No deadline: a job may wait in the queue for as long as it takes.
    grpc::ClientContext context;
    PrepareContext(&context, /*with_deadline=*/false);
    std::unique_ptr<grpc::ClientReader<Job>> reader = stub_->WatchJob(&context, request);
    Job job;
    while (reader->Read(&job)) {
      last_message = absl::Now();
      backoff = options_.initial_backoff;
      if (on_update) on_update(job);
      if (IsFinished(job)) {
        context.TryCancel();
        reader->Finish().IgnoreError();  // The server may end the call as it likes now.
        return job;
      }
    }
    absl::Status status = FromGrpcStatus(reader->Finish());
    if (status.ok()) {
      // The server ended the stream before the job finished (e.g. it is
      // shutting down); a new stream picks up from the job's current state.
      status = absl::UnavailableError(
          absl::StrCat("the watch of job ", job_id, " ended before the job finished"));
    } else if (!IsStreamBreak(status)) {
      return status;
    }
    absl::Duration left = options_.watch_reconnect_budget - (absl::Now() - last_message);
    if (left <= absl::ZeroDuration()) return status;
    if (on_stream_lost) on_stream_lost(status);
    absl::SleepFor(std::min(backoff, left));
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

absl::StatusOr<Session> CoordinatorClient::StartSession(const kernelseek::v1::SessionSpec& spec,
                                                        const std::string& llm_api_key) {
  grpc::ClientContext context;
  PrepareContext(&context, /*with_deadline=*/true);
  kernelseek::v1::StartSessionRequest request;
  *request.mutable_spec() = spec;
  request.set_llm_api_key(llm_api_key);
  Session session;
  if (grpc::Status s = stub_->StartSession(&context, request, &session); !s.ok()) {
    return FromGrpcStatus(s);
  }
  return session;
}

absl::StatusOr<SessionDetails> CoordinatorClient::GetSession(const std::string& session_id) {
  grpc::ClientContext context;
  PrepareContext(&context, /*with_deadline=*/true);
  kernelseek::v1::GetSessionRequest request;
  request.set_session_id(session_id);
  SessionDetails details;
  if (grpc::Status s = stub_->GetSession(&context, request, &details); !s.ok()) {
    return FromGrpcStatus(s);
  }
  return details;
}

absl::StatusOr<std::vector<Session>> CoordinatorClient::ListSessions(int limit) {
  grpc::ClientContext context;
  PrepareContext(&context, /*with_deadline=*/true);
  kernelseek::v1::ListSessionsRequest request;
  request.set_limit(limit);
  kernelseek::v1::ListSessionsResponse response;
  if (grpc::Status s = stub_->ListSessions(&context, request, &response); !s.ok()) {
    return FromGrpcStatus(s);
  }
  return std::vector<Session>(response.sessions().begin(), response.sessions().end());
}

absl::StatusOr<int64_t> CoordinatorClient::PostMessage(const std::string& session_id,
                                                       const std::string& text) {
  grpc::ClientContext context;
  PrepareContext(&context, /*with_deadline=*/true);
  kernelseek::v1::PostMessageRequest request;
  request.set_session_id(session_id);
  request.set_text(text);
  kernelseek::v1::PostMessageResponse response;
  if (grpc::Status s = stub_->PostMessage(&context, request, &response); !s.ok()) {
    return FromGrpcStatus(s);
  }
  return response.seq();
}

absl::StatusOr<Session> CoordinatorClient::StopSession(const std::string& session_id) {
  grpc::ClientContext context;
  PrepareContext(&context, /*with_deadline=*/true);
  kernelseek::v1::StopSessionRequest request;
  request.set_session_id(session_id);
  Session session;
  if (grpc::Status s = stub_->StopSession(&context, request, &session); !s.ok()) {
    return FromGrpcStatus(s);
  }
  return session;
}

absl::StatusOr<KernelVersion> CoordinatorClient::GetBestKernel(const std::string& session_id) {
  grpc::ClientContext context;
  PrepareContext(&context, /*with_deadline=*/true);
  kernelseek::v1::GetBestKernelRequest request;
  request.set_session_id(session_id);
  KernelVersion version;
  if (grpc::Status s = stub_->GetBestKernel(&context, request, &version); !s.ok()) {
    return FromGrpcStatus(s);
  }
  return version;
}

absl::StatusOr<Session> CoordinatorClient::WatchSession(
    const std::string& session_id, int64_t from_seq, bool follow,
    const std::function<void(const SessionEvent&)>& on_event,
    const std::function<void(const absl::Status&, int64_t last_seq)>& on_stream_lost) {
  int64_t last_seq = from_seq;
  // Sessions go quiet for minutes while the model thinks, so the budget runs
  // from when the connection was last seen working, not from the last event.
  absl::Time broken_since = absl::InfiniteFuture();
  absl::Duration backoff = options_.initial_backoff;
  while (true) {
    kernelseek::v1::WatchSessionRequest request;
    request.set_session_id(session_id);
    request.set_from_seq(last_seq);
    request.set_follow(follow);
    absl::Time opened = absl::Now();
    grpc::ClientContext context;
    // No deadline: a followed session runs for as long as its budget lasts.
    PrepareContext(&context, /*with_deadline=*/false);
    std::unique_ptr<grpc::ClientReader<SessionEvent>> reader =
        stub_->WatchSession(&context, request);
    SessionEvent event;
    while (reader->Read(&event)) {
      broken_since = absl::InfiniteFuture();
      backoff = options_.initial_backoff;
      // A resumed stream starts after last_seq; anything older is a repeat.
      if (event.seq() <= last_seq) continue;
      last_seq = event.seq();
      if (on_event) on_event(event);
    }
    absl::Status status = FromGrpcStatus(reader->Finish());
    if (status.ok()) {
      absl::StatusOr<SessionDetails> details = GetSession(session_id);
      if (details.ok()) {
        if (!follow || details->session().state() != kernelseek::v1::SESSION_STATE_RUNNING) {
          return details->session();
        }
        // The server ended the stream while the session runs on (e.g. it is
        // shutting down); a new stream picks up after last_seq.
        status = absl::UnavailableError(absl::StrCat("the watch of session ", session_id,
                                                     " ended while the session is running"));
      } else {
        status = details.status();
      }
    }
    if (!IsStreamBreak(status)) return status;
    absl::Time now = absl::Now();
    // A stream that stayed open a while had a working connection even if no
    // event came; a dead server fails a call at once.
    if (broken_since == absl::InfiniteFuture() || now - opened >= options_.max_backoff) {
      broken_since = now;
      backoff = options_.initial_backoff;
    }
    absl::Duration left = options_.watch_reconnect_budget - (now - broken_since);
    if (left <= absl::ZeroDuration()) return status;
    if (on_stream_lost) on_stream_lost(status, last_seq);
    absl::SleepFor(std::min(backoff, left));
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

}  // namespace kseek
