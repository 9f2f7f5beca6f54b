// FakeCoordinator: a scripted Coordinator service on a loopback port, for
// testing the CLI's RPC paths (token metadata, stream breaks, error mapping)
// without the real server. Holds one job and one session; the session's
// trace is a fixed list of events that WatchSession calls play, each call
// from its from_seq, cut short as a script says. Thread-safe: gRPC calls it
// from its own threads.
#ifndef KERNELSEEK_TESTS_CLIENT_FAKE_COORDINATOR_H_
#define KERNELSEEK_TESTS_CLIENT_FAKE_COORDINATOR_H_

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/protocol.h"
#include "common/version.h"
#include "proto/kernelseek.grpc.pb.h"

namespace kseek::testing {

// What one WatchJob call sends before ending with `end`.
struct WatchScript {
  std::vector<kernelseek::v1::Job> updates;
  grpc::Status end = grpc::Status::OK;
};

// What one WatchSession call does: sends up to `max_events` of the events
// after the request's from_seq (-1: all of them), then ends with `end`.
struct SessionWatchScript {
  int max_events = -1;
  grpc::Status end = grpc::Status::OK;
};

class FakeCoordinator final : public kernelseek::v1::Coordinator::Service {
 public:
  explicit FakeCoordinator(std::string token) : token_(std::move(token)) {}

  // WatchJob call number i plays scripts[min(i, size - 1)].
  void SetWatchScripts(std::vector<WatchScript> scripts) {
    absl::MutexLock lock(&mu_);
    scripts_ = std::move(scripts);
  }
  void SetJob(kernelseek::v1::Job job) {
    absl::MutexLock lock(&mu_);
    job_ = std::move(job);
  }
  // ListScenarios answers `response` for `problem` (and any set) and
  // NOT_FOUND for other problems.
  void SetScenarios(std::string problem, kernelseek::v1::ListScenariosResponse response) {
    absl::MutexLock lock(&mu_);
    scenario_problem_ = std::move(problem);
    scenarios_ = std::move(response);
  }
  kernelseek::v1::ListScenariosRequest last_scenarios_request() const {
    absl::MutexLock lock(&mu_);
    return last_scenarios_request_;
  }
  std::vector<std::string> authorizations() const {
    absl::MutexLock lock(&mu_);
    return authorizations_;
  }
  int watch_calls() const {
    absl::MutexLock lock(&mu_);
    return watch_calls_;
  }
  kernelseek::v1::JobSpec last_submitted() const {
    absl::MutexLock lock(&mu_);
    return last_submitted_;
  }
  // What SubmitJob answers from now on, instead of the job's id.
  void SetSubmitError(grpc::Status error) {
    absl::MutexLock lock(&mu_);
    submit_error_ = std::move(error);
  }

  // The one session: StartSession answers details.session(), GetSession the
  // details, ListSessions the session, StopSession the session stopped;
  // other ids are NOT_FOUND.
  void SetSession(kernelseek::v1::SessionDetails details) {
    absl::MutexLock lock(&mu_);
    session_ = std::move(details);
  }
  void SetSessionEvents(std::vector<kernelseek::v1::SessionEvent> events) {
    absl::MutexLock lock(&mu_);
    events_ = std::move(events);
  }
  // WatchSession call number i plays scripts[min(i, size - 1)]; no scripts:
  // every call sends all events after from_seq and ends OK.
  void SetSessionWatchScripts(std::vector<SessionWatchScript> scripts) {
    absl::MutexLock lock(&mu_);
    session_scripts_ = std::move(scripts);
  }
  void SetBestKernel(kernelseek::v1::KernelVersion version) {
    absl::MutexLock lock(&mu_);
    best_ = std::move(version);
  }
  kernelseek::v1::SessionSpec last_session_spec() const {
    absl::MutexLock lock(&mu_);
    return last_session_spec_;
  }
  std::string last_llm_api_key() const {
    absl::MutexLock lock(&mu_);
    return last_llm_api_key_;
  }
  std::vector<kernelseek::v1::WatchSessionRequest> session_watch_requests() const {
    absl::MutexLock lock(&mu_);
    return session_watch_requests_;
  }
  std::vector<kernelseek::v1::PostMessageRequest> posted_messages() const {
    absl::MutexLock lock(&mu_);
    return posted_;
  }
  int stop_calls() const {
    absl::MutexLock lock(&mu_);
    return stop_calls_;
  }
  int list_sessions_limit() const {
    absl::MutexLock lock(&mu_);
    return list_sessions_limit_;
  }
  kernelseek::v1::SubmitJobRequest last_submit_request() const {
    absl::MutexLock lock(&mu_);
    return last_submit_request_;
  }
  kernelseek::v1::ListJobsRequest last_list_jobs_request() const {
    absl::MutexLock lock(&mu_);
    return last_list_jobs_request_;
  }

