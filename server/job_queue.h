// JobQueue: the server's jobs and the leases workers hold on them.
//
// Jobs are persisted through JobStore before any call that created or changed
// them returns, so an acknowledged job survives a crash. Leases live in memory
// with a deadline: a worker must call Synchronize again before it; one that
// does not loses the lease and the job is re-queued, up to max_attempts leases
// in all, after which the job fails with the reason. Completion is keyed by
// lease id, so a late or duplicate report is ignored.
//
// A bench job runs as shards (server/bench_shards.h): when its first shard is
// leased, its scenarios are dealt into RunOptions.shards shards (or, for
// "auto", as many as there are idle workers able to run it), and every other
// shard then goes only to a worker with the same `gpu` and `driver` as the
// first one's. Each shard is leased, retried and lost like a job of its own;
// the job ends when every shard has (one shard's failure, or its attempts
// running out, fails the job and drops the other shards), with the shards'
// results merged into the form of a bench on one GPU. A bench on one GPU is a
// plan of one shard through the same code. The plan is stored with the job,
// so a restarted server resumes it.
//
// Synchronize never blocks; the gRPC layer holds an idle worker's long poll
// and wakes it through SubscribeWork, and a job's watchers through
// SubscribeJob. Thread-safe: one mutex guards the in-memory state. Time comes
// from the injected Clock.
#ifndef KERNELSEEK_SERVER_JOB_QUEUE_H_
#define KERNELSEEK_SERVER_JOB_QUEUE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "proto/kernelseek.pb.h"
#include "problem/problem_catalog.h"
#include "server/change_notifier.h"
#include "server/queue_events.h"
#include "server/job_store.h"

namespace kseek {

struct JobQueueOptions {
  // How long a worker holding a lease may go without calling Synchronize.
  absl::Duration lease_timeout = absl::Seconds(30);
  // How long an idle worker's long poll is held before it is answered "idle".
  absl::Duration idle_poll = absl::Seconds(20);
  // Leases handed out for one job before it fails.
  int max_attempts = 3;
  // A worker not heard from for this long is listed as offline.
  absl::Duration offline_after = absl::Seconds(60);
  // Told of lease expiries and finished jobs (metrics); may be null.
  QueueEvents* events = nullptr;
};

// How many unfinished jobs wait and how many are leased to a worker.
struct QueueDepth {
  int64_t queued = 0;
  int64_t leased = 0;
};

struct SubmitOptions {
  // Queue the job even when no connected worker could run it (one is
  // expected to connect); else Submit refuses such a job.
  bool wait_for_worker = false;
};

struct SyncResult {
  kernelseek::v1::DesiredState desired_state;
  absl::Time next_sync_deadline;
};

class JobQueue {
 public:
  // `problems` is what verify and bench jobs are checked against at Submit.
  JobQueue(JobStore* store, const Clock* clock, const ProblemCatalog* problems, JobQueueOptions options);

  // Loads unfinished jobs from the store after a restart. Jobs that were
  // leased keep their lease with a fresh deadline, so a worker that is still
  // running one can report it; if it does not, the lease lapses as usual.
  absl::Status Recover();

  // Validates and stores a job of `user` in `team`; returns its id. Unless
  // `options.wait_for_worker`, FAILED_PRECONDITION when no connected worker
  // (one ListWorkers shows as not offline) could run it, saying which
  // requirement none meets and which workers there are; nothing is stored.
  absl::StatusOr<std::string> Submit(const std::string& user, const std::string& team, kernelseek::v1::JobSpec spec,
                                     SubmitOptions options = {});

  // The job as stored, with its live stage while leased, and while queued its
  // queue_position and waiting_for (computed now, see the proto). NOT_FOUND
  // if unknown.
  absl::StatusOr<kernelseek::v1::Job> GetJob(const std::string& id);
  // Ends a queued or leased job as CANCELLED by `by`, once. Its lease goes,
  // so the worker running it is told to drop it at its next sync and kills
  // its programs. NOT_FOUND, FAILED_PRECONDITION (already ended, with how).
  // Who may cancel is the caller's to decide (Caller::CheckControl).
  absl::StatusOr<kernelseek::v1::Job> Cancel(const std::string& by, const std::string& id);
  // Newest first, as the store filters them (always within filter.team);
  // queued ones annotated as in GetJob.
  absl::StatusOr<std::vector<kernelseek::v1::Job>> ListJobs(const JobFilter& filter);
  // Every worker the store knows, with its live state, or "offline" when it
  // has not synced for options().offline_after.
  std::vector<kernelseek::v1::WorkerInfo> ListWorkers();

  // One worker protocol round: takes the worker's full state, returns what it
  // should do. Never blocks.
  absl::StatusOr<SyncResult> Synchronize(const kernelseek::v1::SynchronizeRequest& request);

  // Re-queues or fails the jobs of leases past their deadline.
  void ExpireLeases();

  QueueDepth Depth();
  // Runs `on_change` (a quick callback, see ChangeNotifier) whenever job `id`
  // changes: queued, leased, re-queued, ended, a new stage or progress; while
  // it is queued, also when its queue_position or waiting_for may have moved
  // (a job ahead of it left the queue, a worker's state changed); and at
  // Shutdown. Changes of other jobs do not run it. INVALID_ARGUMENT for an id
  // that is not a job id.
  absl::StatusOr<ChangeNotifier::Subscription> SubscribeJob(const std::string& id, std::function<void()> on_change);
  // Runs `on_work` whenever a job or shard enters the queue (an idle worker's
  // long poll may lease it now), and at Shutdown.
  ChangeNotifier::Subscription SubscribeWork(std::function<void()> on_work);
  // Wakes every subscriber; shutting_down() is true from then on.
  void Shutdown();
  bool shutting_down();

