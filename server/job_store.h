// JobStore: the jobs (with their results and a bench job's shard plan) and
// the workers the queue has seen: what JobQueue persists before it answers,
// and reads back after a restart.
//
// Owns its own connection to the StoreFile (see store_file.h for why), so
// job traffic does not wait behind session writes; every method takes an
// internal mutex, so it is thread-safe. Each method is one transaction: when
// it returns OK the change is on disk and survives a crash of the process.
#ifndef KERNELSEEK_SERVER_JOB_STORE_H_
#define KERNELSEEK_SERVER_JOB_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "proto/kernelseek.pb.h"
#include "server/sqlite.h"
#include "server/store_file.h"

namespace kseek {

// A job that is not finished, as the queue needs it after a restart.
struct UnfinishedJob {
  kernelseek::v1::Job job;
  std::string lease_id;  // empty when queued
  std::optional<kernelseek::v1::ShardPlan> plan;  // a bench job's shards, once planned
};

// Which jobs ListJobs returns: those of `team`, and of the other fields the
// ones that are set must all hold.
struct JobFilter {
  std::string team;     // always applied: a team sees only its own jobs
  std::string user;
  kernelseek::v1::JobState state = kernelseek::v1::JOB_STATE_UNSPECIFIED;  // UNSPECIFIED: any
  std::string problem;  // RunOptions.problem: verify, bench and profile jobs only
  int limit = 50;       // after the filters
};

class JobStore {
 public:
  static absl::StatusOr<std::unique_ptr<JobStore>> Open(const StoreFile& file);

  // Stores a new QUEUED job (spec, requirements, user, team, created) and returns its id.
  absl::StatusOr<int64_t> InsertJob(const kernelseek::v1::Job& job);
  absl::Status LeaseJob(int64_t id, const std::string& worker, const std::string& lease_id, int attempts);
  absl::Status RequeueJob(int64_t id);
  // Stores a bench job's shard plan (schema version 6), read back by
  // LoadUnfinishedJobs.
  absl::Status SaveShardPlan(int64_t id, const kernelseek::v1::ShardPlan& plan);
  // Marks a job SUCCEEDED (with its result) or FAILED (with the reason).
  absl::Status FinishJob(int64_t id, kernelseek::v1::JobState state, const std::string& failure,
                         const kernelseek::v1::JobResult* result, absl::Time now);
  // Ends a queued or leased job CANCELLED, "cancelled by `by`", with `by` in cancelled_by.
  absl::Status CancelJob(int64_t id, const std::string& by, absl::Time now);
  absl::StatusOr<std::optional<kernelseek::v1::Job>> GetJob(int64_t id);
  absl::StatusOr<std::vector<UnfinishedJob>> LoadUnfinishedJobs();
  // The jobs `filter` matches, newest first, without source text or results
  // (a listing, not a report); filtered in SQL.
  absl::StatusOr<std::vector<kernelseek::v1::Job>> ListJobs(const JobFilter& filter);

  absl::Status UpsertWorker(const kernelseek::v1::WorkerInfo& worker);
  absl::StatusOr<std::vector<kernelseek::v1::WorkerInfo>> ListWorkers();

 private:
  explicit JobStore(std::unique_ptr<Database> db) : db_(std::move(db)) {}

  absl::Mutex mu_;
  std::unique_ptr<Database> db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_JOB_STORE_H_
