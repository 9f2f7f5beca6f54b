#include "common/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <grp.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

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


// argv[0] as a path: itself when it contains '/', else the first executable
// match in the caller's PATH (resolved before fork, so the child allocates
// nothing).
absl::StatusOr<std::string> ResolveProgram(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  absl::string_view dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  for (absl::string_view dir : absl::StrSplit(dirs, ':')) {
    std::string candidate = absl::StrCat(dir.empty() ? "." : dir, "/", program);
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return absl::NotFoundError(absl::StrCat("program '", program, "' not found in PATH"));
}

std::vector<std::string> PlainEnvironment(const std::vector<std::pair<std::string, std::string>>& vars) {
  std::map<std::string, std::string> sorted(vars.begin(), vars.end());
  std::vector<std::string> out;
  for (const auto& [key, value] : sorted) out.push_back(absl::StrCat(key, "=", value));
  return out;
}

std::vector<std::pair<int, rlim_t>> RlimitList(const ResourceLimits& limits) {
  std::vector<std::pair<int, rlim_t>> out;
  auto add = [&out](int resource, uint64_t value) {
    if (value > 0) out.emplace_back(resource, static_cast<rlim_t>(value));
  };
  add(RLIMIT_AS, limits.address_space_bytes);
  add(RLIMIT_DATA, limits.data_bytes);
  add(RLIMIT_CPU, limits.cpu_seconds);
  add(RLIMIT_FSIZE, limits.file_size_bytes);
  add(RLIMIT_NPROC, limits.processes);
  add(RLIMIT_NOFILE, limits.open_files);
  return out;
}

struct ChildSetup {
  const char* program;
  char* const* argv;
  char* const* envp;
  const char* working_dir;  // null: stay
  int stdin_fd;             // -1: /dev/null
  int stdout_fd;
  int stderr_fd;
  int exec_error_fd;
  pid_t parent;
  int64_t uid;  // -1: keep
  int64_t gid;
  const std::vector<std::pair<int, rlim_t>>* limits;
};

// The forked child: async-signal-safe calls only, then exec. Never returns.
[[noreturn]] void RunChild(const ChildSetup& c) {
  auto fail = [&c](int err) {
    ssize_t ignored = write(c.exec_error_fd, &err, sizeof(err));
    (void)ignored;
    _exit(127);
  };
  setpgid(0, 0);
  // Dies with the worker; if the worker died before this line, exit now.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail(errno);
  if (getppid() != c.parent) _exit(127);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  int in = c.stdin_fd >= 0 ? c.stdin_fd : open("/dev/null", O_RDONLY);
  if (in < 0 || dup2(in, STDIN_FILENO) < 0) fail(errno);
  if (dup2(c.stdout_fd, STDOUT_FILENO) < 0 || dup2(c.stderr_fd, STDERR_FILENO) < 0) fail(errno);
  if (c.working_dir != nullptr && chdir(c.working_dir) != 0) fail(errno);
  for (const auto& [resource, value] : *c.limits) {
    struct rlimit limit;
    if (getrlimit(resource, &limit) != 0) fail(errno);
    limit.rlim_cur = value;
    if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < value) limit.rlim_cur = limit.rlim_max;
    if (limit.rlim_max == RLIM_INFINITY || limit.rlim_max > value) limit.rlim_max = value;
    if (setrlimit(resource, &limit) != 0) fail(errno);
  }
  if (c.gid >= 0) {
    if (setgroups(0, nullptr) != 0) fail(errno);
    if (setresgid(c.gid, c.gid, c.gid) != 0) fail(errno);
  }
  if (c.uid >= 0 && setresuid(c.uid, c.uid, c.uid) != 0) fail(errno);
  // setuid clears the death signal; set it again for the new credentials.
  if (c.uid >= 0 && prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail(errno);
  execve(c.program, c.argv, c.envp);
  fail(errno);
  _exit(127);  // not reached: fail exits
}

thread_local const std::atomic<bool>* current_cancel_flag = nullptr;

bool CancelRequested() { return current_cancel_flag != nullptr && current_cancel_flag->load(); }

}  // namespace

