#include "server/job_queue.h"

#include <algorithm>
#include <limits>

#include <google/protobuf/util/time_util.h>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "common/log.h"
#include "common/run_limits.h"
#include "common/properties.h"
#include "server/bench_shards.h"
#include "server/job_validation.h"

namespace kseek {
namespace {

using google::protobuf::util::TimeUtil;
using kernelseek::v1::CurrentState;
using kernelseek::v1::Job;
using kernelseek::v1::JobSpec;
using kernelseek::v1::SynchronizeRequest;
using kernelseek::v1::WorkerInfo;

// Worker rows are rewritten at most this often just to move last_seen.
constexpr absl::Duration kWorkerStoreInterval = absl::Seconds(10);

absl::StatusOr<int64_t> ParseJobId(const std::string& id) {
  int64_t value = 0;
  if (!absl::SimpleAtoi(id, &value) || value <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("\"", id, "\" is not a job id (job ids are positive integers)"));
  }
  return value;
}

google::protobuf::Timestamp ToTimestamp(absl::Time t) {
  return TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(t));
}

absl::Time FromTimestamp(const google::protobuf::Timestamp& t) {
  return absl::FromUnixMicros(TimeUtil::TimestampToMicroseconds(t));
}

// "verify" for JOB_KIND_VERIFY.
std::string JobKindWord(kernelseek::v1::JobKind kind) {
  std::string name = kernelseek::v1::JobKind_Name(kind);
  return absl::AsciiStrToLower(absl::StripPrefix(name, "JOB_KIND_"));
}

bool IsConnected(const WorkerInfo& worker) { return worker.state() != "offline"; }

// "arch=sm_90", and "ncu" for a requirement of any value.
std::string RequirementText(const kernelseek::v1::Property& p) {
  return p.value() == kAnyValue ? p.key() : absl::StrCat(p.key(), "=", p.value());
}

// A worker's values of the keys `requirements` name, e.g. "cpu-1 (compile=sm_90a,sm_100a, no arch)".
std::string WorkerText(const WorkerInfo& worker, const PropertyList& requirements) {
  std::vector<std::string> parts;
  for (const kernelseek::v1::Property& need : requirements) {
    auto have = std::find_if(worker.capabilities().begin(), worker.capabilities().end(),
                             [&](const kernelseek::v1::Property& p) { return p.key() == need.key(); });
    parts.push_back(have == worker.capabilities().end() ? absl::StrCat("no ", need.key())
                                                        : absl::StrCat(have->key(), "=", have->value()));
  }
  return absl::StrCat(worker.name(), " (", absl::StrJoin(parts, ", "), ")");
}

// Why no connected worker of `workers` can run a job with `requirements`:
// the requirement none meets (or that none meets them together) and the
// workers there are; empty when one can.
std::string NoWorkerReason(const PropertyList& requirements, const std::vector<WorkerInfo>& workers) {
  std::vector<const WorkerInfo*> connected;
  std::vector<std::string> offline_matching;
  for (const WorkerInfo& w : workers) {
    const bool matches = RequirementsMatch(requirements, w.capabilities());
    if (IsConnected(w)) {
      if (matches) return "";
      connected.push_back(&w);
    } else if (matches) {
      offline_matching.push_back(w.name());
    }
  }
  std::string reason;
  if (connected.empty()) {
    reason = "no worker is connected";
  } else {
    std::string unmet;
    for (const kernelseek::v1::Property& need : requirements) {
      PropertyList one;
      *one.Add() = need;
      const bool anyone = std::any_of(connected.begin(), connected.end(),
                                      [&](const WorkerInfo* w) { return RequirementsMatch(one, w->capabilities()); });
      if (!anyone) {
        unmet = RequirementText(need);
        break;
      }
    }
    std::vector<std::string> all;
    for (const kernelseek::v1::Property& need : requirements) all.push_back(RequirementText(need));
    std::vector<std::string> listed;
    for (const WorkerInfo* w : connected) listed.push_back(WorkerText(*w, requirements));
    if (unmet.empty()) unmet = absl::StrCat("all of ", absl::StrJoin(all, ", "));
    reason = absl::StrCat("no connected worker has ", unmet, " (workers: ", absl::StrJoin(listed, "; "), ")");
  }
  if (!offline_matching.empty()) {
    absl::StrAppend(&reason, "; ", absl::StrJoin(offline_matching, ", "), offline_matching.size() == 1 ? " is" : " are",
                    " offline");
  }
  return reason;
}

}  // namespace

JobQueue::JobQueue(JobStore* store, const Clock* clock, const ProblemCatalog* problems, JobQueueOptions options)
    : store_(store), clock_(clock), problems_(problems), options_(options) {}

