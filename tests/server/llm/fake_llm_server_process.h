// FakeLlmServerProcess: runs tests/fake_llm_server.py as a child process on
// loopback, for tests that talk to an LLM endpoint over real HTTP. Owns the
// child: the destructor terminates it and reaps it. Not thread-safe.
#ifndef KERNELSEEK_TESTS_SERVER_LLM_FAKE_LLM_SERVER_PROCESS_H_
#define KERNELSEEK_TESTS_SERVER_LLM_FAKE_LLM_SERVER_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kseek::llm {

class FakeLlmServerProcess {
 public:
  // Starts `python3 fake_llm_server.py --script <script_path> <extra_args...>`
  // and waits up to 10 s for it to print its port. The script and python
  // paths come from the build (KSEEK_FAKE_LLM_SERVER, KSEEK_PYTHON3).
  static absl::StatusOr<std::unique_ptr<FakeLlmServerProcess>> Start(
      const std::string& script_path, const std::vector<std::string>& extra_args = {});

  ~FakeLlmServerProcess();
  FakeLlmServerProcess(const FakeLlmServerProcess&) = delete;
  FakeLlmServerProcess& operator=(const FakeLlmServerProcess&) = delete;

  int port() const { return port_; }
  // "http://127.0.0.1:PORT/v1", the base URL for either wire format.
  std::string base_url() const;

 private:
  FakeLlmServerProcess(pid_t pid, int port) : pid_(pid), port_(port) {}

  pid_t pid_;
  int port_;
};

}  // namespace kseek::llm

#endif  // KERNELSEEK_TESTS_SERVER_LLM_FAKE_LLM_SERVER_PROCESS_H_
