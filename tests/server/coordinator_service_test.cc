// CoordinatorService through a real gRPC server on 127.0.0.1:0, with the
// real stores, queue, session manager and tokens: what each team and role
// may see and do.
#include "server/coordinator_service.h"

#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/protocol.h"
#include "common/version.h"
#include "server/auth.h"
#include "server/job_queue.h"
#include "server/job_store.h"
#include "server/session_manager.h"
#include "server/session_store.h"
#include "server/store_file.h"
#include "server/token_registry.h"
#include "server/token_store.h"
#include "tests/server/session_fakes.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;

struct Server {
  testing::TempDir dir;
  RealClock clock;
  std::unique_ptr<StoreFile> file = *StoreFile::Open(dir.File("db.sqlite"));
  std::unique_ptr<JobStore> job_store = *JobStore::Open(*file);
  std::unique_ptr<SessionStore> session_store = *SessionStore::Open(*file);
  std::unique_ptr<TokenStore> token_store = *TokenStore::Open(*file);
  ProblemCatalog problems;  // compile jobs need none
  JobQueue queue{job_store.get(), &clock, &problems, JobQueueOptions{}};
  testing::CannedJobRunner runner;
  SessionManager sessions{session_store.get(), &clock, &problems, /*bank=*/nullptr, &runner,
                          [](kernelseek::v1::LlmConfig*, const std::string&)
                              -> absl::StatusOr<std::unique_ptr<llm::LlmClient>> {
                            return absl::UnimplementedError("no LLM in this test");
                          }};
  Authenticator auth{token_store.get(), &clock};
  TokenRegistry tokens{token_store.get(), &clock};
  CoordinatorService coordinator{&queue, &auth, &problems, &sessions, &tokens};
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<kernelseek::v1::Coordinator::Stub> stub;

  Server() {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&coordinator);
    AddServerProtocolInterceptor(&builder, kProtocolVersion);
    server = builder.BuildAndStart();
    REQUIRE(port != 0);
    stub = kernelseek::v1::Coordinator::NewStub(CreateProtocolChannel(
        absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials(), {}, kProtocolVersion, "kseek"));
  }
  ~Server() {
    sessions.Shutdown();
    queue.Shutdown();
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  }

  // A user token of `name` in `team`.
  CreatedToken User(const std::string& name, const std::string& team, Role role) {
    absl::StatusOr<CreatedToken> created = tokens.Create({.name = name, .team = team, .role = role});
    REQUIRE(created.ok());
    return *std::move(created);
  }

  // A context that carries `token`, with a deadline.
  static std::unique_ptr<grpc::ClientContext> As(const CreatedToken& token) {
    auto context = std::make_unique<grpc::ClientContext>();
    context->AddMetadata("authorization", absl::StrCat("Bearer ", token.token));
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return context;
  }

  grpc::Status Submit(const CreatedToken& token, std::string* id) {
    kernelseek::v1::SubmitJobRequest request;
    request.mutable_spec()->set_kind(kernelseek::v1::JOB_KIND_COMPILE);
    request.mutable_spec()->set_source_name("k.cu");
    request.mutable_spec()->set_source("__global__ void k() {}");
    request.mutable_spec()->mutable_compile()->set_arch("sm_90a");
    // No worker runs in these tests: queued for one to come.
    request.set_wait_for_worker(true);
    kernelseek::v1::SubmitJobResponse response;
    grpc::Status status = stub->SubmitJob(As(token).get(), request, &response);
    *id = response.job_id();
    return status;
  }
  grpc::Status GetJob(const CreatedToken& token, const std::string& id, Job* job) {
    kernelseek::v1::GetJobRequest request;
    request.set_job_id(id);
    return stub->GetJob(As(token).get(), request, job);
  }
  grpc::Status Cancel(const CreatedToken& token, const std::string& id, Job* job) {
    kernelseek::v1::CancelJobRequest request;
    request.set_job_id(id);
    return stub->CancelJob(As(token).get(), request, job);
  }
  int ListedJobs(const CreatedToken& token) {
    kernelseek::v1::ListJobsResponse response;
    REQUIRE(stub->ListJobs(As(token).get(), {}, &response).ok());
    return response.jobs_size();
  }
  // A RUNNING session of `user` in `team`, stored as StartSession stores one
  // (no loop runs it: the RPCs here only read and append).
  std::string StoredSession(const std::string& user, const std::string& team) {
    kernelseek::v1::Session session;
    session.set_user(user);
    session.set_team(team);
    session.mutable_spec()->set_kernel_name("k.cu");
    session.mutable_spec()->set_kernel_source("__global__ void k() {}");
    session.set_state(kernelseek::v1::SESSION_STATE_RUNNING);
    absl::StatusOr<int64_t> id = session_store->InsertSession(session);
    REQUIRE(id.ok());
    return absl::StrCat(*id);
  }
  grpc::Status Ask(const CreatedToken& token, const std::string& id, int64_t* seq = nullptr) {
    kernelseek::v1::PostMessageRequest request;
    request.set_session_id(id);
    request.set_text("what did the profiler say?");
    kernelseek::v1::PostMessageResponse response;
    grpc::Status status = stub->PostMessage(As(token).get(), request, &response);
    if (seq != nullptr) *seq = response.seq();
    return status;
  }
};