absl::Status JobQueue::Recover() {
  absl::StatusOr<std::vector<UnfinishedJob>> unfinished = store_->LoadUnfinishedJobs();
  if (!unfinished.ok()) return unfinished.status();
  absl::MutexLock lock(&mu_);
  absl::Time deadline = clock_->Now() + options_.lease_timeout;
  for (UnfinishedJob& u : *unfinished) {
    int64_t id = 0;
    if (!absl::SimpleAtoi(u.job.id(), &id)) return absl::DataLossError("stored job id is not a number");
    int attempts = u.job.attempts();
    if (u.plan.has_value()) {
      // A planned bench: its shards as they were, leased ones keeping their
      // lease (as whole jobs do below), the others queued.
      for (int i = 0; i < u.plan->shards_size(); ++i) {
        const kernelseek::v1::ShardPlan::Shard& shard = u.plan->shards(i);
        if (shard.done()) continue;
        if (!shard.lease_id().empty()) {
          leases_[shard.lease_id()] = Lease{shard.lease_id(), id, shard.info().worker(), deadline, "leased", {}, i};
        } else {
          queue_.insert({id, i});
        }
      }
    } else if (u.job.state() == kernelseek::v1::JOB_STATE_LEASED && !u.lease_id.empty()) {
      leases_[u.lease_id] = Lease{u.lease_id, id, u.job.worker(), deadline, "leased"};
    } else {
      queue_.insert({id, 0});
    }
    jobs_[id] = QueuedJob{std::move(u.job), attempts, std::move(u.plan)};
  }
  work_watchers_.NotifyAll();
  Log(absl::StrCat("recovered ", queue_.size(), " queued and ", leases_.size(), " leased jobs"));
  return absl::OkStatus();
}

absl::StatusOr<std::string> JobQueue::Submit(const std::string& user, const std::string& team, JobSpec spec,
                                             SubmitOptions options) {
  absl::StatusOr<std::vector<kernelseek::v1::Property>> requirements = ValidateJobSpec(&spec, *problems_);
  if (!requirements.ok()) return requirements.status();
  Job job;
  job.set_user(user);
  job.set_team(team);
  *job.mutable_spec() = std::move(spec);
  for (auto& p : *requirements) *job.add_requirements() = std::move(p);
  *job.mutable_created() = ToTimestamp(clock_->Now());
  job.set_state(kernelseek::v1::JOB_STATE_QUEUED);

  absl::StatusOr<std::vector<WorkerInfo>> stored_workers = store_->ListWorkers();
  if (!stored_workers.ok()) return stored_workers.status();
  absl::MutexLock lock(&mu_);
  if (!options.wait_for_worker) {
    // A job that no worker can take would wait until one connects, which
    // may be never: the submitter is told now, and says so to queue anyway.
    const std::string reason = NoWorkerReason(job.requirements(), WorkersLocked(*std::move(stored_workers)));
    if (!reason.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "no connected worker can run this ", JobKindWord(job.spec().kind()), " job: ", reason,
          "; nothing was queued"));
    }
  }
  // Stored before it is acknowledged, under the lock so queue order is id order.
  absl::StatusOr<int64_t> id = store_->InsertJob(job);
  if (!id.ok()) return id.status();
  job.set_id(absl::StrCat(*id));
  jobs_[*id] = QueuedJob{std::move(job), 0};
  queue_.insert({*id, 0});
  QueueMovedLocked(*id);
  return absl::StrCat(*id);
}

absl::StatusOr<Job> JobQueue::Cancel(const std::string& by, const std::string& id_text) {
  absl::StatusOr<Job> job = GetJob(id_text);
  if (!job.ok()) return job.status();
  const int64_t id = *ParseJobId(id_text);
  {
    absl::MutexLock lock(&mu_);
    auto queued = jobs_.find(id);
    if (queued == jobs_.end()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "job ", id_text, " has already ended (", kernelseek::v1::JobState_Name(job->state()), ")"));
    }
    if (absl::Status s = store_->CancelJob(id, by, clock_->Now()); !s.ok()) return s;
    Log(absl::StrCat("job ", id, " cancelled by ", by));
    // Every shard's lease goes: each worker running one drops it.
    NoteFinishedLocked(id, kernelseek::v1::JOB_STATE_CANCELLED, AnyLeaseOfLocked(id));
    EraseLeasesAndQueueLocked(id);
    jobs_.erase(queued);
    QueueMovedLocked(id);
  }
  return GetJob(id_text);
}

absl::StatusOr<Job> JobQueue::GetJob(const std::string& id_text) {
  absl::StatusOr<int64_t> id = ParseJobId(id_text);
  if (!id.ok()) return id.status();
  absl::StatusOr<std::optional<Job>> stored = store_->GetJob(*id);
  if (!stored.ok()) return stored.status();
  if (!stored->has_value()) return absl::NotFoundError(absl::StrCat("no job with id ", id_text));
  Job job = **std::move(stored);
  std::vector<WorkerInfo> stored_workers;
  if (job.state() == kernelseek::v1::JOB_STATE_QUEUED) {
    absl::StatusOr<std::vector<WorkerInfo>> workers = store_->ListWorkers();
    if (!workers.ok()) return workers.status();
    stored_workers = *std::move(workers);
  }
  absl::MutexLock lock(&mu_);
  if (job.state() == kernelseek::v1::JOB_STATE_QUEUED) {
    job.set_stage("queued");
    AnnotateQueuedLocked(&job, WorkersLocked(std::move(stored_workers)));
  }
  AddLiveStateLocked(&job);
  return job;
}

