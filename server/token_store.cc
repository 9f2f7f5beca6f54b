#include "server/token_store.h"

#include "absl/strings/str_cat.h"

namespace kseek {
namespace {

constexpr const char* kTokenColumns =
    "id, kind, name, team, role, created_at, created_by, expires_at, revoked_at, revoked_by";

absl::StatusOr<TokenRecord> ReadTokenRow(const Statement& row) {
  TokenRecord record;
  record.id = row.ColumnInt64(0);
  record.kind = row.ColumnString(1) == "user" ? TokenKind::kUser : TokenKind::kWorker;
  record.name = row.ColumnString(2);
  record.team = row.ColumnString(3);
  if (record.kind == TokenKind::kUser) {
    absl::StatusOr<Role> role = ParseRole(row.ColumnString(4));
    if (!role.ok()) return absl::DataLossError(absl::StrCat("token ", record.id, ": stored role does not parse"));
    record.role = *role;
  }
  record.created_at = absl::FromUnixMicros(row.ColumnInt64(5));
  record.created_by = row.ColumnString(6);
  if (!row.ColumnIsNull(7)) record.expires_at = absl::FromUnixMicros(row.ColumnInt64(7));
  if (!row.ColumnIsNull(8)) record.revoked_at = absl::FromUnixMicros(row.ColumnInt64(8));
  record.revoked_by = row.ColumnString(9);
  return record;
}

std::string FormatUtc(absl::Time t) { return absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", t, absl::UTCTimeZone()); }

}  // namespace

absl::StatusOr<std::unique_ptr<TokenStore>> TokenStore::Open(const StoreFile& file) {
  absl::StatusOr<std::unique_ptr<Database>> db = file.Connect();
  if (!db.ok()) return db.status();
  return std::unique_ptr<TokenStore>(new TokenStore(*std::move(db)));
}

const char* RoleName(Role role) {
  switch (role) {
    case Role::kAdmin:
      return "admin";
    case Role::kMember:
      return "member";
    case Role::kViewer:
      return "viewer";
  }
  return "viewer";
}

absl::StatusOr<Role> ParseRole(const std::string& name) {
  for (Role role : {Role::kAdmin, Role::kMember, Role::kViewer}) {
    if (name == RoleName(role)) return role;
  }
  return absl::InvalidArgumentError(absl::StrCat("role \"", name, "\" is not one of admin, member, viewer"));
}

absl::StatusOr<int64_t> TokenStore::AddToken(const TokenRecord& record, const std::string& sha256_hex) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "INSERT INTO tokens (kind, name, sha256, created_at, team, role, created_by, expires_at) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  if (!q.ok()) return q.status();
  const bool user = record.kind == TokenKind::kUser;
  q->Bind(1, user ? "user" : "worker")
      .Bind(2, record.name)
      .Bind(3, sha256_hex)
      .Bind(4, absl::ToUnixMicros(record.created_at))
      .Bind(5, user ? record.team : "")
      .Bind(6, user ? RoleName(record.role) : "")
      .Bind(7, record.created_by);
  if (record.expires_at.has_value()) {
    q->Bind(8, absl::ToUnixMicros(*record.expires_at));
  } else {
    q->BindNull(8);
  }
  if (absl::Status s = q->Run(); !s.ok()) return s;
  return db_->LastInsertRowId();
}

absl::StatusOr<std::optional<TokenRecord>> TokenStore::FindToken(const std::string& sha256_hex) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(absl::StrCat("SELECT ", kTokenColumns, " FROM tokens WHERE sha256 = ?"));
  if (!q.ok()) return q.status();
  q->Bind(1, sha256_hex);
  absl::StatusOr<bool> row = q->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::nullopt;
  absl::StatusOr<TokenRecord> record = ReadTokenRow(*q);
  if (!record.ok()) return record.status();
  return *std::move(record);
}

absl::StatusOr<std::vector<TokenRecord>> TokenStore::ListTokens(const std::string& team) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      absl::StrCat("SELECT ", kTokenColumns, " FROM tokens WHERE ? = '' OR (kind = 'user' AND team = ?) ORDER BY id"));
  if (!q.ok()) return q.status();
  q->Bind(1, team).Bind(2, team);
  std::vector<TokenRecord> tokens;
  while (true) {
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    absl::StatusOr<TokenRecord> record = ReadTokenRow(*q);
    if (!record.ok()) return record.status();
    tokens.push_back(*std::move(record));
  }
  return tokens;
}

absl::StatusOr<TokenRecord> TokenStore::RevokeToken(int64_t id, const std::string& team, const std::string& by,
                                               absl::Time now) {
  absl::MutexLock lock(&mu_);
  TokenRecord record;
  absl::Status status = InTransaction(*db_, [&]() -> absl::Status {
    absl::StatusOr<Statement> q = db_->GetCachedStatement(absl::StrCat("SELECT ", kTokenColumns, " FROM tokens WHERE id = ?"));
    if (!q.ok()) return q.status();
    q->Bind(1, id);
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return row.status();
    std::optional<TokenRecord> found;
    if (*row) {
      absl::StatusOr<TokenRecord> read = ReadTokenRow(*q);
      if (!read.ok()) return read.status();
      found = *std::move(read);
    }
    if (!found.has_value() || (!team.empty() && (found->kind != TokenKind::kUser || found->team != team))) {
      return absl::NotFoundError(team.empty() ? absl::StrCat("no token with id ", id)
                                              : absl::StrCat("no token with id ", id, " in team ", team));
    }
    if (found->revoked_at.has_value()) {
      return absl::FailedPreconditionError(absl::StrCat("token ", id, " was already revoked at ",
                                                        FormatUtc(*found->revoked_at),
                                                        found->revoked_by.empty() ? "" : " by ", found->revoked_by));
    }
    absl::StatusOr<Statement> u = db_->GetCachedStatement("UPDATE tokens SET revoked_at = ?, revoked_by = ? WHERE id = ?");
    if (!u.ok()) return u.status();
    if (absl::Status s = u->Bind(1, absl::ToUnixMicros(now)).Bind(2, by).Bind(3, id).Run(); !s.ok()) return s;
    record = *std::move(found);
    record.revoked_at = absl::FromUnixMicros(absl::ToUnixMicros(now));
    record.revoked_by = by;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return record;
}
}  // namespace kseek
