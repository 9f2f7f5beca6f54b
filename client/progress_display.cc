#include "client/progress_display.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"

namespace kseek {
namespace {

// Carriage return, then erase to the end of the line (ANSI EL), so a shorter
// status does not leave the tail of a longer one behind.
constexpr char kRewriteLine[] = "\r\033[K";

// "12s", "2m05s": a waiting user wants seconds, not FormatAge's coarse units.
std::string FormatElapsed(absl::Duration elapsed) {
  int64_t seconds = std::max<int64_t>(0, absl::ToInt64Seconds(elapsed));
  if (seconds < 60) return absl::StrCat(seconds, "s");
  return absl::StrFormat("%dm%02ds", seconds / 60, seconds % 60);
}

}  // namespace

ProgressDisplay::ProgressDisplay(std::ostream* out, bool is_terminal, const Clock* clock,
                                 std::string job_id)
    : out_(out),
      is_terminal_(is_terminal),
      clock_(clock),
      job_id_(std::move(job_id)),
      start_(clock->Now()) {}

ProgressDisplay::~ProgressDisplay() { StopTicker(); }

void ProgressDisplay::StartTicker() {
  if (!is_terminal_ || ticker_.joinable()) return;
  ticker_ = std::thread([this] {
    while (!stop_ticker_.WaitForNotificationWithTimeout(absl::Seconds(1))) Redraw();
  });
}

void ProgressDisplay::StopTicker() {
  if (!stop_ticker_.HasBeenNotified()) stop_ticker_.Notify();
  if (ticker_.joinable()) ticker_.join();
}

std::string ProgressDisplay::LineLocked() const {
  return absl::StrCat("job ", job_id_, "  ", FormatElapsed(clock_->Now() - start_), "  ", status_);
}

void ProgressDisplay::Update(const std::string& status) {
  absl::MutexLock lock(&mu_);
  if (finished_ || status == status_) return;
  status_ = status;
  if (is_terminal_) {
    *out_ << kRewriteLine << LineLocked() << std::flush;
  } else {
    *out_ << "job " << job_id_ << ": " << status_ << " (" << FormatElapsed(clock_->Now() - start_)
          << ")\n"
          << std::flush;
  }
}

void ProgressDisplay::Redraw() {
  absl::MutexLock lock(&mu_);
  if (finished_ || !is_terminal_) return;
  *out_ << kRewriteLine << LineLocked() << std::flush;
}

void ProgressDisplay::Finish(const std::string& status) {
  StopTicker();
  absl::MutexLock lock(&mu_);
  if (finished_) return;
  finished_ = true;
  std::string line = absl::StrCat("job ", job_id_, ": ", status, " after ",
                                  FormatElapsed(clock_->Now() - start_), "\n");
  *out_ << (is_terminal_ ? kRewriteLine : "") << line << std::flush;
}

}  // namespace kseek