CancelScope::CancelScope(const std::atomic<bool>* flag) : previous_(current_cancel_flag) {
  current_cancel_flag = flag;
}

CancelScope::~CancelScope() { current_cancel_flag = previous_; }

std::string SubprocessResult::Describe() const {
  if (cancelled) return "cancelled";
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

  if (spec.stdin_text.size() > kMaxStdinBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("subprocess: stdin text of ", spec.stdin_text.size(), " bytes, over ", kMaxStdinBytes));
  }
  // A socket pair rather than a pipe: send(MSG_NOSIGNAL) cannot raise SIGPIPE
  // in this process when the child exits without reading.
  int in_pipe[2] = {-1, -1};
  if (!spec.stdin_text.empty() && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_pipe) != 0) {
    return ErrnoStatus("socketpair", errno);
  }
  FileDescriptor in_read(in_pipe[0]), in_write(in_pipe[1]);
  // The child reports a failed exec's errno here; a successful exec closes it.
  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) return ErrnoStatus("pipe2", errno);
  FileDescriptor exec_read(exec_pipe[0]), exec_write(exec_pipe[1]);

  absl::StatusOr<std::string> resolved = ResolveProgram(program);
  if (!resolved.ok()) return resolved.status();
  std::vector<std::string> env = spec.inherit_environment ? BuildEnvironment(spec.extra_env)
                                                          : PlainEnvironment(spec.extra_env);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  std::vector<char*> argvp;
  for (std::string& a : args) argvp.push_back(a.data());
  argvp.push_back(nullptr);
  std::vector<std::pair<int, rlim_t>> limits = RlimitList(spec.limits);
  if (!spec.core_dumps) limits.emplace_back(RLIMIT_CORE, 0);
  const char* working_dir = spec.working_dir.empty() ? nullptr : spec.working_dir.c_str();
  const pid_t parent = getpid();

  const auto start = std::chrono::steady_clock::now();
  // fork + exec rather than posix_spawn, for the death signal and the limits.
  // Between the two the child calls only async-signal-safe functions on data
  // prepared above.
  pid_t pid = fork();
  if (pid < 0) return ErrnoStatus(absl::StrCat("forking for '", program, "'"), errno);
  if (pid == 0) {
    RunChild(ChildSetup{resolved->c_str(), argvp.data(), envp.data(), working_dir, in_read.get(),
                        out_write.get(), err_write.get(), exec_write.get(), parent, spec.run_as_uid,
                        spec.run_as_gid, &limits});
  }
  in_read.Close();
  out_write.Close();
  err_write.Close();
  exec_write.Close();
  int exec_errno = 0;
  ssize_t got;
  while ((got = read(exec_read.get(), &exec_errno, sizeof(exec_errno))) < 0 && errno == EINTR) {
  }
  if (got == sizeof(exec_errno)) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    if (exec_errno == ENOENT) return absl::NotFoundError(absl::StrCat("program '", program, "' not found"));
    if (exec_errno == EACCES || exec_errno == ENOEXEC) {
      return absl::FailedPreconditionError(
          absl::StrCat("program '", program, "' cannot be executed: ", std::strerror(exec_errno)));
    }
    return ErrnoStatus(absl::StrCat("starting '", program, "'"), exec_errno);
  }
  if (in_write.get() >= 0) {
    // Small enough for the socket's buffer: this never blocks. A child that
    // exits without reading simply never sees it.
    absl::string_view rest = spec.stdin_text;
    while (!rest.empty()) {
      ssize_t n = send(in_write.get(), rest.data(), rest.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      rest.remove_prefix(static_cast<size_t>(n));
    }
    in_write.Close();
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
    if (!exited && !result.cancelled && CancelRequested()) {
      kill(-pid, SIGKILL);
      result.cancelled = true;
      drain_deadline = std::min(drain_deadline, now + absl::ToChronoNanoseconds(kDrainGrace));
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
