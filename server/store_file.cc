#include "server/store_file.h"

#include <algorithm>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace kseek {
namespace {

// Migration i (1-based) brings the schema from version i-1 to i. Never edit
// one that has shipped; append a new one.
const char* const kMigrations[] = {
    // 1: tokens, workers, jobs and their results.
    R"sql(
      CREATE TABLE tokens (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('user', 'worker')),
        name TEXT NOT NULL,
        sha256 TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE workers (
        name TEXT PRIMARY KEY,
        info BLOB NOT NULL,
        last_seen INTEGER NOT NULL
      );
      CREATE TABLE jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user TEXT NOT NULL,
        kind INTEGER NOT NULL,
        spec BLOB NOT NULL,
        requirements BLOB NOT NULL,
        state INTEGER NOT NULL,
        worker TEXT,
        lease_id TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        failure TEXT,
        created_at INTEGER NOT NULL,
        finished_at INTEGER
      );
      CREATE INDEX jobs_by_state ON jobs (state);
      CREATE TABLE job_results (
        job_id INTEGER PRIMARY KEY REFERENCES jobs (id),
        result BLOB NOT NULL
      );
    )sql",
    // 2: per-scenario results of verify and bench jobs, one row each, so they
    // can be queried without decoding the job's result blob.
    R"sql(
      CREATE TABLE scenario_results (
        job_id INTEGER NOT NULL REFERENCES jobs (id),
        scenario TEXT NOT NULL,
        passed INTEGER NOT NULL,
        max_abs_error REAL,
        error_bar REAL,
        median_ms REAL,
        tflops REAL,
        baseline_tflops REAL,
        speedup REAL,
        result BLOB NOT NULL,
        PRIMARY KEY (job_id, scenario)
      );
    )sql",
    // 3: optimization sessions: the session, its trace (every event, in
    // order), its workspace files, its kernel versions and the human
    // messages waiting for a decision point.
    R"sql(
      CREATE TABLE sessions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user TEXT NOT NULL,
        spec BLOB NOT NULL,
        state INTEGER NOT NULL,
        steps INTEGER NOT NULL DEFAULT 0,
        best_version TEXT NOT NULL DEFAULT '',
        best_speedup REAL NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT '',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX sessions_by_state ON sessions (state);
      CREATE TABLE session_events (
        session_id INTEGER NOT NULL REFERENCES sessions (id),
        seq INTEGER NOT NULL,
        ts INTEGER NOT NULL,
        kind TEXT NOT NULL,
        author TEXT NOT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      );
      CREATE TABLE session_files (
        session_id INTEGER NOT NULL REFERENCES sessions (id),
        name TEXT NOT NULL,
        content BLOB NOT NULL,
        PRIMARY KEY (session_id, name)
      );
      CREATE TABLE kernel_versions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id INTEGER NOT NULL REFERENCES sessions (id),
        parent INTEGER,
        source BLOB NOT NULL,
        status TEXT NOT NULL,
        geomean_speedup REAL NOT NULL DEFAULT 0,
        geomean_tflops REAL NOT NULL DEFAULT 0,
        counted INTEGER NOT NULL DEFAULT 0,
        seq INTEGER NOT NULL
      );
      CREATE INDEX kernel_versions_by_session ON kernel_versions (session_id);
      CREATE TABLE session_messages (
        session_id INTEGER NOT NULL REFERENCES sessions (id),
        seq INTEGER NOT NULL,
        delivered_seq INTEGER,
        PRIMARY KEY (session_id, seq)
      );
    )sql",
    // 4: teams and roles. A user token has a team and a role, any token may
    // expire or be revoked, and jobs and sessions belong to their team. What
    // existed before teams joins team "default"; its user tokens become
    // members (no one becomes an admin by upgrading; the operator makes admin
    // tokens with kseek-server token create --role admin).
    R"sql(
      ALTER TABLE tokens ADD COLUMN team TEXT NOT NULL DEFAULT '';
      ALTER TABLE tokens ADD COLUMN role TEXT NOT NULL DEFAULT ''
        CHECK (role IN ('', 'admin', 'member', 'viewer'));
      ALTER TABLE tokens ADD COLUMN created_by TEXT NOT NULL DEFAULT '';
      ALTER TABLE tokens ADD COLUMN expires_at INTEGER;
      ALTER TABLE tokens ADD COLUMN revoked_at INTEGER;
      ALTER TABLE tokens ADD COLUMN revoked_by TEXT NOT NULL DEFAULT '';
      UPDATE tokens SET team = 'default', role = 'member' WHERE kind = 'user';
      CREATE INDEX tokens_by_team ON tokens (team);
      ALTER TABLE jobs ADD COLUMN team TEXT NOT NULL DEFAULT 'default';
      ALTER TABLE jobs ADD COLUMN cancelled_by TEXT NOT NULL DEFAULT '';
      CREATE INDEX jobs_by_team ON jobs (team, id);
      ALTER TABLE sessions ADD COLUMN team TEXT NOT NULL DEFAULT 'default';
      CREATE INDEX sessions_by_team ON sessions (team, id);
    )sql",
    // 5: the fleet's compile cache (issue 17): builds workers uploaded, by
    // the key of everything that decides them; a serialized CompileCacheEntry.
    R"sql(
      CREATE TABLE compile_artifacts (
        key TEXT PRIMARY KEY,
        artifact_sha256 TEXT NOT NULL,
        entry BLOB NOT NULL,
        bytes INTEGER NOT NULL,
        worker TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        used_at INTEGER NOT NULL
      );
      CREATE INDEX compile_artifacts_by_use ON compile_artifacts (used_at);
    )sql",
    // 6: a bench job's shards (issue 17), a serialized ShardPlan, rewritten
    // as shards are leased and finish; NULL until its first lease.
    R"sql(
      ALTER TABLE jobs ADD COLUMN shard_plan BLOB;
    )sql",
    // 7: drops scenario_results (from 2). Nothing ever read it: every reader
    // of a job's scenarios decodes job_results.result, which holds the same
    // ScenarioResults, so the table only cost an INSERT per scenario of every
    // finished job and a second copy of each on disk.
    R"sql(
      DROP TABLE scenario_results;
    )sql",
};

}  // namespace

