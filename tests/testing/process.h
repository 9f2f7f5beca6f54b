// ChildProcess: a long-running program started by an end-to-end test (server,
// worker), with its stdout and stderr going to a log file, that the test can
// kill with any signal. The destructor SIGKILLs and reaps it if still running.
// Not thread-safe.
#ifndef KERNELSEEK_TESTS_TESTING_PROCESS_H_
#define KERNELSEEK_TESTS_TESTING_PROCESS_H_

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace kseek::testing {

class ChildProcess {
 public:
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Start(
      const std::vector<std::string>& argv, const std::string& log_path,
      const std::vector<std::pair<std::string, std::string>>& env = {});
  ~ChildProcess();

  void Signal(int signal_number);
  // Waits for exit; returns the exit code, or 128 + signal.
  int Wait();
  bool running();
  pid_t pid() const { return pid_; }
  const std::string& log_path() const { return log_path_; }

 private:
  ChildProcess(pid_t pid, std::string log_path) : pid_(pid), log_path_(std::move(log_path)) {}
  pid_t pid_;
  std::string log_path_;
  bool reaped_ = false;
  int status_ = 0;
};

std::string ReadFile(const std::string& path);
// The last line of a program's output, without trailing whitespace (e.g. the
// token `kseek-server token create` prints).
std::string LastLine(const std::string& text);
void WriteFile(const std::string& path, const std::string& text);
// Polls `condition` every 50 ms until it holds or `timeout` passes.
bool WaitFor(const std::function<bool()>& condition, absl::Duration timeout);

}  // namespace kseek::testing

#endif  // KERNELSEEK_TESTS_TESTING_PROCESS_H_
