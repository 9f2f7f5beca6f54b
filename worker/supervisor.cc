#include "worker/supervisor.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/log.h"
#include "worker/worker_loop.h"

namespace kseek {

int Supervise(const SupervisorOptions& options, const std::function<int(const kernelseek::v1::CrashReport&)>& child) {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  kernelseek::v1::CrashReport crash;
  int quick_deaths = 0;
  for (;;) {
    const absl::Time started = absl::Now();
    std::fflush(nullptr);
    const pid_t supervisor = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
      Log(absl::StrCat("cannot fork the worker process: ", std::strerror(errno)));
      return 1;
    }
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != supervisor) _exit(1);
      int code = child(crash);
      std::fflush(nullptr);
      _exit(code);
    }
    Log(absl::StrCat("worker process ", pid, " started"));
    int status = 0;
    bool stopping = false;
    for (;;) {
      const timespec wait = {0, 200 * 1000 * 1000};
      siginfo_t info;
      const int sig = sigtimedwait(&stop_signals, &info, &wait);
      if (sig > 0) {
        kill(pid, sig);
        stopping = true;
      }
      pid_t done = waitpid(pid, &status, WNOHANG);
      if (done == pid) break;
      if (done < 0 && errno != EINTR) return 1;
    }
    if (stopping || !WIFSIGNALED(status)) return WIFEXITED(status) ? WEXITSTATUS(status) : 1;

    const int sig = WTERMSIG(status);
    const char* name = sigdescr_np(sig);
    const std::string lease = ReadLeaseMarker(options.lease_marker_path);
    if (!options.lease_marker_path.empty()) std::remove(options.lease_marker_path.c_str());
    crash.Clear();
    const std::string reason = absl::StrCat("killed by signal ", sig, " (", name ? name : "unknown", ")");
    if (!lease.empty()) {
      crash.set_lease_id(lease);
      crash.set_reason(reason);
    }
    Log(absl::StrCat("worker process ", pid, " ", reason, lease.empty() ? "" : absl::StrCat(" holding lease ", lease),
                     "; starting it again"));
    quick_deaths = absl::Now() - started < options.quick_death ? quick_deaths + 1 : 0;
    if (quick_deaths >= options.max_quick_deaths) {
      Log(absl::StrCat("the worker process died ", quick_deaths, " times in a row within ",
                       absl::FormatDuration(options.quick_death), " of starting; giving up"));
      return 1;
    }
    absl::SleepFor(options.restart_delay);
  }
}

}  // namespace kseek
