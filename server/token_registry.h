// TokenRegistry: makes, lists and revokes API tokens, for the server
// operator (kseek-server token, any team and worker tokens) and for a team
// admin (the Coordinator's token RPCs, its own team). Checks names, roles and
// expiry; the TokenStore keeps the records (only a token's SHA-256).
// Thread-safe; owns nothing.
#ifndef KERNELSEEK_SERVER_TOKEN_REGISTRY_H_
#define KERNELSEEK_SERVER_TOKEN_REGISTRY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "server/token_store.h"

namespace kseek {

// A user, team or worker name: 1-64 of A-Z a-z 0-9 . _ -, starting with a
// letter or digit. INVALID_ARGUMENT naming `what` and the value otherwise.
absl::Status ValidateName(absl::string_view what, const std::string& name);

// When a token given `--expires text` at `now` expires: Nd, Nh or Nm from
// now (N from 1, at most 3650 days), or a date YYYY-MM-DD (00:00 UTC) or
// RFC 3339 time after `now`. INVALID_ARGUMENT otherwise.
absl::StatusOr<absl::Time> ParseExpiry(const std::string& text, absl::Time now);

// "2027-01-31 00:00:00 UTC".
std::string FormatUtc(absl::Time t);

struct TokenRequest {
  TokenKind kind = TokenKind::kUser;
  std::string name;
  std::string team = kDefaultTeam;  // user tokens only
  Role role = Role::kMember;        // user tokens only
  std::string expires;              // empty: never; see ParseExpiry
  std::string created_by;           // the admin; empty for the operator
};

struct CreatedToken {
  std::string token;  // shown once, never stored
  TokenRecord record;
};

class TokenRegistry {
 public:
  TokenRegistry(TokenStore* store, const Clock* clock) : store_(store), clock_(clock) {}

  absl::StatusOr<CreatedToken> Create(const TokenRequest& request);
  // `team` empty: every token.
  absl::StatusOr<std::vector<TokenRecord>> List(const std::string& team);
  // See TokenStore::RevokeToken; a revoked token fails its next call.
  absl::StatusOr<TokenRecord> Revoke(int64_t id, const std::string& team, const std::string& by);

 private:
  TokenStore* const store_;
  const Clock* const clock_;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_TOKEN_REGISTRY_H_
