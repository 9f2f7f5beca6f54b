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
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "proto/kernelseek.pb.h"
#include "server/sqlite.h"

namespace kseek {

enum class TokenKind { kUser, kWorker };

// What a user token may do in its team (see Caller). Worker tokens have none.
enum class Role { kViewer, kMember, kAdmin };

// "admin", "member", "viewer".
const char* RoleName(Role role);
// INVALID_ARGUMENT naming the three roles for anything else.
absl::StatusOr<Role> ParseRole(const std::string& name);

// The team of tokens and rows made before teams existed (schema version 4).
inline constexpr char kDefaultTeam[] = "default";

struct TokenRecord {
  int64_t id = 0;
  TokenKind kind = TokenKind::kUser;
  std::string name;
  std::string team;           // user tokens only
  Role role = Role::kViewer;  // user tokens only
  absl::Time created_at;
  std::string created_by;     // empty: made with kseek-server token create
  std::optional<absl::Time> expires_at;
  std::optional<absl::Time> revoked_at;
  std::string revoked_by;
};

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

// One build in the fleet's compile cache (schema version 5).
struct CompileArtifactRow {
  std::string key;              // 64 hex digits
  std::string artifact_sha256;  // of the entry's artifact, as the server checked it
  std::string entry;            // a serialized CompileCacheEntry
  std::string worker;           // who uploaded it
  absl::Time now;               // Put: when; Get: when it was stored
};

class Store {
 public:
  static absl::StatusOr<std::unique_ptr<Store>> Open(const std::string& path);
  // Migrates only up to `schema_version`: for tests that make a database as
  // an older server left it, to check what Open then does with it.
  static absl::StatusOr<std::unique_ptr<Store>> OpenAtVersion(const std::string& path, int schema_version);

  // The schema version this build writes; Open migrates older files up to it.
  static int LatestSchemaVersion();
  absl::StatusOr<int> SchemaVersion();

  // Stores a token (all of `record` but id, revoked_at and revoked_by) and returns its id.
  absl::StatusOr<int64_t> AddToken(const TokenRecord& record, const std::string& sha256_hex);
  // The token with this hash, revoked or expired ones included (the caller
  // says why they no longer work). One indexed read: nothing is cached, so a
  // revocation by another process is seen by the next call.
  absl::StatusOr<std::optional<TokenRecord>> FindToken(const std::string& sha256_hex);
  // Oldest first; `team` empty: every token, worker tokens included.
  absl::StatusOr<std::vector<TokenRecord>> ListTokens(const std::string& team);
  // Marks token `id` revoked by `by` at `now` and returns it. With `team`
  // non-empty only a user token of that team qualifies. NOT_FOUND for no such
  // token; FAILED_PRECONDITION when it was already revoked (saying when).
  absl::StatusOr<TokenRecord> RevokeToken(int64_t id, const std::string& team, const std::string& by, absl::Time now);

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

  // --- The fleet's compile cache (schema version 5) ---

  // Stores `row` unless its key is there already (the first upload stays),
  // then removes the least recently used rows until the total of the
  // entries is at most max_total_bytes. True when `row` was stored and kept.
  absl::StatusOr<bool> PutCompileArtifact(const CompileArtifactRow& row, uint64_t max_total_bytes);
  // The row of `key`, nullopt if none; marks it used at `now`.
  absl::StatusOr<std::optional<CompileArtifactRow>> GetCompileArtifact(const std::string& key, absl::Time now);
  absl::Status DeleteCompileArtifact(const std::string& key);

  // --- Optimization sessions (schema version 3) ---

  // Stores a new session (spec, user, team, state, created) with its workspace
  // file `spec.kernel_name` holding `spec.kernel_source`; returns its id.
  absl::StatusOr<int64_t> InsertSession(const kernelseek::v1::Session& session);
  // Writes state, steps, best_version, best_speedup, status and updated.
  absl::Status UpdateSession(const kernelseek::v1::Session& session);
  // The session with its full spec (kernel source included) and last_seq.
  absl::StatusOr<std::optional<kernelseek::v1::Session>> GetSession(int64_t id);
  // The sessions of `team`, newest first; the specs without kernel source.
  absl::StatusOr<std::vector<kernelseek::v1::Session>> ListSessions(const std::string& team, int limit);
  absl::StatusOr<std::vector<int64_t>> RunningSessionIds();

  // Appends one event with the session's next sequence number (1, 2, ...)
  // and returns that number. `event.session_id` and `event.seq` are ignored;
  // an event with a body is stored as the kind and payload derived from it
  // (common/session_event.h), one without as its own kind and payload_json.
  absl::StatusOr<int64_t> AppendSessionEvent(int64_t session_id, const kernelseek::v1::SessionEvent& event);
  // Events with seq > after_seq, in order, at most `limit`, with kind,
  // payload_json and, where the row fits its kind, the typed body.
  absl::StatusOr<std::vector<kernelseek::v1::SessionEvent>> ListSessionEvents(int64_t session_id, int64_t after_seq,
                                                                              int limit);

  // A human message: appended as a "human_message" event and queued for
  // delivery in the same transaction. Returns the event's seq.
  absl::StatusOr<int64_t> AppendHumanMessage(int64_t session_id, const kernelseek::v1::SessionEvent& event);
  // Seqs of the human_message events not yet delivered, oldest first.
  absl::StatusOr<std::vector<int64_t>> PendingMessageSeqs(int64_t session_id);
  absl::Status MarkMessageDelivered(int64_t session_id, int64_t message_seq, int64_t delivered_seq);

  // Workspace files of a session, by name.
  absl::Status PutSessionFile(int64_t session_id, const std::string& name, const std::string& content);
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ListSessionFiles(int64_t session_id);

  // Kernel versions. Insert uses id (ignored), parent, status, seq and source.
  absl::StatusOr<int64_t> InsertKernelVersion(int64_t session_id, const kernelseek::v1::KernelVersion& version);
  // Writes status, geomean_speedup, geomean_tflops and counted.
  absl::Status UpdateKernelVersion(const kernelseek::v1::KernelVersion& version);
  // Oldest first; `with_source` false leaves the source out.
  absl::StatusOr<std::vector<kernelseek::v1::KernelVersion>> ListKernelVersions(int64_t session_id, bool with_source);

 private:
  explicit Store(std::unique_ptr<Database> db) : db_(std::move(db)) {}
  absl::Status Migrate(int target_version) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<int> SchemaVersionLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::unique_ptr<Database> db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_STORE_H_