absl::StatusOr<std::vector<Job>> JobQueue::ListJobs(const JobFilter& filter) {
  absl::StatusOr<std::vector<Job>> jobs = store_->ListJobs(filter);
  if (!jobs.ok()) return jobs.status();
  absl::StatusOr<std::vector<WorkerInfo>> stored_workers = store_->ListWorkers();
  if (!stored_workers.ok()) return stored_workers.status();
  absl::MutexLock lock(&mu_);
  const std::vector<WorkerInfo> workers = WorkersLocked(*std::move(stored_workers));
  for (Job& job : *jobs) {
    AddLiveStateLocked(&job);
    if (job.state() == kernelseek::v1::JOB_STATE_QUEUED) {
      job.set_stage("queued");
      AnnotateQueuedLocked(&job, workers);
    }
  }
  return jobs;
}

std::vector<WorkerInfo> JobQueue::ListWorkers() {
  absl::StatusOr<std::vector<WorkerInfo>> stored = store_->ListWorkers();
  absl::MutexLock lock(&mu_);
  return WorkersLocked(stored.ok() ? *std::move(stored) : std::vector<WorkerInfo>{});
}

std::vector<WorkerInfo> JobQueue::WorkersLocked(std::vector<WorkerInfo> workers) {
  absl::Time now = clock_->Now();
  for (WorkerInfo& w : workers) {
    auto it = workers_.find(w.name());
    if (it != workers_.end()) w = it->second.info;
    absl::Time last_seen = absl::FromUnixMicros(TimeUtil::TimestampToMicroseconds(w.last_seen()));
    if (now - last_seen > options_.offline_after) w.set_state("offline");
  }
  return workers;
}

void JobQueue::AnnotateQueuedLocked(Job* job, const std::vector<WorkerInfo>& workers) {
  int64_t id = 0;
  // Read from the store before the lock: it may have been leased or ended since.
  if (!absl::SimpleAtoi(job->id(), &id) || !IsQueuedLocked(id)) return;
  std::vector<const WorkerInfo*> able;
  for (const WorkerInfo& w : workers) {
    if (IsConnected(w) && RequirementsMatch(job->requirements(), w.capabilities())) able.push_back(&w);
  }
  if (able.empty()) {
    job->set_queue_position(0);
    job->set_waiting_for(NoWorkerReason(job->requirements(), workers));
    return;
  }
  // A worker takes the oldest queued job it matches, so what delays this job
  // is an older one that a worker able to run this one would take first.
  int ahead = 0;
  int64_t last = 0;
  for (const auto& [other, shard] : queue_) {
    if (other >= id) break;
    if (other == last) continue;  // a job's other shards
    last = other;
    auto it = jobs_.find(other);
    if (it == jobs_.end()) continue;
    const PropertyList& needs = it->second.job.requirements();
    if (std::any_of(able.begin(), able.end(),
                    [&](const WorkerInfo* w) { return RequirementsMatch(needs, w->capabilities()); })) {
      ++ahead;
    }
  }
  job->set_queue_position(ahead + 1);
  std::vector<std::string> busy;
  const WorkerInfo* idle = nullptr;
  for (const WorkerInfo* w : able) {
    if (w->state() == "idle") {
      if (idle == nullptr) idle = w;
    } else {
      busy.push_back(absl::StrCat(w->name(), " ", w->state()));
    }
  }
  std::string reason;
  if (ahead > 0) reason = absl::StrCat(ahead, ahead == 1 ? " job" : " jobs", " ahead");
  if (idle == nullptr) {
    absl::StrAppend(&reason, reason.empty() ? "" : ", ", able.size() == 1 ? "its only matching worker is busy"
                                                                          : "every matching worker is busy",
                    " (", absl::StrJoin(busy, ", "), ")");
  } else if (ahead == 0) {
    reason = absl::StrCat(idle->name(), " is idle and takes it at its next call");
  }
  job->set_waiting_for(std::move(reason));
}

absl::StatusOr<ChangeNotifier::Subscription> JobQueue::SubscribeJob(const std::string& id,
                                                                    std::function<void()> on_change) {
  absl::StatusOr<int64_t> job_id = ParseJobId(id);
  if (!job_id.ok()) return job_id.status();
  return job_watchers_.Subscribe(*job_id, std::move(on_change));
}

ChangeNotifier::Subscription JobQueue::SubscribeWork(std::function<void()> on_work) {
  return work_watchers_.Subscribe(0, std::move(on_work));
}

void JobQueue::JobChangedLocked(int64_t id) { job_watchers_.Notify(id); }

