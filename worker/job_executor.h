// JobExecutor: runs one job's work on this worker and returns its result.
//
// WorkerLoop calls Execute on a thread of its own and may abandon the call
// (the server took the lease away); an abandoned call still runs to its end,
// bounded by the job's own time limits, and its result is dropped. Execute
// must therefore be safe to call on several threads at once.
#ifndef KERNELSEEK_WORKER_JOB_EXECUTOR_H_
#define KERNELSEEK_WORKER_JOB_EXECUTOR_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "proto/kernelseek.pb.h"
#include "worker/compiler.h"

namespace kseek {

// Called with a short description of what the job is doing now ("compiling")
// and, for jobs over many scenarios, how many are done (total 0 otherwise).
using StageReporter = std::function<void(const std::string& stage, const kernelseek::v1::Progress& progress)>;

class JobExecutor {
 public:
  virtual ~JobExecutor() = default;
  // A Status error means the job could not be run at all (bad request, broken
  // worker); a kernel that fails to compile or verify is still a result.
  virtual absl::StatusOr<kernelseek::v1::JobResult> Execute(const kernelseek::v1::JobSpec& spec,
                                                            const StageReporter& report_stage) = 0;
};

class RunExecutor;

// Runs every kind of job this worker supports by handing it to the component
// for that kind. Thread-safe: the components are. `runs` may be null on a
// worker without a GPU (verify, bench and profile jobs are never leased to it).
class KindDispatcher final : public JobExecutor {
 public:
  KindDispatcher(const Compiler* compiler, const RunExecutor* runs) : compiler_(compiler), runs_(runs) {}
  absl::StatusOr<kernelseek::v1::JobResult> Execute(const kernelseek::v1::JobSpec& spec,
                                                    const StageReporter& report_stage) override;

 private:
  const Compiler* const compiler_;
  const RunExecutor* const runs_;
};

}  // namespace kseek

#endif  // KERNELSEEK_WORKER_JOB_EXECUTOR_H_
