// ReactorAlarm: when a gRPC callback reactor (a watch stream, a worker's long
// poll) takes its next step: at a time it sets with Arm, or at once when
// Wake says that what it watches changed. The step runs on gRPC's executor
// through grpc::Alarm, never on the thread that called Wake (which may hold
// JobQueue's or SessionManager's lock), and never two at once; nothing
// blocks a thread while the reactor waits.
//
// Owned by its reactor. Stop ends it: no step starts after it, and
// `on_stopped` (the reactor's delete) runs once no step or alarm callback is
// left, possibly at once on the calling thread. Thread-safe.
#ifndef KERNELSEEK_SERVER_REACTOR_ALARM_H_
#define KERNELSEEK_SERVER_REACTOR_ALARM_H_

#include <grpcpp/alarm.h>

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace kseek {

class ReactorAlarm {
 public:
  // `step(woken)`: woken is false when the step runs because the time given
  // to Arm came, true when it runs at once (Wake, or Arm for now).
  explicit ReactorAlarm(std::function<void(bool)> step) : step_(std::move(step)) {}
  ReactorAlarm(const ReactorAlarm&) = delete;
  ReactorAlarm& operator=(const ReactorAlarm&) = delete;

  // The next step runs at `when` (real time), or sooner on Wake. Called
  // before the first step and by a step that wants another; a Wake that came
  // while the step ran makes it run at once.
  void Arm(absl::Time when);
  // The next step runs at once: now if one is armed, else as soon as the
  // running step arms the next.
  void Wake();
  void Stop(std::function<void()> on_stopped);

 private:
  // Sets a fresh grpc::Alarm (one cannot be set again from its own callback)
  // for `when` (at once if it has passed) and returns the old one, to be destroyed (cancelled) once mu_ is released:
  // a cancelled alarm's callback must never find mu_ held by its own thread.
  std::unique_ptr<grpc::Alarm> SetLocked(absl::Time when) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Fired(uint64_t id);

  const std::function<void(bool)> step_;
  absl::Mutex mu_;
  std::unique_ptr<grpc::Alarm> alarm_ ABSL_GUARDED_BY(mu_);
  uint64_t alarm_id_ ABSL_GUARDED_BY(mu_) = 0;  // of alarm_; a callback of an older one is stale
  bool armed_ ABSL_GUARDED_BY(mu_) = false;     // alarm_ will start a step
  bool at_once_ ABSL_GUARDED_BY(mu_) = false;   // ... and it was set for now
  bool woken_ ABSL_GUARDED_BY(mu_) = false;     // a Wake while no step was armed
  int pending_ ABSL_GUARDED_BY(mu_) = 0;        // alarm callbacks not yet returned
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::function<void()> on_stopped_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_REACTOR_ALARM_H_