void JobQueue::QueueMovedLocked(int64_t id) {
  job_watchers_.Notify(id);
  // The queue_position and waiting_for of the jobs behind it are computed
  // from the queue's order. Found from the watchers, not by walking the
  // queue: a lease from a queue of 10,000 would otherwise visit them all.
  job_watchers_.NotifyAfter(id, [this](int64_t key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return IsQueuedLocked(key); });
  if (IsQueuedLocked(id)) work_watchers_.NotifyAll();
}

void JobQueue::NotifyQueuedLocked() {
  job_watchers_.NotifyAfter(std::numeric_limits<int64_t>::min(),
                            [this](int64_t key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return IsQueuedLocked(key); });
}

void JobQueue::Shutdown() {
  {
    absl::MutexLock lock(&mu_);
    shutdown_ = true;
  }
  job_watchers_.NotifyAll();
  work_watchers_.NotifyAll();
}

bool JobQueue::shutting_down() {
  absl::MutexLock lock(&mu_);
  return shutdown_;
}

QueueDepth JobQueue::Depth() {
  absl::MutexLock lock(&mu_);
  return {static_cast<int64_t>(queue_.size()), static_cast<int64_t>(jobs_.size() - queue_.size())};
}

void JobQueue::NoteFinishedLocked(int64_t job_id, kernelseek::v1::JobState state, const Lease* lease) {
  auto it = jobs_.find(job_id);
  if (options_.events == nullptr || it == jobs_.end()) return;
  const absl::Time now = clock_->Now();
  std::optional<absl::Duration> run_time;
  if (lease != nullptr && lease->leased_at != absl::InfinitePast()) run_time = now - lease->leased_at;
  options_.events->JobFinished(it->second.job.spec().kind(), state, now - FromTimestamp(it->second.job.created()),
                               run_time);
}

void JobQueue::ExpireLeases() {
  absl::MutexLock lock(&mu_);
  ExpireLeasesLocked();
}

void JobQueue::ExpireLeasesLocked() {
  absl::Time now = clock_->Now();
  std::vector<Lease> lapsed;
  for (const auto& [id, lease] : leases_) {
    if (lease.deadline < now) lapsed.push_back(lease);
  }
  for (const Lease& lease : lapsed) {
    absl::Status s = LoseLeaseLocked(
        lease, absl::StrCat("worker ", lease.worker, " missed its sync deadline ",
                            absl::FormatTime("%H:%M:%S", lease.deadline, absl::UTCTimeZone()), " UTC"));
    if (s.ok() && options_.events != nullptr) options_.events->LeaseExpired();
    // The lease stays and is retried on the next pass.
    if (!s.ok()) Log(absl::StrCat("cannot expire lease ", lease.lease_id, ": ", s.message()));
  }
}

absl::Status JobQueue::LoseLeaseLocked(const Lease& lease, const std::string& why) {
  auto job_it = jobs_.find(lease.job_id);
  // Every lease is for an unfinished job: finishing a job erases its lease first.
  if (job_it == jobs_.end()) {
    leases_.erase(lease.lease_id);
    return absl::OkStatus();
  }
  if (lease.shard >= 0 && job_it->second.plan.has_value()) {
    kernelseek::v1::ShardPlan plan = *job_it->second.plan;
    kernelseek::v1::ShardPlan::Shard* shard = plan.mutable_shards(lease.shard);
    const int shards = plan.shards_size();
    if (shard->info().attempts() >= options_.max_attempts) {
      return FailJobLocked(lease.job_id, absl::StrCat(shards > 1 ? absl::StrCat("shard ", lease.shard + 1, " of ", shards,
                                                                                " (", shard->info().scenarios_size(),
                                                                                " scenarios) ")
                                                                 : "",
                                                      "gave up after ", shard->info().attempts(), " attempts; last: ", why));
    }
    shard->clear_lease_id();
    const bool others_started = std::any_of(plan.shards().begin(), plan.shards().end(), [](const auto& other) {
      return other.done() || !other.lease_id().empty();
    });
    if (absl::Status s = store_->SaveShardPlan(lease.job_id, plan); !s.ok()) return s;
    // While another shard runs or has run, the job is still under way.
    if (!others_started) {
      if (absl::Status s = store_->RequeueJob(lease.job_id); !s.ok()) return s;
      job_it->second.job.set_state(kernelseek::v1::JOB_STATE_QUEUED);
    }
    Log(absl::StrCat("job ", lease.job_id, shards > 1 ? absl::StrCat(" shard ", lease.shard + 1) : "", " re-queued: ", why));
    job_it->second.plan = std::move(plan);
    queue_.insert({lease.job_id, lease.shard});
    leases_.erase(lease.lease_id);
    QueueMovedLocked(lease.job_id);
    return absl::OkStatus();
  }
  if (job_it->second.attempts >= options_.max_attempts) {
    std::string failure = absl::StrCat("gave up after ", job_it->second.attempts, " attempts; last: ", why);
    if (absl::Status s = store_->FinishJob(lease.job_id, kernelseek::v1::JOB_STATE_FAILED, failure, nullptr,
                                           clock_->Now());
        !s.ok()) {
      return s;
    }
    Log(absl::StrCat("job ", lease.job_id, " failed: ", failure));
    NoteFinishedLocked(lease.job_id, kernelseek::v1::JOB_STATE_FAILED, &lease);
    jobs_.erase(job_it);
  } else {
    if (absl::Status s = store_->RequeueJob(lease.job_id); !s.ok()) return s;
    Log(absl::StrCat("job ", lease.job_id, " re-queued: ", why));
    job_it->second.job.set_state(kernelseek::v1::JOB_STATE_QUEUED);
    queue_.insert({lease.job_id, 0});
  }
  leases_.erase(lease.lease_id);
  QueueMovedLocked(lease.job_id);
  return absl::OkStatus();
}

