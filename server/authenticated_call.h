// How every RPC of CoordinatorService and WorkerHubService is authenticated:
// UserCall, WorkerCall and UserStream check the caller once, through
// Authenticator (protocol version, worker certificate, bearer token of the
// right kind, revoked or expired), and hand the handler the Caller or the
// worker's TokenRecord; a refused call ends with Authenticator's status and
// the handler never runs. A service method is then one of these around its
// own decode / call / encode.
//
// Why not a server interceptor or an AuthMetadataProcessor: gRPC 1.51's
// server interceptors cannot end a call with a status of their own, and an
// AuthMetadataProcessor runs only on TLS listeners, while kseek-server also
// serves plaintext on loopback.
#ifndef KERNELSEEK_SERVER_AUTHENTICATED_CALL_H_
#define KERNELSEEK_SERVER_AUTHENTICATED_CALL_H_

#include <grpcpp/support/server_callback.h>
#include <grpcpp/server_context.h>

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/grpc_status.h"
#include "server/auth.h"
#include "server/caller.h"

namespace kseek {

// A streaming call refused before anything was streamed.
template <typename T>
class RefusedStream final : public grpc::ServerWriteReactor<T> {
 public:
  explicit RefusedStream(const absl::Status& status) { this->Finish(ToGrpcStatus(status)); }
  void OnDone() override { delete this; }
};

// A unary call of a user: `handler(const Caller&)` returns the call's status.
template <typename Handler>
grpc::ServerUnaryReactor* UserCall(Authenticator* auth, grpc::CallbackServerContext* context, Handler&& handler) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::StatusOr<Caller> caller = auth->CheckUser(*context);
  reactor->Finish(ToGrpcStatus(caller.ok() ? std::forward<Handler>(handler)(*caller) : caller.status()));
  return reactor;
}

// A unary call of a worker: `handler(const TokenRecord&)` returns the call's status.
template <typename Handler>
grpc::ServerUnaryReactor* WorkerCall(Authenticator* auth, grpc::CallbackServerContext* context, Handler&& handler) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::StatusOr<TokenRecord> worker = auth->Check(*context, TokenKind::kWorker);
  reactor->Finish(ToGrpcStatus(worker.ok() ? std::forward<Handler>(handler)(*worker) : worker.status()));
  return reactor;
}

// A worker call answered by its own reactor (a long poll): `start(const
// TokenRecord&)` returns it.
template <typename Start>
grpc::ServerUnaryReactor* WorkerReactor(Authenticator* auth, grpc::CallbackServerContext* context, Start&& start) {
  absl::StatusOr<TokenRecord> worker = auth->Check(*context, TokenKind::kWorker);
  if (worker.ok()) return std::forward<Start>(start)(*worker);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(worker.status()));
  return reactor;
}

// A server-streaming call of a user: `start(const Caller&)` returns the
// stream's reactor, or an error that ends the call before it streams.
template <typename T, typename Start>
grpc::ServerWriteReactor<T>* UserStream(Authenticator* auth, grpc::CallbackServerContext* context, Start&& start) {
  absl::StatusOr<Caller> caller = auth->CheckUser(*context);
  if (!caller.ok()) return new RefusedStream<T>(caller.status());
  absl::StatusOr<grpc::ServerWriteReactor<T>*> reactor = std::forward<Start>(start)(*caller);
  if (!reactor.ok()) return new RefusedStream<T>(reactor.status());
  return *reactor;
}

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_AUTHENTICATED_CALL_H_
