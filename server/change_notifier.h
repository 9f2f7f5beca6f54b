// ChangeNotifier: who is waiting for which job or session (by its numeric
// id) to change, so that a change wakes only the waiters of what changed.
// JobQueue and SessionManager own one each and call Notify as they change
// state; the gRPC watch reactors and JobRunner subscribe.
//
// Callbacks run on the thread that made the change, under the notifier's
// lock and possibly its owner's: they must be quick and must not call back
// into the owner (a reactor only schedules its next step). After a
// Subscription is destroyed its callback does not run and is not running.
// Thread-safe.
#ifndef KERNELSEEK_SERVER_CHANGE_NOTIFIER_H_
#define KERNELSEEK_SERVER_CHANGE_NOTIFIER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/synchronization/mutex.h"

namespace kseek {

class ChangeNotifier {
 public:
  // Unsubscribes when destroyed; movable. A default-constructed one holds nothing.
  class Subscription {
   public:
    Subscription() = default;
    Subscription(Subscription&& other) noexcept { *this = std::move(other); }
    Subscription& operator=(Subscription&& other) noexcept;
    ~Subscription() { Reset(); }
    void Reset();

   private:
    friend class ChangeNotifier;
    Subscription(ChangeNotifier* notifier, uint64_t token) : notifier_(notifier), token_(token) {}
    ChangeNotifier* notifier_ = nullptr;
    uint64_t token_ = 0;
  };

  ChangeNotifier() = default;
  ChangeNotifier(const ChangeNotifier&) = delete;
  ChangeNotifier& operator=(const ChangeNotifier&) = delete;

  // `on_change` runs at every Notify(key) and NotifyAll until the
  // subscription is destroyed, which must happen before the notifier is.
  [[nodiscard]] Subscription Subscribe(int64_t key, std::function<void()> on_change);
  void Notify(int64_t key);
  // Every subscriber of a key in (after, inf) for which `which(key)` holds:
  // e.g. the jobs queued behind one. Costs in the subscribers, not in the
  // keys that `which` would accept, so a long queue with few watchers is cheap.
  void NotifyAfter(int64_t after, absl::FunctionRef<bool(int64_t key)> which);
  void NotifyAll();

 private:
  struct Waiter {
    int64_t key;
    std::function<void()> on_change;
  };
  void Unsubscribe(uint64_t token);

  absl::Mutex mu_;
  uint64_t next_token_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<uint64_t, Waiter> waiters_ ABSL_GUARDED_BY(mu_);           // by token
  std::multimap<int64_t, uint64_t> by_key_ ABSL_GUARDED_BY(mu_);      // key -> token
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_CHANGE_NOTIFIER_H_
