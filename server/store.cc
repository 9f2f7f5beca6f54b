#include "server/store.h"

#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/util/time_util.h>

#include "absl/strings/str_cat.h"

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
    "id, user, kind, spec, requirements, state, worker, attempts, failure, created_at, finished_at, lease_id";

// Reads a row selected with kJobColumns. `with_source` false drops the
// source text, which listings never show.
absl::StatusOr<Job> ReadJobRow(const Statement& row, bool with_source) {
  Job job;
  job.set_id(absl::StrCat(row.ColumnInt(0)));
  job.set_user(row.ColumnText(1));
  if (!job.mutable_spec()->ParseFromString(row.ColumnText(3))) {
    return absl::DataLossError(absl::StrCat("job ", job.id(), ": stored spec does not parse"));
  }
  if (!with_source) job.mutable_spec()->clear_source();
  Job holder;
  if (!holder.ParseFromString(row.ColumnText(4))) {
    return absl::DataLossError(absl::StrCat("job ", job.id(), ": stored requirements do not parse"));
  }
  *job.mutable_requirements() = holder.requirements();
  job.set_state(static_cast<JobState>(row.ColumnInt(5)));
  job.set_worker(row.ColumnText(6));
  job.set_attempts(static_cast<int32_t>(row.ColumnInt(7)));
  job.set_failure(row.ColumnText(8));
  *job.mutable_created() = ToTimestamp(row.ColumnInt(9));
  if (!row.ColumnIsNull(10)) *job.mutable_finished() = ToTimestamp(row.ColumnInt(10));
  return job;
}

}  // namespace

int Store::LatestSchemaVersion() { return static_cast<int>(std::size(kMigrations)); }

absl::StatusOr<std::unique_ptr<Store>> Store::Open(const std::string& path) {
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path);
  if (!db.ok()) return db.status();
  std::unique_ptr<Store> store(new Store(*std::move(db)));
  absl::MutexLock lock(&store->mu_);
  if (absl::Status s = store->Migrate(); !s.ok()) return s;
  return store;
}

absl::StatusOr<int> Store::SchemaVersionLocked() {
  if (absl::Status s = db_->Exec(
          "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
      !s.ok()) {
    return s;
  }
  absl::StatusOr<Statement> q = db_->Prepare("SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
  if (!q.ok()) return q.status();
  absl::StatusOr<bool> row = q->Step();
  if (!row.ok()) return row.status();
  return static_cast<int>(q->ColumnInt(0));
}

absl::StatusOr<int> Store::SchemaVersion() {
  absl::MutexLock lock(&mu_);
  return SchemaVersionLocked();
}

absl::Status Store::Migrate() {
  absl::StatusOr<int> current = SchemaVersionLocked();
  if (!current.ok()) return current.status();
  if (*current > LatestSchemaVersion()) {
    return absl::FailedPreconditionError(absl::StrCat("database schema version ", *current,
                                                      " is newer than this server understands (",
                                                      LatestSchemaVersion(), "); upgrade kseek-server"));
  }
  for (int version = *current + 1; version <= LatestSchemaVersion(); ++version) {
    absl::Status s = InTransaction(*db_, [&]() -> absl::Status {
      if (absl::Status e = db_->Exec(kMigrations[version - 1]); !e.ok()) return e;
      absl::StatusOr<Statement> ins = db_->Prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)");
      if (!ins.ok()) return ins.status();
      return ins->Bind(1, static_cast<int64_t>(version)).Bind(2, ToMicros(absl::Now())).Run();
    });
    if (!s.ok()) return absl::InternalError(absl::StrCat("migration to schema version ", version, " failed: ", s.message()));
  }
  return absl::OkStatus();
}

absl::Status Store::AddToken(TokenKind kind, const std::string& name, const std::string& sha256_hex, absl::Time now) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q =
      db_->Prepare("INSERT INTO tokens (kind, name, sha256, created_at) VALUES (?, ?, ?, ?)");
  if (!q.ok()) return q.status();
  return q->Bind(1, kind == TokenKind::kUser ? "user" : "worker").Bind(2, name).Bind(3, sha256_hex).Bind(4, ToMicros(now)).Run();
}

absl::StatusOr<std::optional<TokenRecord>> Store::FindToken(const std::string& sha256_hex) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->Prepare("SELECT kind, name FROM tokens WHERE sha256 = ?");
  if (!q.ok()) return q.status();
  q->Bind(1, sha256_hex);
  absl::StatusOr<bool> row = q->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::nullopt;
  return TokenRecord{q->ColumnText(0) == "user" ? TokenKind::kUser : TokenKind::kWorker, q->ColumnText(1)};
}

absl::StatusOr<int64_t> Store::InsertJob(const Job& job) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->Prepare(
      "INSERT INTO jobs (user, kind, spec, requirements, state, attempts, created_at) VALUES (?, ?, ?, ?, ?, 0, ?)");
  if (!q.ok()) return q.status();
  absl::Status s = q->Bind(1, job.user())
                       .Bind(2, static_cast<int64_t>(job.spec().kind()))
                       .BindBlob(3, job.spec().SerializeAsString())
                       .BindBlob(4, EncodeRequirements(job))
                       .Bind(5, static_cast<int64_t>(kernelseek::v1::JOB_STATE_QUEUED))
                       .Bind(6, google::protobuf::util::TimeUtil::TimestampToMicroseconds(job.created()))
                       .Run();
  if (!s.ok()) return s;
  return db_->LastInsertRowId();
}

