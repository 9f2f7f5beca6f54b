#include "server/auth.h"

#include <openssl/rand.h>
#include <openssl/sha.h>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/protocol.h"
#include "common/version.h"

namespace kseek {

absl::StatusOr<std::string> NewToken(TokenKind kind) {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return absl::InternalError("no random bytes from OpenSSL");
  return absl::StrCat(kind == TokenKind::kUser ? "ksu_" : "ksw_",
                      absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(bytes), sizeof(bytes))));
}

std::string Sha256Hex(const std::string& data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

absl::StatusOr<TokenRecord> Authenticator::Check(const grpc::ServerContext& context, TokenKind expected) {
  const auto& metadata = context.client_metadata();
  std::optional<absl::string_view> protocol;
  if (auto found = metadata.find(kProtocolMetadataKey); found != metadata.end()) {
    protocol = absl::string_view(found->second.data(), found->second.size());
  }
  if (absl::Status s = CheckPeerProtocol(protocol, kProtocolVersion,
                                         expected == TokenKind::kUser ? "kseek" : "kseek-worker");
      !s.ok()) {
    return s;
  }
  if (expected == TokenKind::kWorker && require_worker_certificate_) {
    std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
    if (auth == nullptr || !auth->IsPeerAuthenticated()) {
      return absl::UnauthenticatedError(
          "this server requires workers to present a client certificate signed by its --worker-client-ca: "
          "start kseek-worker with --tls-cert FILE --tls-key FILE");
    }
  }
  auto it = metadata.find("authorization");
  constexpr absl::string_view kBearer = "Bearer ";
  if (it == metadata.end()) return absl::UnauthenticatedError("no token: send authorization: Bearer <token>");
  absl::string_view value(it->second.data(), it->second.size());
  if (!absl::StartsWith(value, kBearer)) return absl::UnauthenticatedError("authorization is not a Bearer token");
  std::string hash = Sha256Hex(std::string(value.substr(kBearer.size())));

  std::optional<TokenRecord> record;
  {
    absl::MutexLock lock(&mu_);
    if (auto found = known_.find(hash); found != known_.end()) record = found->second;
  }
  if (!record) {
    absl::StatusOr<std::optional<TokenRecord>> stored = store_->FindToken(hash);
    if (!stored.ok()) return stored.status();
    if (!stored->has_value()) return absl::UnauthenticatedError("unknown token");
    record = **stored;
    absl::MutexLock lock(&mu_);
    known_[hash] = *record;
  }
  if (record->kind != expected) {
    return absl::PermissionDeniedError(expected == TokenKind::kUser ? "a worker token cannot be used by a client"
                                                                    : "a user token cannot be used by a worker");
  }
  return *record;
}

}  // namespace kseek