int StoreFile::LatestSchemaVersion() { return static_cast<int>(std::size(kMigrations)); }

absl::StatusOr<std::unique_ptr<StoreFile>> StoreFile::Open(const std::string& path) {
  return OpenAtVersion(path, LatestSchemaVersion());
}

absl::StatusOr<std::unique_ptr<StoreFile>> StoreFile::OpenAtVersion(const std::string& path, int schema_version) {
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path);
  if (!db.ok()) return db.status();
  std::unique_ptr<StoreFile> file(new StoreFile(path, *std::move(db)));
  absl::MutexLock lock(&file->mu_);
  if (absl::Status s = file->Migrate(std::min(schema_version, LatestSchemaVersion())); !s.ok()) return s;
  return file;
}

absl::StatusOr<int> StoreFile::SchemaVersionLocked() {
  if (absl::Status s = db_->Exec(
          "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
      !s.ok()) {
    return s;
  }
  absl::StatusOr<Statement> q = db_->GetCachedStatement("SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
  if (!q.ok()) return q.status();
  absl::StatusOr<bool> row = q->Step();
  if (!row.ok()) return row.status();
  return static_cast<int>(q->ColumnInt64(0));
}

absl::StatusOr<int> StoreFile::SchemaVersion() {
  absl::MutexLock lock(&mu_);
  return SchemaVersionLocked();
}

absl::Status StoreFile::Migrate(int target_version) {
  absl::StatusOr<int> current = SchemaVersionLocked();
  if (!current.ok()) return current.status();
  if (*current > LatestSchemaVersion()) {
    return absl::FailedPreconditionError(absl::StrCat("database schema version ", *current,
                                                      " is newer than this server understands (",
                                                      LatestSchemaVersion(), "); upgrade kseek-server"));
  }
  for (int version = *current + 1; version <= target_version; ++version) {
    absl::Status s = InTransaction(*db_, [&]() -> absl::Status {
      if (absl::Status e = db_->Exec(kMigrations[version - 1]); !e.ok()) return e;
      absl::StatusOr<Statement> ins = db_->GetCachedStatement("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)");
      if (!ins.ok()) return ins.status();
      return ins->Bind(1, static_cast<int64_t>(version)).Bind(2, absl::ToUnixMicros(absl::Now())).Run();
    });
    if (!s.ok()) return absl::InternalError(absl::StrCat("migration to schema version ", version, " failed: ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace kseek
