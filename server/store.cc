#include "server/store.h"

#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/util/time_util.h>

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/session_event.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;
using kernelseek::v1::JobResult;
using kernelseek::v1::JobSpec;
using kernelseek::v1::JobState;
using kernelseek::v1::WorkerInfo;

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

int64_t ToMicros(absl::Time t) { return absl::ToUnixMicros(t); }

google::protobuf::Timestamp ToTimestamp(int64_t micros) {
  return google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(micros);
}

// Requirements are stored as a serialized Job holding only them, so the
// column stays one opaque blob of our own schema.
std::string EncodeRequirements(const Job& job) {
  Job holder;
  *holder.mutable_requirements() = job.requirements();
  return holder.SerializeAsString();
}

constexpr const char* kJobColumns =
    "id, user, kind, spec, requirements, state, worker, attempts, failure, created_at, finished_at, lease_id, team, "
    "cancelled_by";

// Reads a row selected with kJobColumns. `with_source` false drops the
// source text, which listings never show.
absl::StatusOr<Job> ReadJobRow(const Statement& row, bool with_source) {
  Job job;
  job.set_id(absl::StrCat(row.ColumnInt64(0)));
  job.set_user(row.ColumnString(1));
  if (!job.mutable_spec()->ParseFromString(row.ColumnBlob(3))) {
    return absl::DataLossError(absl::StrCat("job ", job.id(), ": stored spec does not parse"));
  }
  if (!with_source) job.mutable_spec()->clear_source();
  Job holder;
  if (!holder.ParseFromString(row.ColumnBlob(4))) {
    return absl::DataLossError(absl::StrCat("job ", job.id(), ": stored requirements do not parse"));
  }
  *job.mutable_requirements() = holder.requirements();
  job.set_state(static_cast<JobState>(row.ColumnInt64(5)));
  job.set_worker(row.ColumnString(6));
  job.set_attempts(static_cast<int32_t>(row.ColumnInt64(7)));
  job.set_failure(row.ColumnString(8));
  *job.mutable_created() = ToTimestamp(row.ColumnInt64(9));
  if (!row.ColumnIsNull(10)) *job.mutable_finished() = ToTimestamp(row.ColumnInt64(10));
  job.set_team(row.ColumnString(12));
  job.set_cancelled_by(row.ColumnString(13));
  return job;
}

constexpr const char* kSessionColumns =
    "id, user, spec, state, steps, best_version, best_speedup, status, created_at, updated_at, "
    "(SELECT COALESCE(MAX(seq), 0) FROM session_events WHERE session_id = sessions.id), team";

absl::StatusOr<kernelseek::v1::Session> ReadSessionRow(const Statement& row, bool with_source) {
  kernelseek::v1::Session session;
  session.set_id(absl::StrCat(row.ColumnInt64(0)));
  session.set_user(row.ColumnString(1));
  if (!session.mutable_spec()->ParseFromString(row.ColumnBlob(2))) {
    return absl::DataLossError(absl::StrCat("session ", session.id(), ": stored spec does not parse"));
  }
  if (!with_source) {
    session.mutable_spec()->clear_kernel_source();
    session.mutable_spec()->mutable_llm()->clear_replay_jsonl();
  }
  session.set_state(static_cast<kernelseek::v1::SessionState>(row.ColumnInt64(3)));
  session.set_steps(static_cast<int32_t>(row.ColumnInt64(4)));
  session.set_best_version(row.ColumnString(5));
  session.set_best_speedup(row.ColumnDouble(6));
  session.set_status(row.ColumnString(7));
  *session.mutable_created() = ToTimestamp(row.ColumnInt64(8));
  *session.mutable_updated() = ToTimestamp(row.ColumnInt64(9));
  session.set_last_seq(row.ColumnInt64(10));
  session.set_team(row.ColumnString(11));
  return session;
}

// SQL's job_problem(spec): the problem a stored JobSpec runs, "" for a
// compile job or a spec that does not parse. The problem lives only inside
// the spec blob, so the --problem filter reads it there rather than adding a
// column (and a migration) for it.
std::string JobProblem(absl::string_view spec_bytes) {
  kernelseek::v1::JobSpec spec;
  if (!spec.ParseFromArray(spec_bytes.data(), static_cast<int>(spec_bytes.size()))) return "";
  return spec.run().problem();
}

}  // namespace

