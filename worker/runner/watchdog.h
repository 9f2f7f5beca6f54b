// Watchdog: calls a function from its own thread if a deadline passes before
// it is disarmed. The runner uses it to report a kernel that never returns
// (a CUDA call cannot be cancelled, so the callback prints what it has and
// exits the process). Arm/Disarm may be called from any thread.
#ifndef KERNELSEEK_WORKER_RUNNER_WATCHDOG_H_
#define KERNELSEEK_WORKER_RUNNER_WATCHDOG_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "absl/base/thread_annotations.h"

namespace kseek::runner {

class Watchdog {
 public:
  Watchdog();
  ~Watchdog();  // stops the thread without calling anything
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Replaces any armed deadline.
  void Arm(std::chrono::steady_clock::duration timeout, std::function<void()> on_expiry);
  void Disarm();

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::chrono::steady_clock::time_point deadline_ ABSL_GUARDED_BY(mu_);
  std::function<void()> on_expiry_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace kseek::runner

#endif  // KERNELSEEK_WORKER_RUNNER_WATCHDOG_H_
