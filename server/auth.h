// Authenticator: checks each RPC's caller: its protocol version (the
// kseek-protocol metadata, see common/protocol.h), for workers a verified
// client certificate when the server requires one, and the bearer token
// against the TokenStore.
//
// Tokens are random (256 bits) and only their SHA-256 is stored, so a copy of
// the database does not hand out working tokens. Every call looks its token
// up in the TokenStore (one indexed read) and nothing is cached, so a token
// revoked by `kseek-server token revoke` in another process, or one that has
// expired, fails the very next call. Thread-safe.
#ifndef KERNELSEEK_SERVER_AUTH_H_
#define KERNELSEEK_SERVER_AUTH_H_

#include <string>

#include <grpcpp/server_context.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/clock.h"
#include "server/caller.h"
#include "server/token_store.h"

namespace kseek {

// A new random token: "ksu_" (user) or "ksw_" (worker) and 64 hex digits.
// Tokens are stored as their Sha256Hex (problem/problem_digest.h).
absl::StatusOr<std::string> NewToken(TokenKind kind);

class Authenticator {
 public:
  // `require_worker_certificate`: worker calls must come over TLS with a
  // client certificate that the transport verified (--worker-client-ca).
  // `clock` decides when a token has expired.
  Authenticator(TokenStore* store, const Clock* clock, bool require_worker_certificate = false)
      : store_(store), clock_(clock), require_worker_certificate_(require_worker_certificate) {}

  // The caller's token record. FAILED_PRECONDITION when the caller speaks
  // another protocol version (the message says which side to upgrade);
  // UNAUTHENTICATED when a required worker certificate is missing, the token
  // is missing or unknown, or "token revoked at ..." / "token expired at
  // ..."; PERMISSION_DENIED when the token is of the other kind.
  absl::StatusOr<TokenRecord> Check(const grpc::ServerContextBase& context, TokenKind expected);
  // The token `context` carries after "Bearer "; empty when it has none. A
  // stream keeps it to check it again with CheckToken while it runs (its
  // context may be gone by the time a late check would read it).
  static std::string BearerToken(const grpc::ServerContextBase& context);
  // The token part of Check: `token` as it came after "Bearer ".
  absl::StatusOr<TokenRecord> CheckToken(absl::string_view token, TokenKind expected);
  // Check for a user token, as the Caller it names.
  absl::StatusOr<Caller> CheckUser(const grpc::ServerContextBase& context);

 private:
  TokenStore* const store_;
  const Clock* const clock_;
  const bool require_worker_certificate_;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_AUTH_H_
