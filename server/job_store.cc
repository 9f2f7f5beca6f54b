#include "server/job_store.h"

#include <google/protobuf/util/time_util.h>

#include "absl/strings/str_cat.h"

namespace kseek {
namespace {

using google::protobuf::util::TimeUtil;
using kernelseek::v1::Job;
using kernelseek::v1::JobResult;
using kernelseek::v1::JobState;
using kernelseek::v1::WorkerInfo;

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
  *job.mutable_created() = TimeUtil::MicrosecondsToTimestamp(row.ColumnInt64(9));
  if (!row.ColumnIsNull(10)) *job.mutable_finished() = TimeUtil::MicrosecondsToTimestamp(row.ColumnInt64(10));
  job.set_team(row.ColumnString(12));
  job.set_cancelled_by(row.ColumnString(13));
  return job;
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

absl::StatusOr<std::unique_ptr<JobStore>> JobStore::Open(const StoreFile& file) {
  absl::StatusOr<std::unique_ptr<Database>> db = file.Connect();
  if (!db.ok()) return db.status();
  if (absl::Status s = (*db)->AddTextFunction("job_problem", &JobProblem); !s.ok()) return s;
  return std::unique_ptr<JobStore>(new JobStore(*std::move(db)));
}

absl::StatusOr<int64_t> JobStore::InsertJob(const Job& job) {
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
                       .Bind(6, TimeUtil::TimestampToMicroseconds(job.created()))
                       .Bind(7, job.team())
                       .Run();
  if (!s.ok()) return s;
  return db_->LastInsertRowId();
}

absl::Status JobStore::LeaseJob(int64_t id, const std::string& worker, const std::string& lease_id, int attempts) {
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

absl::Status JobStore::SaveShardPlan(int64_t id, const kernelseek::v1::ShardPlan& plan) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement("UPDATE jobs SET shard_plan = ? WHERE id = ?");
  if (!q.ok()) return q.status();
  return q->BindBlob(1, plan.SerializeAsString()).Bind(2, id).Run();
}

absl::Status JobStore::RequeueJob(int64_t id) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement("UPDATE jobs SET state = ?, lease_id = NULL WHERE id = ?");
  if (!q.ok()) return q.status();
  return q->Bind(1, static_cast<int64_t>(kernelseek::v1::JOB_STATE_QUEUED)).Bind(2, id).Run();
}

absl::Status JobStore::FinishJob(int64_t id, JobState state, const std::string& failure, const JobResult* result,
                              absl::Time now) {
  absl::MutexLock lock(&mu_);
  return InTransaction(*db_, [&]() -> absl::Status {
    absl::StatusOr<Statement> q =
        db_->GetCachedStatement("UPDATE jobs SET state = ?, failure = ?, finished_at = ?, lease_id = NULL WHERE id = ?");
    if (!q.ok()) return q.status();
    if (absl::Status s = q->Bind(1, static_cast<int64_t>(state)).Bind(2, failure).Bind(3, absl::ToUnixMicros(now)).Bind(4, id).Run();
        !s.ok()) {
      return s;
    }
    if (result == nullptr) return absl::OkStatus();
    absl::StatusOr<Statement> r = db_->GetCachedStatement("INSERT OR REPLACE INTO job_results (job_id, result) VALUES (?, ?)");
    if (!r.ok()) return r.status();
    return r->Bind(1, id).BindBlob(2, result->SerializeAsString()).Run();
  });
}

absl::Status JobStore::CancelJob(int64_t id, const std::string& by, absl::Time now) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "UPDATE jobs SET state = ?, failure = ?, cancelled_by = ?, finished_at = ?, lease_id = NULL WHERE id = ?");
  if (!q.ok()) return q.status();
  return q->Bind(1, static_cast<int64_t>(kernelseek::v1::JOB_STATE_CANCELLED))
      .Bind(2, absl::StrCat("cancelled by ", by))
      .Bind(3, by)
      .Bind(4, absl::ToUnixMicros(now))
      .Bind(5, id)
      .Run();
}

absl::StatusOr<std::optional<Job>> JobStore::GetJob(int64_t id) {
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

absl::StatusOr<std::vector<UnfinishedJob>> JobStore::LoadUnfinishedJobs() {
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

absl::StatusOr<std::vector<Job>> JobStore::ListJobs(const JobFilter& filter) {
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

absl::Status JobStore::UpsertWorker(const WorkerInfo& worker) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "INSERT INTO workers (name, info, last_seen) VALUES (?, ?, ?) "
      "ON CONFLICT (name) DO UPDATE SET info = excluded.info, last_seen = excluded.last_seen");
  if (!q.ok()) return q.status();
  return q->Bind(1, worker.name())
      .BindBlob(2, worker.SerializeAsString())
      .Bind(3, TimeUtil::TimestampToMicroseconds(worker.last_seen()))
      .Run();
}

absl::StatusOr<std::vector<WorkerInfo>> JobStore::ListWorkers() {
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

}  // namespace kseek
