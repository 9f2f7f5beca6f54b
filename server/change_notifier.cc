#include "server/change_notifier.h"

#include <utility>

namespace kseek {

ChangeNotifier::Subscription& ChangeNotifier::Subscription::operator=(Subscription&& other) noexcept {
  if (this != &other) {
    Reset();
    notifier_ = std::exchange(other.notifier_, nullptr);
    token_ = std::exchange(other.token_, 0);
  }
  return *this;
}

void ChangeNotifier::Subscription::Reset() {
  if (notifier_ != nullptr) std::exchange(notifier_, nullptr)->Unsubscribe(token_);
}

ChangeNotifier::Subscription ChangeNotifier::Subscribe(int64_t key, std::function<void()> on_change) {
  absl::MutexLock lock(&mu_);
  const uint64_t token = next_token_++;
  waiters_.emplace(token, Waiter{key, std::move(on_change)});
  by_key_.emplace(key, token);
  return Subscription(this, token);
}

void ChangeNotifier::Unsubscribe(uint64_t token) {
  absl::MutexLock lock(&mu_);
  auto it = waiters_.find(token);
  if (it == waiters_.end()) return;
  auto [first, last] = by_key_.equal_range(it->second.key);
  for (auto k = first; k != last; ++k) {
    if (k->second == token) {
      by_key_.erase(k);
      break;
    }
  }
  waiters_.erase(it);
}

void ChangeNotifier::Notify(int64_t key) {
  absl::MutexLock lock(&mu_);
  auto [first, last] = by_key_.equal_range(key);
  for (auto k = first; k != last; ++k) waiters_.at(k->second).on_change();
}

void ChangeNotifier::NotifyAfter(int64_t after, absl::FunctionRef<bool(int64_t key)> which) {
  absl::MutexLock lock(&mu_);
  for (auto k = by_key_.upper_bound(after); k != by_key_.end(); ++k) {
    if (which(k->first)) waiters_.at(k->second).on_change();
  }
}

void ChangeNotifier::NotifyAll() {
  absl::MutexLock lock(&mu_);
  for (auto& [token, waiter] : waiters_) waiter.on_change();
}

}  // namespace kseek