int Store::LatestSchemaVersion() { return static_cast<int>(std::size(kMigrations)); }

absl::StatusOr<std::unique_ptr<Store>> Store::Open(const std::string& path) {
  return OpenAtVersion(path, LatestSchemaVersion());
}

absl::StatusOr<std::unique_ptr<Store>> Store::OpenAtVersion(const std::string& path, int schema_version) {
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path);
  if (!db.ok()) return db.status();
  if (absl::Status s = (*db)->AddTextFunction("job_problem", &JobProblem); !s.ok()) return s;
  std::unique_ptr<Store> store(new Store(*std::move(db)));
  absl::MutexLock lock(&store->mu_);
  if (absl::Status s = store->Migrate(std::min(schema_version, LatestSchemaVersion())); !s.ok()) return s;
  return store;
}

absl::StatusOr<int> Store::SchemaVersionLocked() {
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

absl::StatusOr<int> Store::SchemaVersion() {
  absl::MutexLock lock(&mu_);
  return SchemaVersionLocked();
}

absl::Status Store::Migrate(int target_version) {
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
      return ins->Bind(1, static_cast<int64_t>(version)).Bind(2, ToMicros(absl::Now())).Run();
    });
    if (!s.ok()) return absl::InternalError(absl::StrCat("migration to schema version ", version, " failed: ", s.message()));
  }
  return absl::OkStatus();
}

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

absl::StatusOr<int64_t> Store::AddToken(const TokenRecord& record, const std::string& sha256_hex) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "INSERT INTO tokens (kind, name, sha256, created_at, team, role, created_by, expires_at) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  if (!q.ok()) return q.status();
  const bool user = record.kind == TokenKind::kUser;
  q->Bind(1, user ? "user" : "worker")
      .Bind(2, record.name)
      .Bind(3, sha256_hex)
      .Bind(4, ToMicros(record.created_at))
      .Bind(5, user ? record.team : "")
      .Bind(6, user ? RoleName(record.role) : "")
      .Bind(7, record.created_by);
  if (record.expires_at.has_value()) {
    q->Bind(8, ToMicros(*record.expires_at));
  } else {
    q->BindNull(8);
  }
  if (absl::Status s = q->Run(); !s.ok()) return s;
  return db_->LastInsertRowId();
}

absl::StatusOr<std::optional<TokenRecord>> Store::FindToken(const std::string& sha256_hex) {
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

absl::StatusOr<std::vector<TokenRecord>> Store::ListTokens(const std::string& team) {
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

absl::StatusOr<TokenRecord> Store::RevokeToken(int64_t id, const std::string& team, const std::string& by,
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
    if (absl::Status s = u->Bind(1, ToMicros(now)).Bind(2, by).Bind(3, id).Run(); !s.ok()) return s;
    record = *std::move(found);
    record.revoked_at = absl::FromUnixMicros(ToMicros(now));
    record.revoked_by = by;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return record;
}

absl::StatusOr<int64_t> Store::InsertJob(const Job& job) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "INSERT INTO jobs (user, kind, spec, requirements, state, attempts, created_at, team) "
      "VALUES (?, ?, ?, ?, ?, 0, ?, ?)");
  if (!q.ok()) return q.status();
  absl::Status s = q->Bind(1, job.user())
                       .Bind(2, static_cast<int64_t>(job.spec().kind()))
                       .BindBlob(3, job.spec().SerializeAsString())
                       .BindBlob(4, EncodeRequirements(job))
                       .Bind(5, static_cast<int64_t>(kernelseek::v1::JOB_STATE_QUEUED))
                       .Bind(6, google::protobuf::util::TimeUtil::TimestampToMicroseconds(job.created()))
                       .Bind(7, job.team())
                       .Run();
  if (!s.ok()) return s;
  return db_->LastInsertRowId();
}

