// Authenticator: checks each RPC's caller: its protocol version (the
// kseek-protocol metadata, see common/protocol.h), for workers a verified
// client certificate when the server requires one, and the bearer token
// against the Store.
//
// Tokens are random (256 bits) and only their SHA-256 is stored, so a copy of
// the database does not hand out working tokens. Known hashes are cached in
// memory; tokens are never revoked while the server runs in this version.
// Thread-safe.
#ifndef KERNELSEEK_SERVER_AUTH_H_
#define KERNELSEEK_SERVER_AUTH_H_

#include <string>

#include <grpcpp/server_context.h>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/store.h"

namespace kseek {

// A new random token: "ksu_" (user) or "ksw_" (worker) and 64 hex digits.
absl::StatusOr<std::string> NewToken(TokenKind kind);
std::string Sha256Hex(const std::string& data);

class Authenticator {
 public:
  // `require_worker_certificate`: worker calls must come over TLS with a
  // client certificate that the transport verified (--worker-client-ca).
  explicit Authenticator(Store* store, bool require_worker_certificate = false)
      : store_(store), require_worker_certificate_(require_worker_certificate) {}

  // The caller's token record. FAILED_PRECONDITION when the caller speaks
  // another protocol version (the message says which side to upgrade);
  // UNAUTHENTICATED when a required worker certificate is missing or the
  // token is missing or unknown; PERMISSION_DENIED when the token is of the
  // other kind.
  absl::StatusOr<TokenRecord> Check(const grpc::ServerContext& context, TokenKind expected);

 private:
  Store* const store_;
  const bool require_worker_certificate_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, TokenRecord> known_ ABSL_GUARDED_BY(mu_);  // by hash
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_AUTH_H_