absl::Status JobQueue::FailCrashedLeaseLocked(const kernelseek::v1::CrashReport& crash, const std::string& worker) {
  auto it = leases_.find(crash.lease_id());
  // Already lapsed and re-queued, or not this worker's: nothing to fail.
  if (it == leases_.end() || it->second.worker != worker) return absl::OkStatus();
  const int64_t job_id = it->second.job_id;
  const std::string failure =
      absl::StrCat("worker ", worker, " died while running this job (", crash.reason().substr(0, 200),
                   "); not retried, so that it cannot take down another worker");
  return FailJobLocked(job_id, failure);
}

absl::Status JobQueue::FailJobLocked(int64_t id, const std::string& failure) {
  if (absl::Status s = store_->FinishJob(id, kernelseek::v1::JOB_STATE_FAILED, failure, nullptr, clock_->Now());
      !s.ok()) {
    return s;
  }
  Log(absl::StrCat("job ", id, " failed: ", failure));
  NoteFinishedLocked(id, kernelseek::v1::JOB_STATE_FAILED, AnyLeaseOfLocked(id));
  EraseLeasesAndQueueLocked(id);
  jobs_.erase(id);
  QueueMovedLocked(id);
  return absl::OkStatus();
}

const JobQueue::Lease* JobQueue::AnyLeaseOfLocked(int64_t id) {
  for (const auto& [lease_id, lease] : leases_) {
    if (lease.job_id == id) return &lease;
  }
  return nullptr;
}

void JobQueue::EraseLeasesAndQueueLocked(int64_t id) {
  std::vector<std::string> gone;
  for (const auto& [lease_id, lease] : leases_) {
    if (lease.job_id == id) gone.push_back(lease_id);
  }
  for (const std::string& lease_id : gone) leases_.erase(lease_id);
  queue_.erase(queue_.lower_bound({id, std::numeric_limits<int>::min()}),
               queue_.lower_bound({id + 1, std::numeric_limits<int>::min()}));
}

bool JobQueue::IsQueuedLocked(int64_t id) {
  auto it = queue_.lower_bound({id, std::numeric_limits<int>::min()});
  return it != queue_.end() && it->first == id;
}

