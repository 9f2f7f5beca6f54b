// WatchStream<T>: the reactor behind a server-streaming watch (WatchJob,
// WatchSession). A subclass subscribes to what it watches (its callback calls
// Wake) and says in Read what to send; this class runs the rest:
//
//  - Read runs on gRPC's executor (ReactorAlarm) when woken, and at least
//    every kRecheck; no thread waits for a change.
//  - One write in flight: the messages of one Read are written in order,
//    each after the last one's OnWriteDone; a wake meanwhile makes the next
//    Read follow at once.
//  - Every kRecheck the caller's token is checked again (Authenticator), so a
//    stream whose token is revoked, also by `kseek-server token revoke` in
//    another process, or expires ends UNAUTHENTICATED within about that.
//  - Client cancellation finishes the call; server shutdown wakes every
//    watcher (JobQueue and SessionManager notify all) and Read ends it, so
//    Server::Shutdown does not wait for open streams.
//
// Deletes itself once the call is done and no step is pending. Thread-safe.
#ifndef KERNELSEEK_SERVER_WATCH_STREAM_H_
#define KERNELSEEK_SERVER_WATCH_STREAM_H_

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/grpc_status.h"
#include "server/auth.h"
#include "server/reactor_alarm.h"

namespace kseek {

template <typename T>
class WatchStream : public grpc::ServerWriteReactor<T> {
 public:
  static constexpr absl::Duration kRecheck = absl::Seconds(1);

  // What one Read found.
  struct Batch {
    std::vector<T> messages;  // to write, in order
    // Set: the call ends with it once `messages` are written.
    std::optional<absl::Status> end;
    // Read again at once after writing (a Read returns a bounded batch).
    bool more = false;
  };

 protected:
  WatchStream(Authenticator* auth, grpc::CallbackServerContext* context)
      : auth_(auth), token_(Authenticator::BearerToken(*context)), alarm_([this](bool woken) { Step(woken); }) {}
  ~WatchStream() override = default;

  // Called by the subclass's constructor once it has subscribed: the first
  // Read runs at once.
  void Start() {
    next_recheck_ = absl::Now() + kRecheck;
    alarm_.Arm(absl::Now());
  }
  // What the subclass watches changed; callable from any thread, under any lock.
  void Wake() { alarm_.Wake(); }
  // `woken`: Start, a Wake or `more` led here; false for the periodic step
  // alone, when nothing the subscription covers has changed.
  virtual Batch Read(bool woken) = 0;
  // Ends the subscription; called once, before the reactor is deleted.
  virtual void Unsubscribe() = 0;

 private:
  void Step(bool woken) {
    const absl::Time now = absl::Now();
    if (now >= next_recheck_) {
      next_recheck_ = now + kRecheck;
      if (absl::StatusOr<TokenRecord> still = auth_->CheckToken(token_, TokenKind::kUser); !still.ok()) {
        absl::MutexLock lock(&mu_);
        FinishLocked(still.status());
        return;
      }
    }
    Batch batch = Read(woken);
    absl::MutexLock lock(&mu_);
    if (finished_) return;
    pending_.assign(std::make_move_iterator(batch.messages.begin()), std::make_move_iterator(batch.messages.end()));
    end_ = std::move(batch.end);
    more_ = batch.more;
    NextLocked();
  }

  // Writes the next pending message, or finishes, or arms the next step.
  void NextLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!pending_.empty()) {
      // Reactions never run inline on this thread, so holding mu_ here is safe.
      this->StartWrite(&pending_.front());
    } else if (end_.has_value()) {
      FinishLocked(*end_);
    } else {
      alarm_.Arm(more_ ? absl::Now() : next_recheck_);
    }
  }

  void FinishLocked(const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_) return;
    finished_ = true;
    this->Finish(ToGrpcStatus(status));
  }

  void OnWriteDone(bool ok) override {
    absl::MutexLock lock(&mu_);
    if (finished_) return;
    if (!ok) {
      FinishLocked(absl::CancelledError("the client is gone"));
      return;
    }
    pending_.pop_front();
    NextLocked();
  }

  void OnCancel() override {
    absl::MutexLock lock(&mu_);
    FinishLocked(absl::CancelledError("cancelled by the client"));
  }

  void OnDone() override {
    // First: after it no Wake comes, and none is running.
    Unsubscribe();
    alarm_.Stop([this] { delete this; });
  }

  Authenticator* const auth_;
  const std::string token_;  // checked again every kRecheck
  ReactorAlarm alarm_;
  // Steps never overlap (ReactorAlarm), so these need no lock.
  absl::Time next_recheck_ = absl::InfinitePast();

  absl::Mutex mu_;
  std::deque<T> pending_ ABSL_GUARDED_BY(mu_);  // pending_.front() is being written
  std::optional<absl::Status> end_ ABSL_GUARDED_BY(mu_);
  bool more_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_WATCH_STREAM_H_
