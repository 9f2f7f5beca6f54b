// InterruptNotice: what Ctrl-C does while kseek waits on a job. Stopping the
// wait does not stop the job, so instead of dying silently (which reads as
// "cancelled") kseek says that the job goes on and how to follow or cancel
// it, and exits kExitInterrupted.
//
// One at a time per process: the constructor installs a SIGINT handler and
// the destructor puts back the one before it. The handler only write(2)s
// the prepared message and _exit(2)s, both async-signal-safe, so it may
// interrupt any thread anywhere (a gRPC read included).
#ifndef KERNELSEEK_CLIENT_INTERRUPT_NOTICE_H_
#define KERNELSEEK_CLIENT_INTERRUPT_NOTICE_H_

#include <signal.h>

#include <string>

namespace kseek {

// "kseek: job 12 goes on on the server; `kseek job 12 --wait` follows it
// again, `kseek cancel 12` stops it", the line Ctrl-C prints.
std::string JobGoesOnMessage(const std::string& job_id);

class InterruptNotice {
 public:
  // `message` is written to stderr on SIGINT, after a newline when
  // `after_newline` (a progress line redrawn in place is left unfinished).
  InterruptNotice(const std::string& message, bool after_newline);
  ~InterruptNotice();

  InterruptNotice(const InterruptNotice&) = delete;
  InterruptNotice& operator=(const InterruptNotice&) = delete;

 private:
  struct sigaction previous_;
};

}  // namespace kseek

#endif  // KERNELSEEK_CLIENT_INTERRUPT_NOTICE_H_
