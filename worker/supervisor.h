// Supervise: runs the worker's loop in a child process and starts it again
// when it dies by a signal, reporting the lease it held (read from the lease
// marker file) so that the server fails that job instead of handing it to
// another worker to crash. SIGTERM and SIGINT are passed on to the child and
// end supervision. A child that exits by itself ends it with its exit code.
//
// Call from a process with no threads yet (fork copies only the caller), with
// SIGTERM and SIGINT blocked. The child dies with the supervisor
// (PR_SET_PDEATHSIG).
#ifndef KERNELSEEK_WORKER_SUPERVISOR_H_
#define KERNELSEEK_WORKER_SUPERVISOR_H_

#include <functional>
#include <string>

#include "absl/time/time.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

struct SupervisorOptions {
  std::string lease_marker_path;
  absl::Duration restart_delay = absl::Seconds(1);
  // This many deaths in a row, each within quick_death of its start, end
  // supervision (exit 1): a worker that cannot stay up is not restarted
  // forever.
  int max_quick_deaths = 5;
  absl::Duration quick_death = absl::Seconds(10);
};

// `child` runs the worker and returns its exit code; it gets the report of
// the previous child's death (empty the first time).
int Supervise(const SupervisorOptions& options, const std::function<int(const kernelseek::v1::CrashReport&)>& child);

}  // namespace kseek

#endif  // KERNELSEEK_WORKER_SUPERVISOR_H_