absl::Status Store::LeaseJob(int64_t id, const std::string& worker, const std::string& lease_id, int attempts) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q =
      db_->GetCachedStatement("UPDATE jobs SET state = ?, worker = ?, lease_id = ?, attempts = ? WHERE id = ?");
  if (!q.ok()) return q.status();
  return q->Bind(1, static_cast<int64_t>(kernelseek::v1::JOB_STATE_LEASED))
      .Bind(2, worker)
      .Bind(3, lease_id)
      .Bind(4, static_cast<int64_t>(attempts))
      .Bind(5, id)
      .Run();
}

absl::Status Store::SaveShardPlan(int64_t id, const kernelseek::v1::ShardPlan& plan) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement("UPDATE jobs SET shard_plan = ? WHERE id = ?");
  if (!q.ok()) return q.status();
  return q->BindBlob(1, plan.SerializeAsString()).Bind(2, id).Run();
}

absl::Status Store::RequeueJob(int64_t id) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement("UPDATE jobs SET state = ?, lease_id = NULL WHERE id = ?");
  if (!q.ok()) return q.status();
  return q->Bind(1, static_cast<int64_t>(kernelseek::v1::JOB_STATE_QUEUED)).Bind(2, id).Run();
}

absl::Status Store::FinishJob(int64_t id, JobState state, const std::string& failure, const JobResult* result,
                              absl::Time now) {
  absl::MutexLock lock(&mu_);
  return InTransaction(*db_, [&]() -> absl::Status {
    absl::StatusOr<Statement> q =
        db_->GetCachedStatement("UPDATE jobs SET state = ?, failure = ?, finished_at = ?, lease_id = NULL WHERE id = ?");
    if (!q.ok()) return q.status();
    if (absl::Status s = q->Bind(1, static_cast<int64_t>(state)).Bind(2, failure).Bind(3, ToMicros(now)).Bind(4, id).Run();
        !s.ok()) {
      return s;
    }
    if (result == nullptr) return absl::OkStatus();
    absl::StatusOr<Statement> r = db_->GetCachedStatement("INSERT OR REPLACE INTO job_results (job_id, result) VALUES (?, ?)");
    if (!r.ok()) return r.status();
    return r->Bind(1, id).BindBlob(2, result->SerializeAsString()).Run();
  });
}

absl::Status Store::CancelJob(int64_t id, const std::string& by, absl::Time now) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "UPDATE jobs SET state = ?, failure = ?, cancelled_by = ?, finished_at = ?, lease_id = NULL WHERE id = ?");
  if (!q.ok()) return q.status();
  return q->Bind(1, static_cast<int64_t>(kernelseek::v1::JOB_STATE_CANCELLED))
      .Bind(2, absl::StrCat("cancelled by ", by))
      .Bind(3, by)
      .Bind(4, ToMicros(now))
      .Bind(5, id)
      .Run();
}

absl::StatusOr<std::optional<Job>> Store::GetJob(int64_t id) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(absl::StrCat(
      "SELECT ", kJobColumns, ", (SELECT result FROM job_results WHERE job_id = jobs.id) FROM jobs WHERE id = ?"));
  if (!q.ok()) return q.status();
  q->Bind(1, id);
  absl::StatusOr<bool> row = q->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::nullopt;
  absl::StatusOr<Job> job = ReadJobRow(*q, /*with_source=*/true);
  if (!job.ok()) return job.status();
  if (!q->ColumnIsNull(14) && !job->mutable_result()->ParseFromString(q->ColumnBlob(14))) {
    return absl::DataLossError(absl::StrCat("job ", id, ": stored result does not parse"));
  }
  return *job;
}

absl::StatusOr<std::vector<UnfinishedJob>> Store::LoadUnfinishedJobs() {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      absl::StrCat("SELECT ", kJobColumns, ", shard_plan FROM jobs WHERE state IN (?, ?) ORDER BY id"));
  if (!q.ok()) return q.status();
  q->Bind(1, static_cast<int64_t>(kernelseek::v1::JOB_STATE_QUEUED))
      .Bind(2, static_cast<int64_t>(kernelseek::v1::JOB_STATE_LEASED));
  std::vector<UnfinishedJob> jobs;
  while (true) {
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    absl::StatusOr<Job> job = ReadJobRow(*q, /*with_source=*/true);
    if (!job.ok()) return job.status();
    UnfinishedJob unfinished{*std::move(job), q->ColumnString(11)};
    if (!q->ColumnIsNull(14)) {
      kernelseek::v1::ShardPlan plan;
      if (!plan.ParseFromString(q->ColumnBlob(14))) {
        return absl::DataLossError(absl::StrCat("job ", unfinished.job.id(), ": stored shard plan does not parse"));
      }
      unfinished.plan = std::move(plan);
    }
    jobs.push_back(std::move(unfinished));
  }
  return jobs;
}