  const JobQueueOptions& options() const { return options_; }

 private:
  struct Lease {
    std::string lease_id;
    int64_t job_id;
    std::string worker;
    absl::Time deadline;
    std::string stage;
    kernelseek::v1::Progress progress;
    // The bench shard this lease runs, an index into its job's plan; -1 for
    // every other job (and a bench leased by a server older than shards),
    // which runs whole.
    int shard = -1;
    absl::Time leased_at = absl::InfinitePast();  // unknown for a lease recovered after a restart
  };
  struct QueuedJob {
    kernelseek::v1::Job job;  // with source: handed to the worker on lease
    int attempts = 0;         // leases of the job in all, over its shards
    std::optional<kernelseek::v1::ShardPlan> plan;  // a bench job's, from its first lease on
  };
  // A job waiting for a worker: (job id, shard). Shard 0 for jobs that are
  // not benches and for benches not planned yet.
  using QueueEntry = std::pair<int64_t, int>;
  struct WorkerState {
    kernelseek::v1::WorkerInfo info;
    absl::Time last_stored;
    std::string instance_id;  // of the process that last synced under this name
    absl::Time last_sync;
  };

  // Each returns the status of the store write; state is changed only after it succeeded.
  absl::Status CompleteLocked(const kernelseek::v1::CurrentState::Completed& completed, const std::string& worker)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<std::optional<Lease>> LeaseNextLocked(const std::string& worker,
                                                       const kernelseek::v1::SynchronizeRequest& request)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends `lease` without a result: re-queue, or fail when attempts are used up.
  // Fails the job of a lease whose worker process died by a signal (its
  // supervisor's report), instead of re-queueing it.
  absl::Status FailCrashedLeaseLocked(const kernelseek::v1::CrashReport& crash, const std::string& worker)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status LoseLeaseLocked(const Lease& lease, const std::string& why) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A shard's result: kept, and once every shard is done the job finishes
  // with their merge; a shard that could not run fails the job.
  absl::Status CompleteShardLocked(const Lease& lease, const kernelseek::v1::CurrentState::Completed& completed)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends an unfinished job FAILED with `failure`, dropping all its leases
  // (their workers are told to stop at their next sync) and queue entries.
  absl::Status FailJobLocked(int64_t id, const std::string& failure) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The shards of bench job `queued`, planned for its first lease by
  // `request`'s worker: their count (RunOptions.shards, "auto": the idle
  // workers able to run it), their scenarios, and the gpu and driver every
  // shard must run with.
  kernelseek::v1::ShardPlan PlanShardsLocked(const QueuedJob& queued, const kernelseek::v1::SynchronizeRequest& request)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The spec handed to the worker of `lease`.
  kernelseek::v1::JobSpec SpecForLeaseLocked(const Lease& lease) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sets the live stage and progress of unfinished job `job` from its leases
  // and, for a bench, its shards.
  void AddLiveStateLocked(kernelseek::v1::Job* job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool IsQueuedLocked(int64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One of job `id`'s live leases (a bench may have one per shard), or null.
  const Lease* AnyLeaseOfLocked(int64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EraseLeasesAndQueueLocked(int64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status NoteWorkerLocked(const kernelseek::v1::SynchronizeRequest& request, const std::string& state)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ExpireLeasesLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Tells options_.events that job `job_id` (still in jobs_) ended in `state`;
  // `lease` is its lease, if it had one.
  void NoteFinishedLocked(int64_t job_id, kernelseek::v1::JobState state, const Lease* lease)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // `stored` (the store's worker rows) with what the queue knows live, as
  // ListWorkers returns them.
  std::vector<kernelseek::v1::WorkerInfo> WorkersLocked(std::vector<kernelseek::v1::WorkerInfo> stored)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sets queue_position and waiting_for of a job that is queued now;
  // `workers` as WorkersLocked returns them. A job no longer queued is left as is.
  void AnnotateQueuedLocked(kernelseek::v1::Job* job, const std::vector<kernelseek::v1::WorkerInfo>& workers)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Wakes job `id`'s watchers.
  void JobChangedLocked(int64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Job `id` entered or left the queue: wakes its watchers, those of the jobs
  // queued behind it and, when it is queued now, idle workers' long polls.
  void QueueMovedLocked(int64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Wakes the watchers of every queued job.
  void NotifyQueuedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  JobStore* const store_;
  const Clock* const clock_;
  const ProblemCatalog* const problems_;
  const JobQueueOptions options_;

  absl::Mutex mu_;
  // Queued jobs and shards in submission order; a re-queued one returns to
  // its place, and a bench's later shards come before younger jobs.
  std::set<QueueEntry> queue_ ABSL_GUARDED_BY(mu_);
  // Every unfinished job (queued or leased).
  std::map<int64_t, QueuedJob> jobs_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Lease> leases_ ABSL_GUARDED_BY(mu_);  // by lease id
  absl::flat_hash_map<std::string, WorkerState> workers_ ABSL_GUARDED_BY(mu_);
  bool shutdown_ ABSL_GUARDED_BY(mu_) = false;
  // Their callbacks run under mu_ (and their own lock).
  ChangeNotifier job_watchers_;   // by job id
  ChangeNotifier work_watchers_;  // one key: work was queued
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_JOB_QUEUE_H_