TEST_CASE("another team's job reads as an unknown id in every job RPC, and listings hold the caller's team only") {
  Server s;
  CreatedToken red = s.User("rex", "red", Role::kMember);
  CreatedToken blue = s.User("bo", "blue", Role::kAdmin);
  std::string id;
  REQUIRE(s.Submit(red, &id).ok());
  Job job;
  REQUIRE(s.GetJob(red, id, &job).ok());
  CHECK(job.team() == "red");
  CHECK(job.user() == "rex");

  grpc::Status get = s.GetJob(blue, id, &job);
  CHECK(get.error_code() == grpc::StatusCode::NOT_FOUND);
  CHECK(get.error_message() == absl::StrCat("no job with id ", id));
  CHECK(s.GetJob(blue, "999", &job).error_message() == "no job with id 999");  // worded alike
  CHECK(s.Cancel(blue, id, &job).error_code() == grpc::StatusCode::NOT_FOUND);
  kernelseek::v1::WatchJobRequest watch;
  watch.set_job_id(id);
  auto context = Server::As(blue);
  auto reader = s.stub->WatchJob(context.get(), watch);
  CHECK_FALSE(reader->Read(&job));
  CHECK(reader->Finish().error_code() == grpc::StatusCode::NOT_FOUND);
  CHECK(s.ListedJobs(blue) == 0);
  CHECK(s.ListedJobs(red) == 1);
  // The red job was not cancelled by the refused call.
  REQUIRE(s.GetJob(red, id, &job).ok());
  CHECK(job.state() == kernelseek::v1::JOB_STATE_QUEUED);
}

TEST_CASE("a viewer reads the team's work and the workers but cannot submit or start a session - nothing is stored") {
  Server s;
  CreatedToken viewer = s.User("vic", "blue", Role::kViewer);
  CreatedToken member = s.User("bo", "blue", Role::kMember);
  std::string id;
  grpc::Status submit = s.Submit(viewer, &id);
  CHECK(submit.error_code() == grpc::StatusCode::PERMISSION_DENIED);
  CHECK(submit.error_message() == "viewers can read but not submit; ask a team admin for a member token");
  CHECK(s.ListedJobs(member) == 0);
  CHECK(s.job_store->ListJobs({.team = "blue", .limit = 10})->empty());

  kernelseek::v1::StartSessionRequest start;
  start.mutable_spec()->set_problem("attention_fwd");
  kernelseek::v1::Session session;
  CHECK(s.stub->StartSession(Server::As(viewer).get(), start, &session).error_code() ==
        grpc::StatusCode::PERMISSION_DENIED);
  CHECK(s.session_store->ListSessions("blue", 10)->empty());

  REQUIRE(s.Submit(member, &id).ok());
  Job job;
  CHECK(s.GetJob(viewer, id, &job).ok());
  CHECK(s.ListedJobs(viewer) == 1);
  kernelseek::v1::ListWorkersResponse workers;
  CHECK(s.stub->ListWorkers(Server::As(viewer).get(), {}, &workers).ok());
  CHECK(s.Cancel(viewer, id, &job).error_code() == grpc::StatusCode::PERMISSION_DENIED);
}