absl::StatusOr<std::vector<Job>> Store::ListJobs(const JobFilter& filter) {
  absl::MutexLock lock(&mu_);
  // Every filter is in the statement; an unset one is "? = ''" or "? = 0",
  // true for every row, except the team, which always holds. The problem
  // test is last: it parses the spec.
  absl::StatusOr<Statement> q = db_->GetCachedStatement(absl::StrCat(
      "SELECT ", kJobColumns,
      " FROM jobs WHERE team = ? AND (? = '' OR user = ?) AND (? = 0 OR state = ?)"
      " AND (? = '' OR (kind <> ? AND job_problem(spec) = ?)) ORDER BY id DESC LIMIT ?"));
  if (!q.ok()) return q.status();
  q->Bind(1, filter.team);
  q->Bind(2, filter.user).Bind(3, filter.user);
  q->Bind(4, static_cast<int64_t>(filter.state)).Bind(5, static_cast<int64_t>(filter.state));
  q->Bind(6, filter.problem).Bind(7, static_cast<int64_t>(kernelseek::v1::JOB_KIND_COMPILE)).Bind(8, filter.problem);
  q->Bind(9, static_cast<int64_t>(filter.limit));
  std::vector<Job> jobs;
  while (true) {
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    absl::StatusOr<Job> job = ReadJobRow(*q, /*with_source=*/false);
    if (!job.ok()) return job.status();
    jobs.push_back(*std::move(job));
  }
  return jobs;
}

absl::Status Store::UpsertWorker(const WorkerInfo& worker) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "INSERT INTO workers (name, info, last_seen) VALUES (?, ?, ?) "
      "ON CONFLICT (name) DO UPDATE SET info = excluded.info, last_seen = excluded.last_seen");
  if (!q.ok()) return q.status();
  return q->Bind(1, worker.name())
      .BindBlob(2, worker.SerializeAsString())
      .Bind(3, google::protobuf::util::TimeUtil::TimestampToMicroseconds(worker.last_seen()))
      .Run();
}

absl::StatusOr<std::vector<WorkerInfo>> Store::ListWorkers() {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement("SELECT info FROM workers ORDER BY name");
  if (!q.ok()) return q.status();
  std::vector<WorkerInfo> workers;
  while (true) {
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    WorkerInfo info;
    if (!info.ParseFromString(q->ColumnBlob(0))) return absl::DataLossError("stored worker info does not parse");
    workers.push_back(std::move(info));
  }
  return workers;
}

// --- The fleet's compile cache ---

absl::StatusOr<bool> Store::PutCompileArtifact(const CompileArtifactRow& row, uint64_t max_total_bytes) {
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
                             .Bind(6, ToMicros(row.now))
                             .Bind(7, ToMicros(row.now))
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

absl::StatusOr<std::optional<CompileArtifactRow>> Store::GetCompileArtifact(const std::string& key, absl::Time now) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q =
      db_->GetCachedStatement("SELECT artifact_sha256, entry, worker, created_at FROM compile_artifacts WHERE key = ?");
  if (!q.ok()) return q.status();
  q->Bind(1, key);
  absl::StatusOr<bool> found = q->Step();
  if (!found.ok()) return found.status();
  if (!*found) return std::nullopt;
  CompileArtifactRow row;
  row.key = key;
  row.artifact_sha256 = q->ColumnString(0);
  row.entry = q->ColumnBlob(1);
  row.worker = q->ColumnString(2);
  row.now = absl::FromUnixMicros(q->ColumnInt64(3));
  absl::StatusOr<Statement> touch = db_->GetCachedStatement("UPDATE compile_artifacts SET used_at = ? WHERE key = ?");
  if (!touch.ok()) return touch.status();
  if (absl::Status s = touch->Bind(1, ToMicros(now)).Bind(2, key).Run(); !s.ok()) return s;
  return row;
}

