// CoordinatorService: the client-facing gRPC service, on gRPC's callback API.
// Every call is authenticated once (server/authenticated_call.h); a handler
// asks the Caller whether the call is allowed (another team's jobs and
// sessions read as NOT_FOUND), decodes the request, calls JobQueue,
// SessionManager or TokenRegistry and encodes the answer; no logic of its
// own. The watches are reactors (server/watch_stream.h) woken by changes of
// the one job or session they watch. Thread-safe (gRPC calls it from many
// threads).
#ifndef KERNELSEEK_SERVER_COORDINATOR_SERVICE_H_
#define KERNELSEEK_SERVER_COORDINATOR_SERVICE_H_

#include "proto/kernelseek.grpc.pb.h"
#include "server/auth.h"
#include "server/caller.h"
#include "server/job_queue.h"
#include "problem/problem_catalog.h"
#include "server/session_manager.h"
#include "server/token_registry.h"

namespace kseek {

class CoordinatorService final : public kernelseek::v1::Coordinator::CallbackService {
 public:
  // `sessions` and `tokens` may be null: the session or token RPCs then
  // answer UNIMPLEMENTED.
  CoordinatorService(JobQueue* queue, Authenticator* auth, const ProblemCatalog* problems,
                     SessionManager* sessions = nullptr, TokenRegistry* tokens = nullptr)
      : queue_(queue), auth_(auth), problems_(problems), sessions_(sessions), tokens_(tokens) {}

  grpc::ServerUnaryReactor* SubmitJob(grpc::CallbackServerContext* context,
                                      const kernelseek::v1::SubmitJobRequest* request,
                                      kernelseek::v1::SubmitJobResponse* response) override;
  grpc::ServerUnaryReactor* CancelJob(grpc::CallbackServerContext* context,
                                      const kernelseek::v1::CancelJobRequest* request,
                                      kernelseek::v1::Job* response) override;
  grpc::ServerUnaryReactor* GetJob(grpc::CallbackServerContext* context, const kernelseek::v1::GetJobRequest* request,
                                   kernelseek::v1::Job* response) override;
  grpc::ServerWriteReactor<kernelseek::v1::Job>* WatchJob(grpc::CallbackServerContext* context,
                                                          const kernelseek::v1::WatchJobRequest* request) override;
  grpc::ServerUnaryReactor* ListJobs(grpc::CallbackServerContext* context,
                                     const kernelseek::v1::ListJobsRequest* request,
                                     kernelseek::v1::ListJobsResponse* response) override;
  grpc::ServerUnaryReactor* ListWorkers(grpc::CallbackServerContext* context,
                                        const kernelseek::v1::ListWorkersRequest* request,
                                        kernelseek::v1::ListWorkersResponse* response) override;
  grpc::ServerUnaryReactor* ListScenarios(grpc::CallbackServerContext* context,
                                          const kernelseek::v1::ListScenariosRequest* request,
                                          kernelseek::v1::ListScenariosResponse* response) override;

  grpc::ServerUnaryReactor* StartSession(grpc::CallbackServerContext* context,
                                         const kernelseek::v1::StartSessionRequest* request,
                                         kernelseek::v1::Session* response) override;
  grpc::ServerUnaryReactor* GetSession(grpc::CallbackServerContext* context,
                                       const kernelseek::v1::GetSessionRequest* request,
                                       kernelseek::v1::SessionDetails* response) override;
  grpc::ServerUnaryReactor* ListSessions(grpc::CallbackServerContext* context,
                                         const kernelseek::v1::ListSessionsRequest* request,
                                         kernelseek::v1::ListSessionsResponse* response) override;
  grpc::ServerUnaryReactor* PostMessage(grpc::CallbackServerContext* context,
                                        const kernelseek::v1::PostMessageRequest* request,
                                        kernelseek::v1::PostMessageResponse* response) override;
  // Streams events with seq > from_seq; with follow, until the session has
  // ended and every event was sent.
  grpc::ServerWriteReactor<kernelseek::v1::SessionEvent>* WatchSession(
      grpc::CallbackServerContext* context, const kernelseek::v1::WatchSessionRequest* request) override;
  grpc::ServerUnaryReactor* StopSession(grpc::CallbackServerContext* context,
                                        const kernelseek::v1::StopSessionRequest* request,
                                        kernelseek::v1::Session* response) override;
  grpc::ServerUnaryReactor* GetBestKernel(grpc::CallbackServerContext* context,
                                          const kernelseek::v1::GetBestKernelRequest* request,
                                          kernelseek::v1::KernelVersion* response) override;

  grpc::ServerUnaryReactor* CreateToken(grpc::CallbackServerContext* context,
                                        const kernelseek::v1::CreateTokenRequest* request,
                                        kernelseek::v1::CreateTokenResponse* response) override;
  grpc::ServerUnaryReactor* ListTokens(grpc::CallbackServerContext* context,
                                       const kernelseek::v1::ListTokensRequest* request,
                                       kernelseek::v1::ListTokensResponse* response) override;
  grpc::ServerUnaryReactor* RevokeToken(grpc::CallbackServerContext* context,
                                        const kernelseek::v1::RevokeTokenRequest* request,
                                        kernelseek::v1::TokenInfo* response) override;

 private:
  // The job or session `id` when `caller` may read it; NOT_FOUND, worded as
  // for an unknown id, when it is another team's.
  absl::StatusOr<kernelseek::v1::Job> VisibleJob(const Caller& caller, const std::string& id);
  absl::StatusOr<kernelseek::v1::Session> VisibleSession(const Caller& caller, const std::string& id);

  JobQueue* const queue_;
  Authenticator* const auth_;
  const ProblemCatalog* const problems_;
  SessionManager* const sessions_;
  TokenRegistry* const tokens_;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_COORDINATOR_SERVICE_H_
