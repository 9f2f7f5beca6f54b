#include "common/log.h"

#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace kseek {

void Log(std::string_view line) {
  std::string text =
      absl::StrCat(absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ ", absl::Now(), absl::UTCTimeZone()), std::string(line), "\n");
  // A failed write to stderr has nowhere to be reported.
  [[maybe_unused]] ssize_t written = write(STDERR_FILENO, text.data(), text.size());
}

}  // namespace kseek
