#include "common/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

extern char** environ;

namespace kseek {
namespace {

// How long to keep reading pipes after the child is gone: a grandchild that
// escaped the process group (setsid) could hold them open forever.
constexpr absl::Duration kDrainGrace = absl::Seconds(2);
// While the child runs, poll() wakes at least this often to notice its exit
// even when it has closed its pipes. With a pidfd (Linux 5.3+) the exit wakes
// poll() at once and this is only a backstop.
constexpr int kExitCheckMillis = 20;

class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() { Close(); }
  int get() const { return fd_; }
  int Release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

absl::Status ErrnoStatus(absl::string_view what, int err) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(err)));
}

// One captured stream: appends up to `cap` bytes, discards the rest.
struct Capture {
  FileDescriptor fd;
  std::string* text;
  bool* truncated;
  size_t cap;
  const std::function<void(absl::string_view)>* on_line = nullptr;
  bool open = true;
  std::string partial_line;  // only kept when on_line is set

  // Reads what is available; marks the stream closed on EOF or error.
  void ReadAvailable() {
    char buffer[65536];
    ssize_t n = read(fd.get(), buffer, sizeof(buffer));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
      open = false;
      fd.Close();
      return;
    }
    if (on_line != nullptr && *on_line) {
      partial_line.append(buffer, n);
      size_t start = 0;
      for (size_t nl = partial_line.find('\n'); nl != std::string::npos; nl = partial_line.find('\n', start)) {
        (*on_line)(absl::string_view(partial_line).substr(start, nl - start));
        start = nl + 1;
      }
      partial_line.erase(0, start);
    }
    size_t room = cap > text->size() ? cap - text->size() : 0;
    size_t take = std::min(room, static_cast<size_t>(n));
    text->append(buffer, take);
    if (take < static_cast<size_t>(n)) *truncated = true;
  }
};

std::vector<std::string> BuildEnvironment(
    const std::vector<std::pair<std::string, std::string>>& extra) {
  std::map<std::string, std::string> vars;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    absl::string_view kv(*entry);
    size_t eq = kv.find('=');
    if (eq == absl::string_view::npos) continue;
    vars[std::string(kv.substr(0, eq))] = std::string(kv.substr(eq + 1));
  }
  for (const auto& [key, value] : extra) vars[key] = value;
  std::vector<std::string> out;
  out.reserve(vars.size());
  for (const auto& [key, value] : vars) out.push_back(absl::StrCat(key, "=", value));
  return out;
}