TEST_CASE("a member cannot cancel another member's job - the team's admin can, and the job says who") {
  Server s;
  CreatedToken bo = s.User("bo", "blue", Role::kMember);
  CreatedToken cy = s.User("cy", "blue", Role::kMember);
  CreatedToken ada = s.User("ada", "blue", Role::kAdmin);
  CreatedToken red_admin = s.User("rex", "red", Role::kAdmin);
  std::string id;
  REQUIRE(s.Submit(bo, &id).ok());
  Job job;
  grpc::Status refused = s.Cancel(cy, id, &job);
  CHECK(refused.error_code() == grpc::StatusCode::PERMISSION_DENIED);
  CHECK(refused.error_message() ==
        absl::StrCat("job ", id, " is bo's: only its owner or an admin of team blue can cancel it"));
  CHECK(s.Cancel(red_admin, id, &job).error_code() == grpc::StatusCode::NOT_FOUND);
  REQUIRE(s.GetJob(bo, id, &job).ok());
  CHECK(job.state() == kernelseek::v1::JOB_STATE_QUEUED);

  REQUIRE(s.Cancel(ada, id, &job).ok());
  CHECK(job.state() == kernelseek::v1::JOB_STATE_CANCELLED);
  CHECK(job.cancelled_by() == "ada");
  CHECK(job.failure() == "cancelled by ada");
  CHECK(job.user() == "bo");
  // And a member's own job is its own to cancel.
  REQUIRE(s.Submit(cy, &id).ok());
  CHECK(s.Cancel(cy, id, &job).ok());
}