absl::Status Store::DeleteCompileArtifact(const std::string& key) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement("DELETE FROM compile_artifacts WHERE key = ?");
  if (!q.ok()) return q.status();
  return q->Bind(1, key).Run();
}

// --- Optimization sessions ---

absl::StatusOr<int64_t> Store::InsertSession(const kernelseek::v1::Session& session) {
  absl::MutexLock lock(&mu_);
  int64_t id = 0;
  absl::Status status = InTransaction(*db_, [&]() -> absl::Status {
    absl::StatusOr<Statement> q = db_->GetCachedStatement(
        "INSERT INTO sessions (user, spec, state, steps, best_version, best_speedup, status, created_at, updated_at, "
        "team) VALUES (?, ?, ?, 0, '', 0, ?, ?, ?, ?)");
    if (!q.ok()) return q.status();
    int64_t created = google::protobuf::util::TimeUtil::TimestampToMicroseconds(session.created());
    absl::Status s = q->Bind(1, session.user())
                         .BindBlob(2, session.spec().SerializeAsString())
                         .Bind(3, static_cast<int64_t>(session.state()))
                         .Bind(4, session.status())
                         .Bind(5, created)
                         .Bind(6, created)
                         .Bind(7, session.team())
                         .Run();
    if (!s.ok()) return s;
    id = db_->LastInsertRowId();
    absl::StatusOr<Statement> f = db_->GetCachedStatement("INSERT INTO session_files (session_id, name, content) VALUES (?, ?, ?)");
    if (!f.ok()) return f.status();
    return f->Bind(1, id).Bind(2, session.spec().kernel_name()).BindBlob(3, session.spec().kernel_source()).Run();
  });
  if (!status.ok()) return status;
  return id;
}

absl::Status Store::UpdateSession(const kernelseek::v1::Session& session) {
  int64_t id = 0;
  if (!absl::SimpleAtoi(session.id(), &id)) return absl::InvalidArgumentError(absl::StrCat("bad session id \"", session.id(), "\""));
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "UPDATE sessions SET state = ?, steps = ?, best_version = ?, best_speedup = ?, status = ?, updated_at = ? "
      "WHERE id = ?");
  if (!q.ok()) return q.status();
  return q->Bind(1, static_cast<int64_t>(session.state()))
      .Bind(2, static_cast<int64_t>(session.steps()))
      .Bind(3, session.best_version())
      .Bind(4, session.best_speedup())
      .Bind(5, session.status())
      .Bind(6, google::protobuf::util::TimeUtil::TimestampToMicroseconds(session.updated()))
      .Bind(7, id)
      .Run();
}

absl::StatusOr<std::optional<kernelseek::v1::Session>> Store::GetSession(int64_t id) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(absl::StrCat("SELECT ", kSessionColumns, " FROM sessions WHERE id = ?"));
  if (!q.ok()) return q.status();
  q->Bind(1, id);
  absl::StatusOr<bool> row = q->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::nullopt;
  absl::StatusOr<kernelseek::v1::Session> session = ReadSessionRow(*q, /*with_source=*/true);
  if (!session.ok()) return session.status();
  return *std::move(session);
}

absl::StatusOr<std::vector<kernelseek::v1::Session>> Store::ListSessions(const std::string& team, int limit) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      absl::StrCat("SELECT ", kSessionColumns, " FROM sessions WHERE team = ? ORDER BY id DESC LIMIT ?"));
  if (!q.ok()) return q.status();
  q->Bind(1, team).Bind(2, static_cast<int64_t>(limit));
  std::vector<kernelseek::v1::Session> sessions;
  while (true) {
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    absl::StatusOr<kernelseek::v1::Session> session = ReadSessionRow(*q, /*with_source=*/false);
    if (!session.ok()) return session.status();
    sessions.push_back(*std::move(session));
  }
  return sessions;
}