absl::Status JobQueue::CompleteLocked(const CurrentState::Completed& completed, const std::string& worker) {
  auto it = leases_.find(completed.lease_id());
  if (it == leases_.end() || it->second.worker != worker) {
    Log(absl::StrCat("ignored completion of lease ", completed.lease_id(), " from ", worker,
                     ": no such live lease (late or duplicate)"));
    return absl::OkStatus();
  }
  const Lease lease = it->second;
  if (lease.shard >= 0) return CompleteShardLocked(lease, completed);
  bool failed = !completed.error().empty() || !completed.has_result();
  std::string failure = failed ? (completed.error().empty() ? "worker reported no result" : completed.error()) : "";
  if (absl::Status s = store_->FinishJob(
          lease.job_id, failed ? kernelseek::v1::JOB_STATE_FAILED : kernelseek::v1::JOB_STATE_SUCCEEDED, failure,
          failed ? nullptr : &completed.result(), clock_->Now());
      !s.ok()) {
    return s;
  }
  NoteFinishedLocked(lease.job_id, failed ? kernelseek::v1::JOB_STATE_FAILED : kernelseek::v1::JOB_STATE_SUCCEEDED,
                     &lease);
  leases_.erase(it);
  jobs_.erase(lease.job_id);
  JobChangedLocked(lease.job_id);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<JobQueue::Lease>> JobQueue::LeaseNextLocked(const std::string& worker,
                                                                         const SynchronizeRequest& request) {
  for (auto entry = queue_.begin(); entry != queue_.end(); ++entry) {
    const auto [id, shard] = *entry;
    QueuedJob& queued = jobs_.at(id);
    if (!RequirementsMatch(queued.job.requirements(), request.capabilities())) continue;
    const int attempts = queued.attempts + 1;
    const absl::Time deadline = clock_->Now() + options_.lease_timeout;
    if (queued.job.spec().kind() != kernelseek::v1::JOB_KIND_BENCH) {
      Lease lease{absl::StrCat("L", id, ".", attempts), id, worker, deadline, "leased"};
      lease.leased_at = clock_->Now();
      if (absl::Status s = store_->LeaseJob(id, worker, lease.lease_id, attempts); !s.ok()) return s;
      queued.attempts = attempts;
      queued.job.set_state(kernelseek::v1::JOB_STATE_LEASED);
      queue_.erase(entry);
      leases_[lease.lease_id] = lease;
      QueueMovedLocked(id);
      return lease;
    }
    // A bench: its shards are planned by the first lease, and every later
    // one needs the first one's GPU model and driver.
    const bool planned = queued.plan.has_value();
    if (planned && !RequirementsMatch(queued.plan->pinned(), request.capabilities())) continue;
    kernelseek::v1::ShardPlan plan = planned ? *queued.plan : PlanShardsLocked(queued, request);
    kernelseek::v1::ShardPlan::Shard* leased = plan.mutable_shards(shard);
    leased->mutable_info()->set_attempts(leased->info().attempts() + 1);
    leased->mutable_info()->set_worker(worker);
    // One shard: the lease ids of a job that runs whole.
    leased->set_lease_id(plan.shards_size() == 1
                             ? absl::StrCat("L", id, ".", attempts)
                             : absl::StrCat("L", id, ".s", shard + 1, ".", leased->info().attempts()));
    Lease lease{leased->lease_id(), id, worker, deadline, "leased", {}, shard};
    lease.leased_at = clock_->Now();
    std::vector<std::string> workers;
    for (const auto& s : plan.shards()) {
      if (!s.info().worker().empty() && std::find(workers.begin(), workers.end(), s.info().worker()) == workers.end()) {
        workers.push_back(s.info().worker());
      }
    }
    if (absl::Status s = store_->SaveShardPlan(id, plan); !s.ok()) return s;
    if (absl::Status s = store_->LeaseJob(id, absl::StrJoin(workers, ","), lease.lease_id, attempts); !s.ok()) return s;
    queued.attempts = attempts;
    queued.job.set_state(kernelseek::v1::JOB_STATE_LEASED);
    queue_.erase(entry);
    if (!planned) {
      for (int i = 1; i < plan.shards_size(); ++i) queue_.insert({id, i});
      Log(absl::StrCat("job ", id, ": ", plan.shards_size(), plan.shards_size() == 1 ? " shard" : " shards", " on ",
                       absl::StrJoin(plan.pinned(), ", ", [](std::string* out, const kernelseek::v1::Property& p) {
                         absl::StrAppend(out, p.key(), "=", p.value());
                       })));
    }
    queued.plan = std::move(plan);
    leases_[lease.lease_id] = lease;
    QueueMovedLocked(id);
    return lease;
  }
  return std::nullopt;
}

absl::Status JobQueue::NoteWorkerLocked(const SynchronizeRequest& request, const std::string& state) {
  absl::Time now = clock_->Now();
  WorkerState& w = workers_[request.worker_name()];
  w.instance_id = request.instance_id();
  w.last_sync = clock_->Now();
  bool changed = w.info.name().empty() || w.info.state() != state ||
                 w.info.capabilities_size() != request.capabilities_size() || now - w.last_stored > kWorkerStoreInterval;
  w.info.set_name(request.worker_name());
  *w.info.mutable_capabilities() = request.capabilities();
  w.info.set_state(state);
  *w.info.mutable_last_seen() = ToTimestamp(now);
  if (!changed) return absl::OkStatus();
  // What a queued job waits for names the workers able to run it and their states.
  NotifyQueuedLocked();
  w.last_stored = now;
  return store_->UpsertWorker(w.info);
}

absl::StatusOr<SyncResult> JobQueue::Synchronize(const SynchronizeRequest& request) {
  const std::string& worker = request.worker_name();
  if (worker.empty()) return absl::InvalidArgumentError("worker_name is empty");
  if (absl::Status s = ValidateProperties(request.capabilities()); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("capabilities of worker ", worker, ": ", s.message()));
  }
  absl::MutexLock lock(&mu_);
  ExpireLeasesLocked();
  absl::Time now = clock_->Now();
  SyncResult result;
  const CurrentState& current = request.current_state();
  if (auto known = workers_.find(worker); known != workers_.end() && !request.instance_id().empty() &&
                                          !known->second.instance_id.empty() &&
                                          known->second.instance_id != request.instance_id()) {
    // Another process holds this name while it keeps syncing; once it has
    // been silent for a lease timeout and a poll, it is gone and the name free.
    const absl::Duration silent = now - known->second.last_sync;
    if (silent < options_.lease_timeout + options_.idle_poll) {
      return absl::AlreadyExistsError(absl::StrCat(
          "a worker named ", worker, " is already connected (its last sync ", absl::FormatDuration(absl::Trunc(silent, absl::Seconds(1))),
          " ago): give this one another --name (one worker per GPU: --gpu N names it HOST-gpuN)"));
    }
  }
  if (request.has_crash()) {
    if (absl::Status s = FailCrashedLeaseLocked(request.crash(), worker); !s.ok()) return s;
  }

  if (current.has_executing()) {
    auto it = leases_.find(current.executing().lease_id());
    if (it != leases_.end() && it->second.worker == worker) {
      Lease& lease = it->second;
      lease.deadline = now + options_.lease_timeout;
      const auto& executing = current.executing();
      if (!executing.stage().empty() && executing.stage() != lease.stage) {
        lease.stage = executing.stage();
        JobChangedLocked(lease.job_id);
      }
      if (executing.progress().done() != lease.progress.done() ||
          executing.progress().total() != lease.progress.total()) {
        lease.progress = executing.progress();
        JobChangedLocked(lease.job_id);
      }
      auto* execute = result.desired_state.mutable_execute();
      execute->set_lease_id(lease.lease_id);
      execute->set_job_id(absl::StrCat(lease.job_id));
      result.next_sync_deadline = lease.deadline;
      if (absl::Status s = NoteWorkerLocked(request, absl::StrCat("running job ", lease.job_id)); !s.ok()) return s;
      return result;
    }
    // The lease lapsed or is unknown: the worker must drop the job, and gets
    // no other in this answer, since that job's runner may still hold its
    // GPU (it says when it is free by no longer draining).
    Log(absl::StrCat("worker ", worker, " runs lease ", current.executing().lease_id(), " which is not live; told to stop"));
    result.desired_state.mutable_idle();
    result.next_sync_deadline = now + options_.idle_poll + options_.lease_timeout;
    if (absl::Status s = NoteWorkerLocked(request, "dropping a lapsed lease"); !s.ok()) return s;
    return result;
  } else if (current.has_completed()) {
    if (absl::Status s = CompleteLocked(current.completed(), worker); !s.ok()) return s;
  }
  // An idle worker holds nothing: any lease still recorded for it was lost,
  // e.g. because the worker restarted mid-job.
  if (!current.has_executing()) {
    std::vector<Lease> orphaned;
    for (const auto& [id, lease] : leases_) {
      if (lease.worker == worker) orphaned.push_back(lease);
    }
    for (const Lease& lease : orphaned) {
      if (absl::Status s = LoseLeaseLocked(lease, absl::StrCat("worker ", worker, " came back idle")); !s.ok()) {
        return s;
      }
    }
  }

  if (!request.draining().empty()) {
    result.desired_state.mutable_idle();
    result.next_sync_deadline = now + options_.idle_poll + options_.lease_timeout;
    if (absl::Status s = NoteWorkerLocked(request, absl::StrCat("draining: ", request.draining())); !s.ok()) return s;
    return result;
  }
  absl::StatusOr<std::optional<Lease>> lease = LeaseNextLocked(worker, request);
  if (!lease.ok()) return lease.status();
  if (lease->has_value()) {
    const Lease& l = **lease;
    auto* execute = result.desired_state.mutable_execute();
    execute->set_lease_id(l.lease_id);
    execute->set_job_id(absl::StrCat(l.job_id));
    *execute->mutable_spec() = SpecForLeaseLocked(l);
    result.next_sync_deadline = l.deadline;
    if (absl::Status s = NoteWorkerLocked(request, absl::StrCat("running job ", l.job_id)); !s.ok()) return s;
    return result;
  }
  result.desired_state.mutable_idle();
  result.next_sync_deadline = now + options_.idle_poll + options_.lease_timeout;
  if (absl::Status s = NoteWorkerLocked(request, "idle"); !s.ok()) return s;
  return result;
}

