// CoordinatorClient: the kseek CLI's calls to the Coordinator service.
//
// Wraps the generated stub so that every call carries the user's token as
// `authorization: Bearer TOKEN` metadata and every unary call a deadline, and
// turns grpc::Status into absl::Status. WatchJob follows a job to the end and
// WatchSession a session's trace, both re-opening the stream when it breaks
// (e.g. a server restart). Holds a shared
// channel; thread-compatible (one call at a time per object is the CLI's use,
// though the stub itself is thread-safe).
#ifndef KERNELSEEK_CLIENT_COORDINATOR_CLIENT_H_
#define KERNELSEEK_CLIENT_COORDINATOR_CLIENT_H_

#include <grpcpp/channel.h>
#include <grpcpp/security/credentials.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/kernelseek.grpc.pb.h"

namespace kseek {

class CoordinatorClient {
 public:
  struct Options {
    absl::Duration rpc_timeout = absl::Seconds(10);
    // How long WatchJob and WatchSession keep re-opening a broken stream
    // before giving up; counted for WatchJob from the last message received,
    // for WatchSession from when the connection was last seen working.
    absl::Duration watch_reconnect_budget = absl::Seconds(60);
    absl::Duration initial_backoff = absl::Milliseconds(250);
    absl::Duration max_backoff = absl::Seconds(4);
  };

  // A channel to HOST:PORT with `credentials` (see common/tls.h for TLS;
  // plaintext by default, which tests use on loopback) whose reconnect
  // backoff is short enough that WatchJob notices a restarted server within
  // seconds, and whose every call carries this kseek's protocol version.
  static std::shared_ptr<grpc::Channel> MakeChannel(
      const std::string& address,
      const std::shared_ptr<grpc::ChannelCredentials>& credentials = grpc::InsecureChannelCredentials());

  CoordinatorClient(std::shared_ptr<grpc::Channel> channel, std::string token);
  CoordinatorClient(std::shared_ptr<grpc::Channel> channel, std::string token, Options options);

  // `wait_for_worker`: queue the job even when no connected worker could
  // run it; else the server refuses such a job (FAILED_PRECONDITION).
  absl::StatusOr<std::string> SubmitJob(const kernelseek::v1::JobSpec& spec,
                                        bool wait_for_worker = false);
  absl::StatusOr<kernelseek::v1::Job> GetJob(const std::string& job_id);
  absl::StatusOr<kernelseek::v1::Job> CancelJob(const std::string& job_id);
  // The jobs `request`'s limit and filters select, as the server applies them.
  absl::StatusOr<std::vector<kernelseek::v1::Job>> ListJobs(
      const kernelseek::v1::ListJobsRequest& request);
  absl::StatusOr<std::vector<kernelseek::v1::WorkerInfo>> ListWorkers();
  // The manifest of `problem` and its scenarios in set `set` (all when empty).
  absl::StatusOr<kernelseek::v1::ListScenariosResponse> ListScenarios(const std::string& problem,
                                                                      const std::string& set);

  // Streams `job_id` until it is SUCCEEDED or FAILED and returns that last
  // version. `on_update` sees every version received; `on_stream_lost` is told
  // each time the stream broke and is about to be re-opened. Errors that a
  // retry cannot fix (UNAUTHENTICATED, NOT_FOUND, ...) return at once; a
  // stream that stays broken longer than watch_reconnect_budget returns its
  // last error.
  absl::StatusOr<kernelseek::v1::Job> WatchJob(
      const std::string& job_id, const std::function<void(const kernelseek::v1::Job&)>& on_update,
      const std::function<void(const absl::Status&)>& on_stream_lost);

  // Optimization sessions. NOT_FOUND for an unknown session id.
  // `llm_api_key`: the key of a user-brought endpoint (empty: none).
  absl::StatusOr<kernelseek::v1::Session> StartSession(const kernelseek::v1::SessionSpec& spec,
                                                       const std::string& llm_api_key = "");
  absl::StatusOr<kernelseek::v1::SessionDetails> GetSession(const std::string& session_id);
  absl::StatusOr<std::vector<kernelseek::v1::Session>> ListSessions(int limit);
  // Returns the sequence number the message got in the session's trace.
  absl::StatusOr<int64_t> PostMessage(const std::string& session_id, const std::string& text);
  absl::StatusOr<kernelseek::v1::Session> StopSession(const std::string& session_id);
  absl::StatusOr<kernelseek::v1::KernelVersion> GetBestKernel(const std::string& session_id);

  // Tokens of the caller's team (team admins only). `role` and `expires`
  // empty: member, never.
  absl::StatusOr<kernelseek::v1::CreateTokenResponse> CreateToken(const std::string& name, const std::string& role,
                                                                  const std::string& expires);
  absl::StatusOr<std::vector<kernelseek::v1::TokenInfo>> ListTokens();
  absl::StatusOr<kernelseek::v1::TokenInfo> RevokeToken(int64_t id);

  // Hands `on_event` the events of `session_id` with seq > from_seq, in
  // order and each once. Without `follow`, stops after the events stored so
  // far; with it, once the session has ended (the stream closed while the
  // session is no longer running). Returns the session as GetSession then
  // reports it. A broken stream is re-opened from the last seq handed over,
  // after telling `on_stream_lost` (which gets the error and that seq); errors
  // a retry cannot fix return at once, and a connection that stays broken
  // longer than watch_reconnect_budget returns its last error.
  absl::StatusOr<kernelseek::v1::Session> WatchSession(
      const std::string& session_id, int64_t from_seq, bool follow,
      const std::function<void(const kernelseek::v1::SessionEvent&)>& on_event,
      const std::function<void(const absl::Status&, int64_t last_seq)>& on_stream_lost);

 private:
  void PrepareContext(grpc::ClientContext* context, bool with_deadline) const;

  std::unique_ptr<kernelseek::v1::Coordinator::Stub> stub_;
  std::string token_;
  Options options_;
};

}  // namespace kseek

#endif  // KERNELSEEK_CLIENT_COORDINATOR_CLIENT_H_