absl::StatusOr<std::vector<int64_t>> Store::RunningSessionIds() {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement("SELECT id FROM sessions WHERE state = ? ORDER BY id");
  if (!q.ok()) return q.status();
  q->Bind(1, static_cast<int64_t>(kernelseek::v1::SESSION_STATE_RUNNING));
  return q->FirstColumnInts();
}

namespace {

// Appends `event` as the session's next seq; the caller holds the
// transaction. Returns the seq.
absl::StatusOr<int64_t> AppendEventInTransaction(Database& db, int64_t session_id,
                                                 kernelseek::v1::SessionEvent event) {
  // The row holds the kind and JSON payload derived from the typed body, the
  // format of rows written before events were typed.
  SetKindAndPayload(&event);
  absl::StatusOr<Statement> next =
      db.GetCachedStatement("SELECT COALESCE(MAX(seq), 0) + 1 FROM session_events WHERE session_id = ?");
  if (!next.ok()) return next.status();
  next->Bind(1, session_id);
  absl::StatusOr<bool> row = next->Step();
  if (!row.ok()) return row.status();
  const int64_t seq = next->ColumnInt64(0);
  absl::StatusOr<Statement> q =
      db.GetCachedStatement("INSERT INTO session_events (session_id, seq, ts, kind, author, payload) VALUES (?, ?, ?, ?, ?, ?)");
  if (!q.ok()) return q.status();
  absl::Status s = q->Bind(1, session_id)
                       .Bind(2, seq)
                       .Bind(3, google::protobuf::util::TimeUtil::TimestampToMicroseconds(event.time()))
                       .Bind(4, event.kind())
                       .Bind(5, event.author())
                       .Bind(6, event.payload_json())
                       .Run();
  if (!s.ok()) return s;
  return seq;
}

}  // namespace

absl::StatusOr<int64_t> Store::AppendSessionEvent(int64_t session_id, const kernelseek::v1::SessionEvent& event) {
  absl::MutexLock lock(&mu_);
  int64_t seq = 0;
  absl::Status s = InTransaction(*db_, [&]() -> absl::Status {
    absl::StatusOr<int64_t> appended = AppendEventInTransaction(*db_, session_id, event);
    if (!appended.ok()) return appended.status();
    seq = *appended;
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return seq;
}

absl::StatusOr<std::vector<kernelseek::v1::SessionEvent>> Store::ListSessionEvents(int64_t session_id,
                                                                                   int64_t after_seq, int limit) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "SELECT seq, ts, kind, author, payload FROM session_events WHERE session_id = ? AND seq > ? "
      "ORDER BY seq LIMIT ?");
  if (!q.ok()) return q.status();
  q->Bind(1, session_id).Bind(2, after_seq).Bind(3, static_cast<int64_t>(limit));
  std::vector<kernelseek::v1::SessionEvent> events;
  while (true) {
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    kernelseek::v1::SessionEvent& event = events.emplace_back();
    event.set_session_id(absl::StrCat(session_id));
    event.set_seq(q->ColumnInt64(0));
    *event.mutable_time() = ToTimestamp(q->ColumnInt64(1));
    event.set_kind(q->ColumnString(2));
    event.set_author(q->ColumnString(3));
    event.set_payload_json(q->ColumnString(4));
    // A row that does not fit its kind is still listed, without a body, so
    // that it can be shown; the agent loop refuses to resume from it.
    SetBodyFromPayload(&event).IgnoreError();
  }
  return events;
}

absl::StatusOr<int64_t> Store::AppendHumanMessage(int64_t session_id, const kernelseek::v1::SessionEvent& event) {
  absl::MutexLock lock(&mu_);
  int64_t seq = 0;
  absl::Status s = InTransaction(*db_, [&]() -> absl::Status {
    absl::StatusOr<int64_t> appended = AppendEventInTransaction(*db_, session_id, event);
    if (!appended.ok()) return appended.status();
    seq = *appended;
    absl::StatusOr<Statement> q = db_->GetCachedStatement("INSERT INTO session_messages (session_id, seq) VALUES (?, ?)");
    if (!q.ok()) return q.status();
    return q->Bind(1, session_id).Bind(2, seq).Run();
  });
  if (!s.ok()) return s;
  return seq;
}