kernelseek::v1::ShardPlan JobQueue::PlanShardsLocked(const QueuedJob& queued, const SynchronizeRequest& request) {
  kernelseek::v1::ShardPlan plan;
  for (const kernelseek::v1::Property& p : request.capabilities()) {
    if (p.key() == "gpu" || p.key() == "driver") *plan.add_pinned() = p;
  }
  // The job's scenarios in its order, as the worker will select them.
  std::vector<std::string> ids;
  const kernelseek::v1::RunOptions& run = queued.job.spec().run();
  if (absl::StatusOr<const Problem*> problem = problems_->Find(run.problem()); problem.ok()) {
    if (auto selected = (*problem)->Select(run.scenarios()); selected.ok()) {
      for (const kernelseek::v1::ScenarioSpec* s : *selected) ids.push_back(s->id());
    }
  }
  int idle = 1;  // the worker asking
  const absl::Time now = clock_->Now();
  if (run.shards() == kAutoBenchShards) {
    for (const auto& [name, w] : workers_) {
      if (name == request.worker_name() || w.info.state() != "idle" || now - w.last_sync > options_.offline_after) {
        continue;
      }
      if (RequirementsMatch(queued.job.requirements(), w.info.capabilities()) &&
          RequirementsMatch(plan.pinned(), w.info.capabilities())) {
        ++idle;
      }
    }
  }
  const int count = ShardCount(run.shards(), idle, static_cast<int>(ids.size()));
  // The server could not resolve the selection (its files changed since the
  // submit): one shard runs the job's own selection, as the worker resolves it.
  const std::vector<std::vector<std::string>> split =
      ids.empty() ? std::vector<std::vector<std::string>>(1) : SplitScenarios(ids, count);
  for (size_t i = 0; i < split.size(); ++i) {
    kernelseek::v1::BenchShard* info = plan.add_shards()->mutable_info();
    info->set_index(static_cast<int32_t>(i));
    for (const std::string& id : split[i]) info->add_scenarios(id);
  }
  return plan;
}

