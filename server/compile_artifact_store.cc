#include "server/compile_artifact_store.h"

namespace kseek {

absl::StatusOr<std::unique_ptr<CompileArtifactStore>> CompileArtifactStore::Open(const StoreFile& file) {
  absl::StatusOr<std::unique_ptr<Database>> db = file.Connect();
  if (!db.ok()) return db.status();
  return std::unique_ptr<CompileArtifactStore>(new CompileArtifactStore(*std::move(db)));
}

absl::StatusOr<bool> CompileArtifactStore::PutCompileArtifact(const CompileArtifactRow& row,
                                                              uint64_t max_total_bytes) {
  absl::MutexLock lock(&mu_);
  bool stored = false;
  absl::Status s = InTransaction(*db_, [&]() -> absl::Status {
    absl::StatusOr<Statement> insert = db_->GetCachedStatement(
        "INSERT INTO compile_artifacts (key, artifact_sha256, entry, bytes, worker, created_at, used_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING");
    if (!insert.ok()) return insert.status();
    if (absl::Status r = insert->Bind(1, row.key)
                             .Bind(2, row.artifact_sha256)
                             .BindBlob(3, row.entry)
                             .Bind(4, static_cast<int64_t>(row.entry.size()))
                             .Bind(5, row.worker)
                             .Bind(6, absl::ToUnixMicros(row.now))
                             .Bind(7, absl::ToUnixMicros(row.now))
                             .Run();
        !r.ok()) {
      return r;
    }
    stored = db_->Changes() > 0;
    // Least recently used first, until the rest fits; the new row is the
    // most recent, so it goes last (and only if alone it is over the limit).
    absl::StatusOr<Statement> rows = db_->GetCachedStatement("SELECT key, bytes FROM compile_artifacts ORDER BY used_at DESC, key");
    if (!rows.ok()) return rows.status();
    std::vector<std::string> evict;
    uint64_t total = 0;
    while (true) {
      absl::StatusOr<bool> more = rows->Step();
      if (!more.ok()) return more.status();
      if (!*more) break;
      total += static_cast<uint64_t>(rows->ColumnInt64(1));
      if (total > max_total_bytes) evict.push_back(rows->ColumnString(0));
    }
    for (const std::string& key : evict) {
      absl::StatusOr<Statement> del = db_->GetCachedStatement("DELETE FROM compile_artifacts WHERE key = ?");
      if (!del.ok()) return del.status();
      if (absl::Status r = del->Bind(1, key).Run(); !r.ok()) return r;
      if (key == row.key) stored = false;
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return stored;
}

absl::StatusOr<std::optional<CompileArtifactRow>> CompileArtifactStore::GetCompileArtifact(const std::string& key,
                                                                                            absl::Time now) {
  absl::MutexLock lock(&mu_);
  std::optional<CompileArtifactRow> found;
  // One write transaction: a read that turned into a write on its own would
  // fail SQLITE_BUSY (not wait) had another store committed in between.
  absl::Status s = InTransaction(*db_, [&]() -> absl::Status {
    absl::StatusOr<Statement> q = db_->GetCachedStatement(
        "SELECT artifact_sha256, entry, worker, created_at FROM compile_artifacts WHERE key = ?");
    if (!q.ok()) return q.status();
    q->Bind(1, key);
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
    found.emplace();
    found->key = key;
    found->artifact_sha256 = q->ColumnString(0);
    found->entry = q->ColumnBlob(1);
    found->worker = q->ColumnString(2);
    found->now = absl::FromUnixMicros(q->ColumnInt64(3));
    absl::StatusOr<Statement> touch =
        db_->GetCachedStatement("UPDATE compile_artifacts SET used_at = ? WHERE key = ?");
    if (!touch.ok()) return touch.status();
    return touch->Bind(1, absl::ToUnixMicros(now)).Bind(2, key).Run();
  });
  if (!s.ok()) return s;
  return found;
}

absl::Status CompileArtifactStore::DeleteCompileArtifact(const std::string& key) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement("DELETE FROM compile_artifacts WHERE key = ?");
  if (!q.ok()) return q.status();
  return q->Bind(1, key).Run();
}

}  // namespace kseek
