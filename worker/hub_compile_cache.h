// HubCompileCache: the RemoteCompileCache of a worker, over WorkerHub's
// Get/PutCompiledArtifact with the worker's token. The stub is set once the
// worker's loop has made its channel (in the supervised child, after the
// cache itself was made); until then, and after Disconnect, every call fails
// with UNAVAILABLE and the build simply compiles. Thread-safe.
#ifndef KERNELSEEK_WORKER_HUB_COMPILE_CACHE_H_
#define KERNELSEEK_WORKER_HUB_COMPILE_CACHE_H_

#include <optional>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "proto/kernelseek.grpc.pb.h"
#include "worker/compile_cache.h"

namespace kseek {

class HubCompileCache final : public RemoteCompileCache {
 public:
  HubCompileCache(std::string worker_name, std::string token, absl::Duration call_timeout = absl::Seconds(30))
      : worker_name_(std::move(worker_name)), token_(std::move(token)), call_timeout_(call_timeout) {}

  // Not owned; must outlive its use, or be replaced by Disconnect first.
  void Connect(kernelseek::v1::WorkerHub::StubInterface* stub);
  void Disconnect() { Connect(nullptr); }

  absl::StatusOr<std::optional<kernelseek::v1::CompileCacheEntry>> Fetch(const std::string& key) override;
  absl::Status Upload(const kernelseek::v1::CompileCacheEntry& entry) override;

 private:
  const std::string worker_name_;
  const std::string token_;
  const absl::Duration call_timeout_;
  absl::Mutex mu_;
  kernelseek::v1::WorkerHub::StubInterface* stub_ ABSL_GUARDED_BY(mu_) = nullptr;
};

}  // namespace kseek

#endif  // KERNELSEEK_WORKER_HUB_COMPILE_CACHE_H_
