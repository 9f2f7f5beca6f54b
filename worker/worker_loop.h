// WorkerLoop: the worker side of the WorkerHub protocol.
//
// Calls Synchronize with the worker's full state (idle, executing a lease at a
// stage, or completed with a result) and does what the answer says: start a
// job, keep going, or drop it. A finished result is held and re-sent until the
// server has answered the call that carried it, so a server restart loses
// nothing. Connection errors are retried with backoff; a rejected token ends
// Run with that error. One job at a time. Run on one thread; Stop from any.
#ifndef KERNELSEEK_WORKER_WORKER_LOOP_H_
#define KERNELSEEK_WORKER_WORKER_LOOP_H_

#include <memory>
#include <atomic>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "proto/kernelseek.grpc.pb.h"
#include "worker/job_executor.h"

namespace kseek {

struct WorkerLoopOptions {
  std::string name;
  std::string token;
  std::vector<kernelseek::v1::Property> capabilities;  // sorted, validated
  // Upper bound on one Synchronize call; must exceed the server's idle poll.
  absl::Duration max_call = absl::Seconds(60);
  absl::Duration max_backoff = absl::Seconds(5);
  // Holds the lease id while a job runs (empty: no such file), so that the
  // supervisor can tell which lease a dead worker process held.
  std::string lease_marker_path;
  // A lease this worker's previous process held when it died: reported on
  // every sync until one succeeds.
  kernelseek::v1::CrashReport crash;
  // This worker process's registration (see SynchronizeRequest.instance_id).
  std::string instance_id;
};

// The lease id a worker process wrote to `lease_marker_path` before dying,
// or "" when it held none.
std::string ReadLeaseMarker(const std::string& lease_marker_path);

class WorkerLoop {
 public:
  WorkerLoop(kernelseek::v1::WorkerHub::StubInterface* stub, JobExecutor* executor, WorkerLoopOptions options);

  // Returns after Stop (OK) or when the server rejects this worker for good
  // (UNAUTHENTICATED, PERMISSION_DENIED, INVALID_ARGUMENT).
  absl::Status Run();
  void Stop();

 private:
  // What a job thread shares with the loop; the thread may outlive its lease.
  struct RunningJob {
    std::string lease_id;
    // Set when the loop drops the job: its programs are killed (CancelScope).
    std::atomic<bool> cancelled{false};
    absl::Mutex mu;
    std::string stage ABSL_GUARDED_BY(mu);
    kernelseek::v1::Progress progress ABSL_GUARDED_BY(mu);
    uint64_t reports ABSL_GUARDED_BY(mu) = 0;  // stage/progress updates so far
    bool done ABSL_GUARDED_BY(mu) = false;
    absl::StatusOr<kernelseek::v1::JobResult> result ABSL_GUARDED_BY(mu);
  };

  void Start(const kernelseek::v1::DesiredState::Execute& execute);
  // Forgets the current job (and its lease marker); one still running is
  // kept in abandoned_ until its thread ends.
  void DropJob();
  // Why no lease may be taken now ("" when none): a dropped job still runs.
  std::string Draining();
  // Until every dropped job's thread has ended, `until` passes, or Stop.
  void WaitForAbandoned(absl::Time until);
  kernelseek::v1::CurrentState CurrentState();
  // Waits until the running job is done, `until` passes, or Stop.
  void WaitForJob(absl::Time until);

  kernelseek::v1::WorkerHub::StubInterface* const stub_;
  JobExecutor* const executor_;
  const WorkerLoopOptions options_;
  absl::Notification stop_;
  absl::Mutex call_mu_;
  grpc::ClientContext* call_ ABSL_GUARDED_BY(call_mu_) = nullptr;  // the Synchronize in flight
  std::shared_ptr<RunningJob> job_;  // only touched by Run's thread
  // Jobs the server moved off whose threads (and runners) still run: while
  // any does, the worker takes no lease, so two runs never share its GPU.
  std::vector<std::shared_ptr<RunningJob>> abandoned_;  // only Run's thread
  bool crash_reported_ = false;      // only touched by Run's thread
};

}  // namespace kseek

#endif  // KERNELSEEK_WORKER_WORKER_LOOP_H_
