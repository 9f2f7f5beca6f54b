// LocalStack: a real kseek-server (and workers) on loopback over a temp SQLite
// file, for end-to-end tests that drive the real binaries through the CLI.
// Ports are picked by the kernel (--listen 127.0.0.1:0) and read from the
// server's log. Not thread-safe.
#ifndef KERNELSEEK_TESTS_E2E_LOCAL_STACK_H_
#define KERNELSEEK_TESTS_E2E_LOCAL_STACK_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/subprocess.h"
#include "tests/testing/process.h"
#include "tests/testing/temp_dir.h"

namespace kseek::testing {

// Where the build put kseek, kseek-server and kseek-worker.
std::string BinDir();

class LocalStack {
 public:
  // Creates the database and a user token (tester, a member of team
  // default) and a worker token.
  LocalStack();

  // A user token made by `kseek-server token create` (`extra_flags` e.g.
  // {"--expires", "1h"}); the test fails, with the command's stderr, if it did.
  std::string CreateUserToken(const std::string& name, const std::string& team, const std::string& role,
                              const std::vector<std::string>& extra_flags = {});
  // Runs `kseek-server ARGS` (token list, token revoke, ...).
  SubprocessResult KseekServer(const std::vector<std::string>& args);

  // Starts (or restarts) the server on a new port with extra flags and
  // environment variables.
  void StartServer(const std::vector<std::string>& extra_flags = {},
                   const std::vector<std::pair<std::string, std::string>>& env = {});
  void KillServer(int signal_number);
  // Starts a worker named `name`; `nvcc` replaces the real one when given;
  // `extra_flags` (e.g. --tls-ca) go last. Each worker gets a compile cache
  // folder of its own in the stack (DIR/NAME-compile-cache) unless
  // `extra_flags` names one.
  ChildProcess* StartWorker(const std::string& name, const std::string& nvcc = "",
                            const std::vector<std::string>& extra_flags = {},
                           bool wait_until_listed = true,
                           const std::vector<std::pair<std::string, std::string>>& env = {});

  // Runs the CLI against the server with the user token (and `env`).
  SubprocessResult Kseek(const std::vector<std::string>& args, const std::string& token = "",
                         const std::vector<std::pair<std::string, std::string>>& env = {});
  // Starts the CLI as Kseek does but in the background, its stdout and
  // stderr going to `log_name` in dir(), for a test that signals it.
  std::unique_ptr<ChildProcess> StartKseek(const std::vector<std::string>& args, const std::string& log_name);

  const std::string& address() const { return address_; }
  const std::string& db() const { return db_; }
  const std::string& user_token() const { return user_token_; }
  const std::string& worker_token() const { return worker_token_; }
  const TempDir& dir() const { return dir_; }
  // The --temp-dir StartWorker gives its workers (made on first use):
  // their job folders are TEMP/kseek-worker-NAME.
  std::string WorkerTempDir() const;
  ChildProcess* server() { return server_.get(); }

 private:
  TempDir dir_;
  std::string db_;
  std::string user_token_;
  std::string worker_token_;
  std::string address_;
  std::unique_ptr<ChildProcess> server_;
  std::vector<std::unique_ptr<ChildProcess>> workers_;
  int server_starts_ = 0;
};

// `kseek job ID --json`, parsed; the test fails when the command does.
nlohmann::json JobJson(LocalStack& stack, const std::string& id);

// An nvcc that sleeps 30 s before compiling, in a folder of its own (the
// sandbox shows a tool's folder to the jobs, read-only) that the sandbox's
// user can reach.
std::string WriteSlowNvcc(LocalStack& stack);

}  // namespace kseek::testing

#endif  // KERNELSEEK_TESTS_E2E_LOCAL_STACK_H_