absl::Status CheckProgram(const std::string& program) {
  if (program.find('/') == std::string::npos) return absl::OkStatus();
  struct stat st;
  if (stat(program.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("program '", program, "' not found"));
  }
  if (!S_ISREG(st.st_mode) || access(program.c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("program '", program, "' is not an executable file"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string SubprocessResult::Describe() const {
  if (timed_out) return absl::StrCat("timed out after ", wall_seconds, "s");
  if (term_signal != 0) {
    // sigdescr_np, unlike strsignal, never writes a shared buffer.
    const char* name = sigdescr_np(term_signal);
    return absl::StrCat("killed by signal ", term_signal, " (", name ? name : "unknown", ")");
  }
  return absl::StrCat("exit code ", exit_code);
}

absl::StatusOr<SubprocessResult> RunSubprocess(const SubprocessSpec& spec) {
  if (spec.argv.empty() || spec.argv[0].empty()) {
    return absl::InvalidArgumentError("subprocess: empty argv");
  }
  const std::string& program = spec.argv[0];
  if (absl::Status s = CheckProgram(program); !s.ok()) return s;
  if (!spec.working_dir.empty()) {
    struct stat st;
    if (stat(spec.working_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return absl::FailedPreconditionError(absl::StrCat("working directory '", spec.working_dir,
                                                        "' for '", program, "' does not exist"));
    }
  }

  // O_CLOEXEC on every end: a concurrent spawn on another thread must not
  // inherit them, or our reads would never see EOF.
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return ErrnoStatus("pipe2", errno);
  FileDescriptor out_read(out_pipe[0]), out_write(out_pipe[1]);
  if (pipe2(err_pipe, O_CLOEXEC) != 0) return ErrnoStatus("pipe2", errno);
  FileDescriptor err_read(err_pipe[0]), err_write(err_pipe[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_write.get(), STDERR_FILENO);
  if (!spec.working_dir.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, spec.working_dir.c_str());
  }

  // Own process group (so a timeout can kill the whole tree), default signal
  // dispositions (the parent may ignore SIGPIPE, as gRPC servers do) and an
  // empty signal mask.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t all_signals, no_signals;
  sigfillset(&all_signals);
  sigemptyset(&no_signals);
  posix_spawnattr_setsigdefault(&attr, &all_signals);
  posix_spawnattr_setsigmask(&attr, &no_signals);

  std::vector<std::string> env = BuildEnvironment(spec.extra_env);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  std::vector<char*> argvp;
  for (std::string& a : args) argvp.push_back(a.data());
  argvp.push_back(nullptr);

  const auto start = std::chrono::steady_clock::now();
  pid_t pid = -1;
  int spawn_error =
      program.find('/') != std::string::npos
          ? posix_spawn(&pid, program.c_str(), &actions, &attr, argvp.data(), envp.data())
          : posix_spawnp(&pid, program.c_str(), &actions, &attr, argvp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  out_write.Close();
  err_write.Close();
  if (spawn_error == ENOENT) {
    return absl::NotFoundError(absl::StrCat("program '", program, "' not found"));
  }
  if (spawn_error == EACCES || spawn_error == ENOEXEC) {
    return absl::FailedPreconditionError(
        absl::StrCat("program '", program, "' cannot be executed: ", std::strerror(spawn_error)));
  }
  if (spawn_error != 0) {
    return ErrnoStatus(absl::StrCat("spawning '", program, "'"), spawn_error);
  }

  SubprocessResult result;
  Capture captures[2] = {
      {FileDescriptor(out_read.Release()), &result.stdout_text, &result.stdout_truncated,
       spec.max_output_bytes},
      {FileDescriptor(err_read.Release()), &result.stderr_text, &result.stderr_truncated,
       spec.max_output_bytes, &spec.on_stderr_line},
  };

  using Clock = std::chrono::steady_clock;
  const bool limited = spec.time_limit != absl::InfiniteDuration();
  const Clock::time_point deadline =
      limited ? start + absl::ToChronoNanoseconds(spec.time_limit) : Clock::time_point::max();
  // A pidfd becomes readable when the child exits; older kernels lack it.
  FileDescriptor exit_fd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  bool exited = false;
  Clock::time_point drain_deadline = Clock::time_point::max();
  for (;;) {
    Clock::time_point now = Clock::now();
    if (!exited && !result.timed_out && now >= deadline) {
      kill(-pid, SIGKILL);
      result.timed_out = true;
      drain_deadline = now + absl::ToChronoNanoseconds(kDrainGrace);
    }
    if (!exited) {
      // WNOWAIT leaves the child a zombie, so its pid (our process group id)
      // cannot be reused before we kill the group's stragglers below.
      siginfo_t info;
      info.si_pid = 0;
      if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) {
        exited = true;
        kill(-pid, SIGKILL);
        drain_deadline = std::min(drain_deadline, now + absl::ToChronoNanoseconds(kDrainGrace));
      }
    }
    if (!captures[0].open && !captures[1].open && exited) break;
    if (now >= drain_deadline) break;

    pollfd fds[3];
    nfds_t nfds = 0;
    Capture* polled[3] = {nullptr, nullptr, nullptr};
    if (!exited && exit_fd.get() >= 0) fds[nfds++] = {exit_fd.get(), POLLIN, 0};
    for (Capture& c : captures) {
      if (!c.open) continue;
      fds[nfds] = {c.fd.get(), POLLIN, 0};
      polled[nfds++] = &c;
    }
    Clock::time_point wake = std::min(deadline, drain_deadline);
    int timeout_ms = kExitCheckMillis;
    if (wake != Clock::time_point::max()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(wake - now).count() + 1;
      timeout_ms = static_cast<int>(std::clamp<int64_t>(left, 0, kExitCheckMillis));
    }
    int ready = poll(fds, nfds, timeout_ms);
    if (ready < 0 && errno != EINTR) {
      kill(-pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      return ErrnoStatus("poll", errno);
    }
    for (nfds_t i = 0; ready > 0 && i < nfds; ++i) {
      if (polled[i] != nullptr && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) {
        polled[i]->ReadAvailable();
      }
    }
  }

  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.term_signal = WTERMSIG(status);
  }
  return result;
}

std::string OutputTail(const std::string& text, size_t n) {
  return text.size() <= n ? text : text.substr(text.size() - n);
}

std::string FormatCommandLine(const std::vector<std::string>& argv) {
  return absl::StrJoin(argv, " ", [](std::string* out, const std::string& arg) {
    bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_-+=/.,:@%$", c);
    });
    if (plain) {
      out->append(arg);
      return;
    }
    out->push_back('\'');
    for (char c : arg) {
      if (c == '\'') {
        out->append("'\\''");
      } else {
        out->push_back(c);
      }
    }
    out->push_back('\'');
  });
}

}  // namespace kseek
