#include "client/interrupt_notice.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "client/exit_codes.h"

namespace kseek {
namespace {

// The handler cannot allocate, so the message waits in a fixed buffer; a
// job id is short, so the line always fits.
char g_message[512];
size_t g_message_size = 0;

void WriteNoticeAndExit(int) {
  size_t written = 0;
  while (written < g_message_size) {
    ssize_t n = write(STDERR_FILENO, g_message + written, g_message_size - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  _exit(kExitInterrupted);
}

}  // namespace

std::string JobGoesOnMessage(const std::string& job_id) {
  return absl::StrCat("kseek: job ", job_id, " goes on on the server; `kseek job ", job_id,
                      " --wait` follows it again, `kseek cancel ", job_id, "` stops it\n");
}

InterruptNotice::InterruptNotice(const std::string& message, bool after_newline) {
  const std::string text = absl::StrCat(after_newline ? "\n" : "", message);
  g_message_size = std::min(text.size(), sizeof(g_message));
  std::memcpy(g_message, text.data(), g_message_size);
  struct sigaction action {};
  action.sa_handler = &WriteNoticeAndExit;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previous_);
}

InterruptNotice::~InterruptNotice() { sigaction(SIGINT, &previous_, nullptr); }

}  // namespace kseek