absl::Status Store::LeaseJob(int64_t id, const std::string& worker, const std::string& lease_id, int attempts) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q =
      db_->Prepare("UPDATE jobs SET state = ?, worker = ?, lease_id = ?, attempts = ? WHERE id = ?");
  if (!q.ok()) return q.status();
  return q->Bind(1, static_cast<int64_t>(kernelseek::v1::JOB_STATE_LEASED))
      .Bind(2, worker)
      .Bind(3, lease_id)
      .Bind(4, static_cast<int64_t>(attempts))
      .Bind(5, id)
      .Run();
}

absl::Status Store::RequeueJob(int64_t id) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->Prepare("UPDATE jobs SET state = ?, lease_id = NULL WHERE id = ?");
  if (!q.ok()) return q.status();
  return q->Bind(1, static_cast<int64_t>(kernelseek::v1::JOB_STATE_QUEUED)).Bind(2, id).Run();
}

absl::Status Store::FinishJob(int64_t id, JobState state, const std::string& failure, const JobResult* result,
                              absl::Time now) {
  absl::MutexLock lock(&mu_);
  return InTransaction(*db_, [&]() -> absl::Status {
    absl::StatusOr<Statement> q =
        db_->Prepare("UPDATE jobs SET state = ?, failure = ?, finished_at = ?, lease_id = NULL WHERE id = ?");
    if (!q.ok()) return q.status();
    if (absl::Status s = q->Bind(1, static_cast<int64_t>(state)).Bind(2, failure).Bind(3, ToMicros(now)).Bind(4, id).Run();
        !s.ok()) {
      return s;
    }
    if (result == nullptr) return absl::OkStatus();
    absl::StatusOr<Statement> r = db_->Prepare("INSERT OR REPLACE INTO job_results (job_id, result) VALUES (?, ?)");
    if (!r.ok()) return r.status();
    if (absl::Status s = r->Bind(1, id).BindBlob(2, result->SerializeAsString()).Run(); !s.ok()) return s;
    for (const kernelseek::v1::ScenarioResult& sc : result->run().scenarios()) {
      absl::StatusOr<Statement> row = db_->Prepare(
          "INSERT OR REPLACE INTO scenario_results (job_id, scenario, passed, max_abs_error, error_bar, median_ms, "
          "tflops, baseline_tflops, speedup, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
      if (!row.ok()) return row.status();
      absl::Status s = row->Bind(1, id)
                           .Bind(2, sc.id())
                           .Bind(3, static_cast<int64_t>(sc.passed()))
                           .Bind(4, sc.max_abs_error())
                           .Bind(5, sc.error_bar())
                           .Bind(6, sc.median_ms())
                           .Bind(7, sc.tflops())
                           .Bind(8, sc.baseline_tflops())
                           .Bind(9, sc.speedup())
                           .BindBlob(10, sc.SerializeAsString())
                           .Run();
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::optional<Job>> Store::GetJob(int64_t id) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->Prepare(absl::StrCat(
      "SELECT ", kJobColumns, ", (SELECT result FROM job_results WHERE job_id = jobs.id) FROM jobs WHERE id = ?"));
  if (!q.ok()) return q.status();
  q->Bind(1, id);
  absl::StatusOr<bool> row = q->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::nullopt;
  absl::StatusOr<Job> job = ReadJobRow(*q, /*with_source=*/true);
  if (!job.ok()) return job.status();
  if (!q->ColumnIsNull(12) && !job->mutable_result()->ParseFromString(q->ColumnText(12))) {
    return absl::DataLossError(absl::StrCat("job ", id, ": stored result does not parse"));
  }
  return *job;
}

absl::StatusOr<std::vector<UnfinishedJob>> Store::LoadUnfinishedJobs() {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->Prepare(
      absl::StrCat("SELECT ", kJobColumns, " FROM jobs WHERE state IN (?, ?) ORDER BY id"));
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
    jobs.push_back({*std::move(job), q->ColumnText(11)});
  }
  return jobs;
}

absl::StatusOr<std::vector<Job>> Store::ListJobs(int limit) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q =
      db_->Prepare(absl::StrCat("SELECT ", kJobColumns, " FROM jobs ORDER BY id DESC LIMIT ?"));
  if (!q.ok()) return q.status();
  q->Bind(1, static_cast<int64_t>(limit));
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
  absl::StatusOr<Statement> q = db_->Prepare(
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
  absl::StatusOr<Statement> q = db_->Prepare("SELECT info FROM workers ORDER BY name");
  if (!q.ok()) return q.status();
  std::vector<WorkerInfo> workers;
  while (true) {
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    WorkerInfo info;
    if (!info.ParseFromString(q->ColumnText(0))) return absl::DataLossError("stored worker info does not parse");
    workers.push_back(std::move(info));
  }
  return workers;
}

}  // namespace kseek