TEST_CASE("sessions: the team's only - members ask any of them - stopping another member's needs the admin") {
  Server s;
  CreatedToken bo = s.User("bo", "blue", Role::kMember);
  CreatedToken cy = s.User("cy", "blue", Role::kMember);
  CreatedToken ada = s.User("ada", "blue", Role::kAdmin);
  CreatedToken viewer = s.User("vic", "blue", Role::kViewer);
  CreatedToken red = s.User("rex", "red", Role::kAdmin);
  const std::string id = s.StoredSession("bo", "blue");

  kernelseek::v1::GetSessionRequest get;
  get.set_session_id(id);
  kernelseek::v1::SessionDetails details;
  CHECK(s.stub->GetSession(Server::As(viewer).get(), get, &details).ok());
  grpc::Status hidden = s.stub->GetSession(Server::As(red).get(), get, &details);
  CHECK(hidden.error_code() == grpc::StatusCode::NOT_FOUND);
  CHECK(hidden.error_message() == absl::StrCat("session ", id, " not found"));
  kernelseek::v1::ListSessionsResponse listed;
  REQUIRE(s.stub->ListSessions(Server::As(red).get(), {}, &listed).ok());
  CHECK(listed.sessions_size() == 0);
  REQUIRE(s.stub->ListSessions(Server::As(viewer).get(), {}, &listed).ok());
  CHECK(listed.sessions_size() == 1);
  kernelseek::v1::WatchSessionRequest watch;
  watch.set_session_id(id);
  auto context = Server::As(red);
  auto reader = s.stub->WatchSession(context.get(), watch);
  kernelseek::v1::SessionEvent event;
  CHECK_FALSE(reader->Read(&event));
  CHECK(reader->Finish().error_code() == grpc::StatusCode::NOT_FOUND);
  kernelseek::v1::GetBestKernelRequest best;
  best.set_session_id(id);
  kernelseek::v1::KernelVersion version;
  CHECK(s.stub->GetBestKernel(Server::As(red).get(), best, &version).error_message() ==
        absl::StrCat("session ", id, " not found"));

  int64_t seq = 0;
  REQUIRE(s.Ask(cy, id, &seq).ok());
  std::vector<kernelseek::v1::SessionEvent> events = *s.session_store->ListSessionEvents(std::stoll(id), seq - 1, 10);
  REQUIRE(events.size() == 1);
  CHECK(events[0].author() == "cy");
  CHECK(s.Ask(viewer, id).error_code() == grpc::StatusCode::PERMISSION_DENIED);
  CHECK(s.Ask(red, id).error_code() == grpc::StatusCode::NOT_FOUND);
  CHECK(s.session_store->ListSessionEvents(std::stoll(id), 0, 10)->size() == 1);

  kernelseek::v1::StopSessionRequest stop;
  stop.set_session_id(id);
  kernelseek::v1::Session stopped;
  grpc::Status member_stop = s.stub->StopSession(Server::As(cy).get(), stop, &stopped);
  CHECK(member_stop.error_code() == grpc::StatusCode::PERMISSION_DENIED);
  CHECK(member_stop.error_message() ==
        absl::StrCat("session ", id, " is bo's: only its owner or an admin of team blue can stop it"));
  CHECK(s.stub->StopSession(Server::As(viewer).get(), stop, &stopped).error_code() ==
        grpc::StatusCode::PERMISSION_DENIED);
  CHECK(s.stub->StopSession(Server::As(red).get(), stop, &stopped).error_code() == grpc::StatusCode::NOT_FOUND);
  // The admin and the owner get past the check (no loop runs this stored
  // session, so the manager then says it has ended).
  CHECK(s.stub->StopSession(Server::As(ada).get(), stop, &stopped).error_code() ==
        grpc::StatusCode::FAILED_PRECONDITION);
  CHECK(s.stub->StopSession(Server::As(bo).get(), stop, &stopped).error_code() ==
        grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_CASE("a team admin makes, lists and revokes its own team's tokens - a revoked one fails its next call") {
  Server s;
  CreatedToken ada = s.User("ada", "blue", Role::kAdmin);
  CreatedToken bo = s.User("bo", "blue", Role::kMember);
  CreatedToken rex = s.User("rex", "red", Role::kAdmin);

  kernelseek::v1::CreateTokenRequest create;
  create.set_name("dee");
  create.set_role("viewer");
  create.set_expires("30d");
  kernelseek::v1::CreateTokenResponse created;
  REQUIRE(s.stub->CreateToken(Server::As(ada).get(), create, &created).ok());
  CHECK(created.info().team() == "blue");
  CHECK(created.info().role() == "viewer");
  CHECK(created.info().created_by() == "ada");
  CHECK(created.info().has_expires());
  CreatedToken dee{created.token(), {}};
  CHECK(s.ListedJobs(dee) == 0);
  std::string id;
  CHECK(s.Submit(dee, &id).error_code() == grpc::StatusCode::PERMISSION_DENIED);

  kernelseek::v1::ListTokensResponse listed;
  REQUIRE(s.stub->ListTokens(Server::As(ada).get(), {}, &listed).ok());
  REQUIRE(listed.tokens_size() == 3);  // ada, bo, dee: not red's
  for (const auto& token : listed.tokens()) CHECK(token.team() == "blue");
  grpc::Status member = s.stub->ListTokens(Server::As(bo).get(), {}, &listed);
  CHECK(member.error_code() == grpc::StatusCode::PERMISSION_DENIED);
  CHECK(member.error_message() == "managing tokens needs the admin role in team blue; this token's role is member");
  CHECK(s.stub->CreateToken(Server::As(bo).get(), create, &created).error_code() ==
        grpc::StatusCode::PERMISSION_DENIED);
  create.set_role("owner");
  CHECK(s.stub->CreateToken(Server::As(ada).get(), create, &created).error_code() ==
        grpc::StatusCode::INVALID_ARGUMENT);
  CHECK(s.tokens.List("blue")->size() == 3);

  kernelseek::v1::RevokeTokenRequest revoke;
  kernelseek::v1::TokenInfo info;
  revoke.set_id(rex.record.id);
  CHECK(s.stub->RevokeToken(Server::As(ada).get(), revoke, &info).error_code() == grpc::StatusCode::NOT_FOUND);
  CHECK(s.ListedJobs(rex) == 0);  // still works
  revoke.set_id(listed.tokens(2).id());
  REQUIRE(s.stub->RevokeToken(Server::As(ada).get(), revoke, &info).ok());
  CHECK(info.revoked_by() == "ada");
  kernelseek::v1::ListJobsResponse jobs;
  grpc::Status after = s.stub->ListJobs(Server::As(dee).get(), {}, &jobs);
  CHECK(after.error_code() == grpc::StatusCode::UNAUTHENTICATED);
  CHECK_THAT(after.error_message(), Catch::StartsWith("token revoked at "));
  CHECK(s.stub->RevokeToken(Server::As(ada).get(), revoke, &info).error_code() ==
        grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_CASE("a watch open when its token is revoked ends UNAUTHENTICATED within a second or so") {
  Server s;
  CreatedToken bo = s.User("bo", "blue", Role::kMember);
  std::string id;
  REQUIRE(s.Submit(bo, &id).ok());
  kernelseek::v1::WatchJobRequest watch;
  watch.set_job_id(id);
  auto context = Server::As(bo);
  auto reader = s.stub->WatchJob(context.get(), watch);
  Job job;
  REQUIRE(reader->Read(&job));  // the queued job; the stream now waits for a change
  REQUIRE(s.tokens.Revoke(bo.record.id, "", "").ok());
  const absl::Time revoked = absl::Now();
  CHECK_FALSE(reader->Read(&job));
  grpc::Status ended = reader->Finish();
  CHECK(ended.error_code() == grpc::StatusCode::UNAUTHENTICATED);
  CHECK_THAT(ended.error_message(), Catch::StartsWith("token revoked at "));
  CHECK(absl::Now() - revoked < absl::Seconds(5));
}

TEST_CASE("a job's watch sends its own changes as they happen, and another job's changes send nothing") {
  Server s;
  CreatedToken bo = s.User("bo", "blue", Role::kMember);
  std::string a;
  std::string b;
  REQUIRE(s.Submit(bo, &a).ok());
  REQUIRE(s.Submit(bo, &b).ok());
  kernelseek::v1::WatchJobRequest watch;
  watch.set_job_id(a);
  auto context = Server::As(bo);
  auto reader = s.stub->WatchJob(context.get(), watch);
  Job job;
  REQUIRE(reader->Read(&job));
  CHECK(job.id() == a);
  CHECK(job.state() == kernelseek::v1::JOB_STATE_QUEUED);
  // B is behind A: cancelling it changes nothing A's watcher sees.
  REQUIRE(s.Cancel(bo, b, &job).ok());
  const absl::Time cancelled = absl::Now();
  REQUIRE(s.Cancel(bo, a, &job).ok());
  REQUIRE(reader->Read(&job));
  CHECK(job.id() == a);
  CHECK(job.state() == kernelseek::v1::JOB_STATE_CANCELLED);
  // Woken by the change, not found by the periodic step.
  CHECK(absl::Now() - cancelled < absl::Milliseconds(500));
  CHECK_FALSE(reader->Read(&job));
  CHECK(reader->Finish().ok());
}

TEST_CASE("shutdown with watches open ends them UNAVAILABLE at once and the server stops promptly") {
  Server s;
  CreatedToken bo = s.User("bo", "blue", Role::kMember);
  std::string job_id;
  REQUIRE(s.Submit(bo, &job_id).ok());
  const std::string session_id = s.StoredSession("bo", "blue");
  REQUIRE(s.Ask(bo, session_id).ok());

  kernelseek::v1::WatchJobRequest watch_job;
  watch_job.set_job_id(job_id);
  auto job_context = Server::As(bo);
  auto job_reader = s.stub->WatchJob(job_context.get(), watch_job);
  Job job;
  REQUIRE(job_reader->Read(&job));
  kernelseek::v1::WatchSessionRequest watch_session;
  watch_session.set_session_id(session_id);
  watch_session.set_follow(true);
  auto session_context = Server::As(bo);
  auto session_reader = s.stub->WatchSession(session_context.get(), watch_session);
  kernelseek::v1::SessionEvent event;
  REQUIRE(session_reader->Read(&event));
  CHECK(event.has_human_message());

  const absl::Time start = absl::Now();
  s.sessions.Shutdown();
  s.queue.Shutdown();
  s.server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  CHECK(absl::Now() - start < absl::Seconds(1));
  CHECK_FALSE(job_reader->Read(&job));
  grpc::Status job_end = job_reader->Finish();
  CHECK(job_end.error_code() == grpc::StatusCode::UNAVAILABLE);
  CHECK(job_end.error_message() == "server is shutting down; watch again");
  CHECK_FALSE(session_reader->Read(&event));
  CHECK(session_reader->Finish().error_code() == grpc::StatusCode::UNAVAILABLE);
}

TEST_CASE("a session watch that follows gets each new event as it is posted, not on a timer") {
  Server s;
  CreatedToken bo = s.User("bo", "blue", Role::kMember);
  const std::string id = s.StoredSession("bo", "blue");
  kernelseek::v1::WatchSessionRequest watch;
  watch.set_session_id(id);
  watch.set_follow(true);
  auto context = Server::As(bo);
  auto reader = s.stub->WatchSession(context.get(), watch);
  for (int i = 0; i < 3; ++i) {
    int64_t seq = 0;
    REQUIRE(s.Ask(bo, id, &seq).ok());
    const absl::Time asked = absl::Now();
    kernelseek::v1::SessionEvent event;
    REQUIRE(reader->Read(&event));
    CHECK(event.seq() == seq);
    CHECK(absl::Now() - asked < absl::Milliseconds(500));
  }
  context->TryCancel();
  kernelseek::v1::SessionEvent event;
  CHECK_FALSE(reader->Read(&event));
  CHECK(reader->Finish().error_code() == grpc::StatusCode::CANCELLED);
}

}  // namespace
}  // namespace kseek
