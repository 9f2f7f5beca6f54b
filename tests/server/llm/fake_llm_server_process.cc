#include "tests/server/llm/fake_llm_server_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kseek::llm {
namespace {

constexpr int kStartupTimeoutMs = 10'000;

void KillAndReap(pid_t pid) {
  kill(pid, SIGTERM);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<FakeLlmServerProcess>> FakeLlmServerProcess::Start(
    const std::string& script_path, const std::vector<std::string>& extra_args) {
  std::vector<std::string> args = {KSEEK_PYTHON3, KSEEK_FAKE_LLM_SERVER, "--script", script_path};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  int fds[2];
  if (pipe(fds) != 0) return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);

  // The first line of the child's stdout is its port.
  std::string line;
  pollfd pfd{fds[0], POLLIN, 0};
  while (line.find('\n') == std::string::npos) {
    const int ready = poll(&pfd, 1, kStartupTimeoutMs);
    char buffer[64];
    const ssize_t n = ready > 0 ? read(fds[0], buffer, sizeof(buffer)) : 0;
    if (n <= 0) {
      close(fds[0]);
      KillAndReap(pid);
      return absl::UnavailableError(
          absl::StrCat(KSEEK_FAKE_LLM_SERVER, " did not print its port (got \"", line, "\")"));
    }
    line.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  int port = 0;
  if (!absl::SimpleAtoi(line.substr(0, line.find('\n')), &port)) {
    KillAndReap(pid);
    return absl::UnavailableError(absl::StrCat("bad port line from fake server: \"", line, "\""));
  }
  return std::unique_ptr<FakeLlmServerProcess>(new FakeLlmServerProcess(pid, port));
}

FakeLlmServerProcess::~FakeLlmServerProcess() { KillAndReap(pid_); }

std::string FakeLlmServerProcess::base_url() const {
  return absl::StrCat("http://127.0.0.1:", port_, "/v1");
}

}  // namespace kseek::llm
