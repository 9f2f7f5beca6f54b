#include "worker/runner/watchdog.h"

#include <utility>

namespace kseek::runner {

Watchdog::Watchdog() : thread_([this] { Loop(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Watchdog::Arm(std::chrono::steady_clock::duration timeout, std::function<void()> on_expiry) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    armed_ = true;
    deadline_ = std::chrono::steady_clock::now() + timeout;
    on_expiry_ = std::move(on_expiry);
  }
  cv_.notify_all();
}

void Watchdog::Disarm() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    armed_ = false;
    on_expiry_ = nullptr;
  }
  cv_.notify_all();
}

void Watchdog::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (!armed_) {
      cv_.wait(lock);
      continue;
    }
    if (cv_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ && !stopping_ &&
        std::chrono::steady_clock::now() >= deadline_) {
      std::function<void()> fire = std::move(on_expiry_);
      armed_ = false;
      lock.unlock();
      if (fire) fire();
      lock.lock();
    }
  }
}

}  // namespace kseek::runner