kernelseek::v1::JobSpec JobQueue::SpecForLeaseLocked(const Lease& lease) {
  const QueuedJob& queued = jobs_.at(lease.job_id);
  if (lease.shard < 0 || !queued.plan.has_value()) return queued.job.spec();
  return ShardSpec(queued.job.spec(), *queued.plan, lease.shard);
}

absl::Status JobQueue::CompleteShardLocked(const Lease& lease, const CurrentState::Completed& completed) {
  QueuedJob& queued = jobs_.at(lease.job_id);
  kernelseek::v1::ShardPlan plan = *queued.plan;
  const int shards = plan.shards_size();
  const std::string which = shards > 1 ? absl::StrCat("shard ", lease.shard + 1, " of ", shards, " on ", lease.worker, ": ") : "";
  if (!completed.error().empty() || !completed.has_result() || !completed.result().has_run()) {
    return FailJobLocked(lease.job_id,
                         absl::StrCat(which, completed.error().empty() ? "worker reported no result" : completed.error()));
  }
  kernelseek::v1::ShardPlan::Shard* shard = plan.mutable_shards(lease.shard);
  shard->set_done(true);
  shard->clear_lease_id();
  shard->mutable_info()->set_worker(lease.worker);
  *shard->mutable_result() = completed.result().run();
  // A build that failed fails on every shard alike: nothing more to wait for.
  const bool finished =
      !shard->result().compile().success() ||
      std::all_of(plan.shards().begin(), plan.shards().end(), [](const auto& s) { return s.done(); });
  if (!finished) {
    if (absl::Status s = store_->SaveShardPlan(lease.job_id, plan); !s.ok()) return s;
    queued.plan = std::move(plan);
    leases_.erase(lease.lease_id);
    JobChangedLocked(lease.job_id);
    return absl::OkStatus();
  }
  kernelseek::v1::JobResult result;
  *result.mutable_run() = MergeShardResults(plan);
  if (absl::Status s = store_->SaveShardPlan(lease.job_id, plan); !s.ok()) return s;
  if (absl::Status s = store_->FinishJob(lease.job_id, kernelseek::v1::JOB_STATE_SUCCEEDED, "", &result, clock_->Now());
      !s.ok()) {
    return s;
  }
  NoteFinishedLocked(lease.job_id, kernelseek::v1::JOB_STATE_SUCCEEDED, &lease);
  EraseLeasesAndQueueLocked(lease.job_id);
  jobs_.erase(lease.job_id);
  QueueMovedLocked(lease.job_id);
  return absl::OkStatus();
}

void JobQueue::AddLiveStateLocked(Job* job) {
  int64_t id = 0;
  if (!absl::SimpleAtoi(job->id(), &id)) return;
  auto it = jobs_.find(id);
  const kernelseek::v1::ShardPlan* plan =
      it != jobs_.end() && it->second.plan.has_value() ? &*it->second.plan : nullptr;
  if (plan == nullptr || plan->shards_size() == 1) {
    for (const auto& [lease_id, lease] : leases_) {
      if (lease.job_id != id) continue;
      job->set_stage(lease.stage);
      if (lease.progress.total() > 0) *job->mutable_progress() = lease.progress;
    }
    if (plan != nullptr && job->progress().total() > 0) job->mutable_progress()->set_shards(1);
    return;
  }
  // Several shards: scenarios done over all of them, and what each running
  // shard's worker is doing.
  const int rounds = std::max(1, job->spec().run().rounds());
  kernelseek::v1::Progress progress;
  progress.set_shards(plan->shards_size());
  std::vector<std::string> running;
  for (const kernelseek::v1::ShardPlan::Shard& shard : plan->shards()) {
    const int total = shard.info().scenarios_size() * rounds;
    progress.set_total(progress.total() + total);
    if (shard.done()) {
      progress.set_done(progress.done() + total);
      progress.set_shards_done(progress.shards_done() + 1);
      continue;
    }
    auto lease = leases_.find(shard.lease_id());
    if (shard.lease_id().empty() || lease == leases_.end()) continue;
    progress.set_done(progress.done() + std::min(total, lease->second.progress.done()));
    running.push_back(absl::StrCat(lease->second.worker, ": ", lease->second.stage));
  }
  job->set_stage(absl::StrCat(progress.shards_done(), " of ", progress.shards(), " shards done",
                              running.empty() ? "" : "; ", absl::StrJoin(running, "; ")));
  *job->mutable_progress() = progress;
}

}  // namespace kseek
