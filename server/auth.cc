#include "server/auth.h"

#include <openssl/rand.h>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/strings/string_view.h"
#include "common/protocol.h"
#include "common/version.h"
#include "problem/problem_digest.h"
#include "server/token_registry.h"

namespace kseek {
namespace {

constexpr absl::string_view kBearer = "Bearer ";

}  // namespace

absl::StatusOr<std::string> NewToken(TokenKind kind) {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return absl::InternalError("no random bytes from OpenSSL");
  return absl::StrCat(kind == TokenKind::kUser ? "ksu_" : "ksw_",
                      absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(bytes), sizeof(bytes))));
}

absl::StatusOr<TokenRecord> Authenticator::Check(const grpc::ServerContextBase& context, TokenKind expected) {
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
  if (it == metadata.end()) return absl::UnauthenticatedError("no token: send authorization: Bearer <token>");
  if (!absl::StartsWith(absl::string_view(it->second.data(), it->second.size()), kBearer)) {
    return absl::UnauthenticatedError("authorization is not a Bearer token");
  }
  return CheckToken(BearerToken(context), expected);
}

std::string Authenticator::BearerToken(const grpc::ServerContextBase& context) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) return "";
  absl::string_view value(it->second.data(), it->second.size());
  if (!absl::ConsumePrefix(&value, kBearer)) return "";
  return std::string(value);
}

absl::StatusOr<TokenRecord> Authenticator::CheckToken(absl::string_view token, TokenKind expected) {
  absl::StatusOr<std::optional<TokenRecord>> record = store_->FindToken(Sha256Hex(std::string(token)));
  if (!record.ok()) return record.status();
  if (!record->has_value()) return absl::UnauthenticatedError("unknown token");
  if (const std::optional<absl::Time>& revoked = (*record)->revoked_at; revoked.has_value()) {
    return absl::UnauthenticatedError(absl::StrCat("token revoked at ", FormatUtc(*revoked)));
  }
  if (const std::optional<absl::Time>& expires = (*record)->expires_at;
      expires.has_value() && *expires <= clock_->Now()) {
    return absl::UnauthenticatedError(absl::StrCat("token expired at ", FormatUtc(*expires)));
  }
  if ((*record)->kind != expected) {
    return absl::PermissionDeniedError(expected == TokenKind::kUser ? "a worker token cannot be used by a client"
                                                                    : "a user token cannot be used by a worker");
  }
  return **std::move(record);
}

absl::StatusOr<Caller> Authenticator::CheckUser(const grpc::ServerContextBase& context) {
  absl::StatusOr<TokenRecord> record = Check(context, TokenKind::kUser);
  if (!record.ok()) return record.status();
  return Caller{record->name, record->team, record->role};
}

}  // namespace kseek
