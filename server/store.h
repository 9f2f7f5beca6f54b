// Store: everything kseek-server keeps, in one SQLite file.
//
// Owns the single connection; every method takes an internal mutex, so the
// Store is thread-safe and writes are serialised (SQLite has one writer
// anyway). Each method is one transaction: when it returns OK the change is
// on disk and survives a crash of the process. Schema migrations are numbered
// and applied in order by Open.
#ifndef KERNELSEEK_SERVER_STORE_H_
#define KERNELSEEK_SERVER_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "proto/kernelseek.pb.h"
#include "server/sqlite.h"

namespace kseek {

enum class TokenKind { kUser, kWorker };

struct TokenRecord {
  TokenKind kind;
  std::string name;
};

// A job that is not finished, as the queue needs it after a restart.
struct UnfinishedJob {
  kernelseek::v1::Job job;
  std::string lease_id;  // empty when queued
};

class Store {
 public:
  static absl::StatusOr<std::unique_ptr<Store>> Open(const std::string& path);

  // The schema version this build writes; Open migrates older files up to it.
  static int LatestSchemaVersion();
  absl::StatusOr<int> SchemaVersion();

  absl::Status AddToken(TokenKind kind, const std::string& name, const std::string& sha256_hex, absl::Time now);
  absl::StatusOr<std::optional<TokenRecord>> FindToken(const std::string& sha256_hex);

  // Stores a new QUEUED job (spec, requirements, user, created) and returns its id.
  absl::StatusOr<int64_t> InsertJob(const kernelseek::v1::Job& job);
  absl::Status LeaseJob(int64_t id, const std::string& worker, const std::string& lease_id, int attempts);
  absl::Status RequeueJob(int64_t id);
  // Marks a job SUCCEEDED (with its result) or FAILED (with the reason).
  absl::Status FinishJob(int64_t id, kernelseek::v1::JobState state, const std::string& failure,
                         const kernelseek::v1::JobResult* result, absl::Time now);
  absl::StatusOr<std::optional<kernelseek::v1::Job>> GetJob(int64_t id);
  absl::StatusOr<std::vector<UnfinishedJob>> LoadUnfinishedJobs();
  // Newest first, without source text or results (a listing, not a report).
  absl::StatusOr<std::vector<kernelseek::v1::Job>> ListJobs(int limit);

  absl::Status UpsertWorker(const kernelseek::v1::WorkerInfo& worker);
  absl::StatusOr<std::vector<kernelseek::v1::WorkerInfo>> ListWorkers();

 private:
  explicit Store(std::unique_ptr<Database> db) : db_(std::move(db)) {}
  absl::Status Migrate() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<int> SchemaVersionLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::unique_ptr<Database> db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_STORE_H_
