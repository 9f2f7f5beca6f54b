#include "server/token_registry.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "problem/problem_digest.h"
#include "server/auth.h"

namespace kseek {

absl::Status ValidateName(absl::string_view what, const std::string& name) {
  constexpr size_t kMaxLength = 64;
  bool ok = !name.empty() && name.size() <= kMaxLength && absl::ascii_isalnum(name[0]);
  for (char c : name) ok = ok && (absl::ascii_isalnum(c) || c == '.' || c == '_' || c == '-');
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(what, " \"", absl::CHexEscape(name),
                                                 "\" is not a name: use 1-64 letters, digits, '.', '_' or '-', "
                                                 "starting with a letter or digit"));
}

absl::StatusOr<absl::Time> ParseExpiry(const std::string& text, absl::Time now) {
  const std::string bad = absl::StrCat("--expires \"", absl::CHexEscape(text),
                                       "\" is not a duration (30d, 12h, 90m) or a date (2027-01-31) or time "
                                       "(2027-01-31T18:00:00Z)");
  if (text.empty()) return absl::InvalidArgumentError(bad);
  const char unit = text.back();
  if (unit == 'd' || unit == 'h' || unit == 'm') {
    int64_t count = 0;
    if (!absl::SimpleAtoi(absl::string_view(text).substr(0, text.size() - 1), &count)) {
      return absl::InvalidArgumentError(bad);
    }
    const absl::Duration per = unit == 'd' ? absl::Hours(24) : unit == 'h' ? absl::Hours(1) : absl::Minutes(1);
    if (count < 1 || per * count > absl::Hours(24 * 3650)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--expires ", text, " is out of range: from 1 minute to 3650 days"));
    }
    return now + per * count;
  }
  absl::Time at;
  std::string error;
  if (!absl::ParseTime("%Y-%m-%d", text, absl::UTCTimeZone(), &at, &error) &&
      !absl::ParseTime(absl::RFC3339_full, text, &at, &error)) {
    return absl::InvalidArgumentError(bad);
  }
  if (at <= now) {
    return absl::InvalidArgumentError(absl::StrCat("--expires ", text, " is not in the future (now is ",
                                                   FormatUtc(now), ")"));
  }
  return at;
}

std::string FormatUtc(absl::Time t) { return absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", t, absl::UTCTimeZone()); }

absl::StatusOr<CreatedToken> TokenRegistry::Create(const TokenRequest& request) {
  const bool user = request.kind == TokenKind::kUser;
  if (absl::Status s = ValidateName(user ? "user" : "worker", request.name); !s.ok()) return s;
  if (user) {
    if (absl::Status s = ValidateName("team", request.team); !s.ok()) return s;
  }
  const absl::Time now = clock_->Now();
  CreatedToken created;
  created.record.kind = request.kind;
  created.record.name = request.name;
  if (user) {
    created.record.team = request.team;
    created.record.role = request.role;
  }
  created.record.created_at = now;
  created.record.created_by = request.created_by;
  if (!request.expires.empty()) {
    absl::StatusOr<absl::Time> expires = ParseExpiry(request.expires, now);
    if (!expires.ok()) return expires.status();
    created.record.expires_at = *expires;
  }
  absl::StatusOr<std::string> token = kseek::NewToken(request.kind);
  if (!token.ok()) return token.status();
  absl::StatusOr<int64_t> id = store_->AddToken(created.record, Sha256Hex(*token));
  if (!id.ok()) return id.status();
  created.record.id = *id;
  created.token = *std::move(token);
  return created;
}

absl::StatusOr<std::vector<TokenRecord>> TokenRegistry::List(const std::string& team) {
  return store_->ListTokens(team);
}

absl::StatusOr<TokenRecord> TokenRegistry::Revoke(int64_t id, const std::string& team, const std::string& by) {
  return store_->RevokeToken(id, team, by, clock_->Now());
}

}  // namespace kseek
