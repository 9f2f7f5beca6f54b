// TokenStore: the tokens table (user and worker tokens: only each token's
// SHA-256, with its kind, team, role, expiry and revocation).
//
// Owns its own connection to the StoreFile (see store_file.h for why); every
// method takes an internal mutex, so it is thread-safe. Each method is one
// transaction: when it returns OK the change is on disk and survives a crash
// of the process.
#ifndef KERNELSEEK_SERVER_TOKEN_STORE_H_
#define KERNELSEEK_SERVER_TOKEN_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/sqlite.h"
#include "server/store_file.h"

namespace kseek {

enum class TokenKind { kUser, kWorker };

// What a user token may do in its team (see Caller). Worker tokens have none.
enum class Role { kViewer, kMember, kAdmin };

// "admin", "member", "viewer".
const char* RoleName(Role role);
// INVALID_ARGUMENT naming the three roles for anything else.
absl::StatusOr<Role> ParseRole(const std::string& name);

struct TokenRecord {
  int64_t id = 0;
  TokenKind kind = TokenKind::kUser;
  std::string name;
  std::string team;           // user tokens only
  Role role = Role::kViewer;  // user tokens only
  absl::Time created_at;
  std::string created_by;     // empty: made with kseek-server token create
  std::optional<absl::Time> expires_at;
  std::optional<absl::Time> revoked_at;
  std::string revoked_by;
};

class TokenStore {
 public:
  static absl::StatusOr<std::unique_ptr<TokenStore>> Open(const StoreFile& file);

  // Stores a token (all of `record` but id, revoked_at and revoked_by) and returns its id.
  absl::StatusOr<int64_t> AddToken(const TokenRecord& record, const std::string& sha256_hex);
  // The token with this hash, revoked or expired ones included (the caller
  // says why they no longer work). One indexed read: nothing is cached, so a
  // revocation by another process is seen by the next call.
  absl::StatusOr<std::optional<TokenRecord>> FindToken(const std::string& sha256_hex);
  // Oldest first; `team` empty: every token, worker tokens included.
  absl::StatusOr<std::vector<TokenRecord>> ListTokens(const std::string& team);
  // Marks token `id` revoked by `by` at `now` and returns it. With `team`
  // non-empty only a user token of that team qualifies. NOT_FOUND for no such
  // token; FAILED_PRECONDITION when it was already revoked (saying when).
  absl::StatusOr<TokenRecord> RevokeToken(int64_t id, const std::string& team, const std::string& by, absl::Time now);

 private:
  explicit TokenStore(std::unique_ptr<Database> db) : db_(std::move(db)) {}

  absl::Mutex mu_;
  std::unique_ptr<Database> db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_TOKEN_STORE_H_