absl::StatusOr<std::vector<int64_t>> Store::PendingMessageSeqs(int64_t session_id) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "SELECT seq FROM session_messages WHERE session_id = ? AND delivered_seq IS NULL ORDER BY seq");
  if (!q.ok()) return q.status();
  q->Bind(1, session_id);
  return q->FirstColumnInts();
}

absl::Status Store::MarkMessageDelivered(int64_t session_id, int64_t message_seq, int64_t delivered_seq) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q =
      db_->GetCachedStatement("UPDATE session_messages SET delivered_seq = ? WHERE session_id = ? AND seq = ?");
  if (!q.ok()) return q.status();
  return q->Bind(1, delivered_seq).Bind(2, session_id).Bind(3, message_seq).Run();
}

absl::Status Store::PutSessionFile(int64_t session_id, const std::string& name, const std::string& content) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "INSERT INTO session_files (session_id, name, content) VALUES (?, ?, ?) "
      "ON CONFLICT (session_id, name) DO UPDATE SET content = excluded.content");
  if (!q.ok()) return q.status();
  return q->Bind(1, session_id).Bind(2, name).BindBlob(3, content).Run();
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> Store::ListSessionFiles(int64_t session_id) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q =
      db_->GetCachedStatement("SELECT name, content FROM session_files WHERE session_id = ? ORDER BY name");
  if (!q.ok()) return q.status();
  q->Bind(1, session_id);
  std::vector<std::pair<std::string, std::string>> files;
  while (true) {
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    files.emplace_back(q->ColumnString(0), q->ColumnString(1));
  }
  return files;
}

absl::StatusOr<int64_t> Store::InsertKernelVersion(int64_t session_id, const kernelseek::v1::KernelVersion& version) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "INSERT INTO kernel_versions (session_id, parent, source, status, seq) VALUES (?, ?, ?, ?, ?)");
  if (!q.ok()) return q.status();
  int64_t parent = 0;
  q->Bind(1, session_id);
  if (absl::SimpleAtoi(version.parent(), &parent)) {
    q->Bind(2, parent);
  } else {
    q->BindNull(2);
  }
  absl::Status s = q->BindBlob(3, version.source()).Bind(4, version.status()).Bind(5, version.seq()).Run();
  if (!s.ok()) return s;
  return db_->LastInsertRowId();
}

absl::Status Store::UpdateKernelVersion(const kernelseek::v1::KernelVersion& version) {
  int64_t id = 0;
  if (!absl::SimpleAtoi(version.id(), &id)) return absl::InvalidArgumentError(absl::StrCat("bad version id \"", version.id(), "\""));
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "UPDATE kernel_versions SET status = ?, geomean_speedup = ?, geomean_tflops = ?, counted = ? WHERE id = ?");
  if (!q.ok()) return q.status();
  return q->Bind(1, version.status())
      .Bind(2, version.geomean_speedup())
      .Bind(3, version.geomean_tflops())
      .Bind(4, static_cast<int64_t>(version.counted()))
      .Bind(5, id)
      .Run();
}

absl::StatusOr<std::vector<kernelseek::v1::KernelVersion>> Store::ListKernelVersions(int64_t session_id,
                                                                                     bool with_source) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "SELECT id, COALESCE(parent, ''), status, geomean_speedup, geomean_tflops, "
      "counted, seq, source FROM kernel_versions WHERE session_id = ? ORDER BY id");
  if (!q.ok()) return q.status();
  q->Bind(1, session_id);
  std::vector<kernelseek::v1::KernelVersion> versions;
  while (true) {
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    kernelseek::v1::KernelVersion& v = versions.emplace_back();
    v.set_id(absl::StrCat(q->ColumnInt64(0)));
    v.set_parent(q->ColumnString(1));
    v.set_status(q->ColumnString(2));
    v.set_geomean_speedup(q->ColumnDouble(3));
    v.set_geomean_tflops(q->ColumnDouble(4));
    v.set_counted(q->ColumnInt64(5) != 0);
    v.set_seq(q->ColumnInt64(6));
    if (with_source) v.set_source(q->ColumnString(7));
  }
  return versions;
}

}  // namespace kseek