  grpc::Status SubmitJob(grpc::ServerContext* context,
                         const kernelseek::v1::SubmitJobRequest* request,
                         kernelseek::v1::SubmitJobResponse* response) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    last_submitted_ = request->spec();
    last_submit_request_ = *request;
    if (!submit_error_.ok()) return submit_error_;
    response->set_job_id(job_.id());
    return grpc::Status::OK;
  }

  grpc::Status GetJob(grpc::ServerContext* context, const kernelseek::v1::GetJobRequest* request,
                      kernelseek::v1::Job* response) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    if (request->job_id() != job_.id()) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, absl::StrCat("no job ", request->job_id()));
    }
    *response = job_;
    return grpc::Status::OK;
  }

  grpc::Status WatchJob(grpc::ServerContext* context,
                        const kernelseek::v1::WatchJobRequest* request,
                        grpc::ServerWriter<kernelseek::v1::Job>* writer) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    WatchScript script;
    {
      absl::MutexLock lock(&mu_);
      if (request->job_id() != job_.id()) {
        return grpc::Status(grpc::StatusCode::NOT_FOUND,
                            absl::StrCat("no job ", request->job_id()));
      }
      if (scripts_.empty()) return grpc::Status(grpc::StatusCode::INTERNAL, "no watch script");
      script = scripts_[std::min<size_t>(watch_calls_, scripts_.size() - 1)];
      ++watch_calls_;
    }
    for (const kernelseek::v1::Job& job : script.updates) writer->Write(job);
    return script.end;
  }

  grpc::Status ListJobs(grpc::ServerContext* context, const kernelseek::v1::ListJobsRequest* request,
                        kernelseek::v1::ListJobsResponse* response) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    last_list_jobs_request_ = *request;
    *response->add_jobs() = job_;
    return grpc::Status::OK;
  }

  grpc::Status ListScenarios(grpc::ServerContext* context,
                             const kernelseek::v1::ListScenariosRequest* request,
                             kernelseek::v1::ListScenariosResponse* response) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    last_scenarios_request_ = *request;
    if (request->problem() != scenario_problem_) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          absl::StrCat("no problem named \"", request->problem(), "\""));
    }
    *response = scenarios_;
    return grpc::Status::OK;
  }

  grpc::Status StartSession(grpc::ServerContext* context,
                            const kernelseek::v1::StartSessionRequest* request,
                            kernelseek::v1::Session* response) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    last_session_spec_ = request->spec();
    last_llm_api_key_ = request->llm_api_key();
    *response = session_.session();
    return grpc::Status::OK;
  }

  grpc::Status GetSession(grpc::ServerContext* context,
                          const kernelseek::v1::GetSessionRequest* request,
                          kernelseek::v1::SessionDetails* response) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    if (grpc::Status s = FindSessionLocked(request->session_id()); !s.ok()) return s;
    *response = session_;
    return grpc::Status::OK;
  }

  grpc::Status ListSessions(grpc::ServerContext* context,
                            const kernelseek::v1::ListSessionsRequest* request,
                            kernelseek::v1::ListSessionsResponse* response) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    list_sessions_limit_ = request->limit();
    *response->add_sessions() = session_.session();
    return grpc::Status::OK;
  }

  grpc::Status PostMessage(grpc::ServerContext* context,
                           const kernelseek::v1::PostMessageRequest* request,
                           kernelseek::v1::PostMessageResponse* response) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    if (grpc::Status s = FindSessionLocked(request->session_id()); !s.ok()) return s;
    posted_.push_back(*request);
    response->set_seq(session_.session().last_seq() + static_cast<int64_t>(posted_.size()));
    return grpc::Status::OK;
  }

  grpc::Status WatchSession(grpc::ServerContext* context,
                            const kernelseek::v1::WatchSessionRequest* request,
                            grpc::ServerWriter<kernelseek::v1::SessionEvent>* writer) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    std::vector<kernelseek::v1::SessionEvent> to_send;
    SessionWatchScript script;
    {
      absl::MutexLock lock(&mu_);
      if (grpc::Status s = FindSessionLocked(request->session_id()); !s.ok()) return s;
      if (!session_scripts_.empty()) {
        script =
            session_scripts_[std::min(session_watch_requests_.size(), session_scripts_.size() - 1)];
      }
      session_watch_requests_.push_back(*request);
      for (const kernelseek::v1::SessionEvent& event : events_) {
        if (event.seq() <= request->from_seq()) continue;
        if (script.max_events >= 0 && static_cast<int>(to_send.size()) >= script.max_events) break;
        to_send.push_back(event);
      }
    }
    for (const kernelseek::v1::SessionEvent& event : to_send) writer->Write(event);
    return script.end;
  }

  grpc::Status StopSession(grpc::ServerContext* context,
                           const kernelseek::v1::StopSessionRequest* request,
                           kernelseek::v1::Session* response) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    if (grpc::Status s = FindSessionLocked(request->session_id()); !s.ok()) return s;
    ++stop_calls_;
    kernelseek::v1::Session* session = session_.mutable_session();
    session->set_state(kernelseek::v1::SESSION_STATE_STOPPED);
    session->set_status("stopped by a user");
    *response = *session;
    return grpc::Status::OK;
  }

  grpc::Status GetBestKernel(grpc::ServerContext* context,
                             const kernelseek::v1::GetBestKernelRequest* request,
                             kernelseek::v1::KernelVersion* response) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    if (grpc::Status s = FindSessionLocked(request->session_id()); !s.ok()) return s;
    if (best_.id().empty()) {
      return grpc::Status(
          grpc::StatusCode::FAILED_PRECONDITION,
          absl::StrCat("session ", request->session_id(), " has no counted kernel version yet"));
    }
    *response = best_;
    return grpc::Status::OK;
  }

 private:
  grpc::Status FindSessionLocked(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (id.empty() || id != session_.session().id()) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, absl::StrCat("no session ", id));
    }
    return grpc::Status::OK;
  }

  grpc::Status Authenticate(grpc::ServerContext* context) {
    std::string seen;
    auto it = context->client_metadata().find("authorization");
    if (it != context->client_metadata().end()) seen.assign(it->second.data(), it->second.size());
    absl::MutexLock lock(&mu_);
    authorizations_.push_back(seen);
    if (seen != absl::StrCat("Bearer ", token_)) {
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "unknown token");
    }
    return grpc::Status::OK;
  }

  const std::string token_;
  mutable absl::Mutex mu_;
  std::vector<WatchScript> scripts_ ABSL_GUARDED_BY(mu_);
  kernelseek::v1::Job job_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> authorizations_ ABSL_GUARDED_BY(mu_);
  int watch_calls_ ABSL_GUARDED_BY(mu_) = 0;
  kernelseek::v1::JobSpec last_submitted_ ABSL_GUARDED_BY(mu_);
  kernelseek::v1::SubmitJobRequest last_submit_request_ ABSL_GUARDED_BY(mu_);
  grpc::Status submit_error_ ABSL_GUARDED_BY(mu_);
  kernelseek::v1::ListJobsRequest last_list_jobs_request_ ABSL_GUARDED_BY(mu_);
  std::string scenario_problem_ ABSL_GUARDED_BY(mu_);
  kernelseek::v1::ListScenariosResponse scenarios_ ABSL_GUARDED_BY(mu_);
  kernelseek::v1::ListScenariosRequest last_scenarios_request_ ABSL_GUARDED_BY(mu_);
  kernelseek::v1::SessionDetails session_ ABSL_GUARDED_BY(mu_);
  std::vector<kernelseek::v1::SessionEvent> events_ ABSL_GUARDED_BY(mu_);
  std::vector<SessionWatchScript> session_scripts_ ABSL_GUARDED_BY(mu_);
  kernelseek::v1::KernelVersion best_ ABSL_GUARDED_BY(mu_);
  kernelseek::v1::SessionSpec last_session_spec_ ABSL_GUARDED_BY(mu_);
  std::string last_llm_api_key_ ABSL_GUARDED_BY(mu_);
  std::vector<kernelseek::v1::WatchSessionRequest> session_watch_requests_ ABSL_GUARDED_BY(mu_);
  std::vector<kernelseek::v1::PostMessageRequest> posted_ ABSL_GUARDED_BY(mu_);
  int stop_calls_ ABSL_GUARDED_BY(mu_) = 0;
  int list_sessions_limit_ ABSL_GUARDED_BY(mu_) = -1;
};

// Serves a FakeCoordinator on 127.0.0.1 at a port chosen by the OS. Its
// answers carry `protocol_version` as kseek-protocol (nullopt: none, as a
// server older than the handshake).
class FakeCoordinatorServer {
 public:
  explicit FakeCoordinatorServer(const std::string& token, std::optional<int> protocol_version = kProtocolVersion)
      : service_(token) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    if (protocol_version.has_value()) AddServerProtocolInterceptor(&builder, *protocol_version);
    server_ = builder.BuildAndStart();
  }
  ~FakeCoordinatorServer() { server_->Shutdown(); }

  FakeCoordinator& service() { return service_; }
  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }

 private:
  FakeCoordinator service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace kseek::testing

#endif  // KERNELSEEK_TESTS_CLIENT_FAKE_COORDINATOR_H_
