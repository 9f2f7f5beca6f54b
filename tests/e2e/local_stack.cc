#include "tests/e2e/local_stack.h"

#include <signal.h>

#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>

#include "absl/strings/str_cat.h"

namespace kseek::testing {

std::string BinDir() { return KSEEK_BIN_DIR; }

LocalStack::LocalStack() : db_(dir_.File("kseek.db")) {
  for (auto [flag, token] : {std::pair{"--user", &user_token_}, std::pair{"--worker", &worker_token_}}) {
    SubprocessSpec spec;
    spec.argv = {BinDir() + "/kseek-server", "token", "create", "--db", db_, flag, "tester"};
    spec.time_limit = absl::Seconds(30);
    auto result = RunSubprocess(spec);
    REQUIRE(result.ok());
    INFO(result->stderr_text);
    REQUIRE(result->exit_code == 0);
    *token = LastLine(result->stdout_text);
    REQUIRE(token->size() > 40);
  }
}

std::string LocalStack::CreateUserToken(const std::string& name, const std::string& team, const std::string& role,
                                        const std::vector<std::string>& extra_flags) {
  std::vector<std::string> args = {"token", "create", "--db", db_, "--user", name, "--team", team, "--role", role};
  args.insert(args.end(), extra_flags.begin(), extra_flags.end());
  SubprocessResult result = KseekServer(args);
  INFO(result.stderr_text);
  REQUIRE(result.exit_code == 0);
  std::string token = LastLine(result.stdout_text);
  REQUIRE(token.size() > 40);
  return token;
}

SubprocessResult LocalStack::KseekServer(const std::vector<std::string>& args) {
  SubprocessSpec spec;
  spec.argv = {BinDir() + "/kseek-server"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.time_limit = absl::Seconds(30);
  auto result = RunSubprocess(spec);
  REQUIRE(result.ok());
  return *std::move(result);
}

void LocalStack::StartServer(const std::vector<std::string>& extra_flags,
                             const std::vector<std::pair<std::string, std::string>>& env) {
  std::string log = dir_.File(absl::StrCat("server-", ++server_starts_, ".log"));
  std::vector<std::string> argv = {BinDir() + "/kseek-server", "--listen", "127.0.0.1:0", "--db", db_};
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  auto server = ChildProcess::Start(argv, log, env);
  REQUIRE(server.ok());
  server_ = *std::move(server);
  std::regex listening("listening on (127\\.0\\.0\\.1:[0-9]+)");
  std::smatch match;
  bool up = WaitFor(
      [&] {
        std::string text = ReadFile(log);
        if (!std::regex_search(text, match, listening)) return false;
        address_ = match[1];
        return true;
      },
      absl::Seconds(20));
  INFO(ReadFile(log));
  REQUIRE(up);
}

void LocalStack::KillServer(int signal_number) {
  server_->Signal(signal_number);
  server_->Wait();
}

ChildProcess* LocalStack::StartWorker(const std::string& name, const std::string& nvcc,
                                      const std::vector<std::string>& extra_flags, bool wait_until_listed,
                                      const std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> argv = {BinDir() + "/kseek-worker", "--server", address_, "--name", name};
  if (!nvcc.empty()) argv.insert(argv.end(), {"--nvcc", nvcc});
  // Job folders in this stack's own folder, not /tmp: stacks of tests run at
  // once may name their workers alike, and a worker owns its folder.
  if (std::find(extra_flags.begin(), extra_flags.end(), "--temp-dir") == extra_flags.end()) {
    argv.insert(argv.end(), {"--temp-dir", WorkerTempDir()});
  }
  // A compile cache of its own per worker, in this stack: builds of other
  // tests (or of the user running them) must not answer this one's.
  if (std::find(extra_flags.begin(), extra_flags.end(), "--compile-cache-dir") == extra_flags.end()) {
    argv.insert(argv.end(), {"--compile-cache-dir", dir_.File(name + "-compile-cache")});
  }
  argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
  std::vector<std::pair<std::string, std::string>> worker_env = {{"KSEEK_WORKER_TOKEN", worker_token_}};
  worker_env.insert(worker_env.end(), env.begin(), env.end());
  auto worker = ChildProcess::Start(argv, dir_.File(name + ".log"), worker_env);
  REQUIRE(worker.ok());
  workers_.push_back(*std::move(worker));
  if (!wait_until_listed) return workers_.back().get();
  // Serving once the server lists it: the worker probes its tools and its
  // sandbox before its first sync, and a job submitted earlier would find no
  // worker that could take it.
  bool listed = WaitFor([&] { return Kseek({"workers"}).stdout_text.find(name) != std::string::npos; },
                        absl::Seconds(30));
  INFO(ReadFile(dir_.File(name + ".log")));
  REQUIRE(listed);
  return workers_.back().get();
}

std::string LocalStack::WorkerTempDir() const {
  // The sandbox's user must pass through to the job folders.
  const std::string dir = dir_.File("worker-tmp");
  std::filesystem::create_directories(dir);
  std::filesystem::permissions(dir_.path(), std::filesystem::perms(0711));
  std::filesystem::permissions(dir, std::filesystem::perms(0711));
  return dir;
}

SubprocessResult LocalStack::Kseek(const std::vector<std::string>& args, const std::string& token,
                                   const std::vector<std::pair<std::string, std::string>>& env) {
  SubprocessSpec spec;
  spec.argv = {BinDir() + "/kseek"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.extra_env = {{"KSEEK_SERVER", address_}, {"KSEEK_TOKEN", token.empty() ? user_token_ : token}};
  spec.extra_env.insert(spec.extra_env.end(), env.begin(), env.end());
  spec.time_limit = absl::Seconds(180);
  auto result = RunSubprocess(spec);
  REQUIRE(result.ok());
  return *std::move(result);
}

std::unique_ptr<ChildProcess> LocalStack::StartKseek(const std::vector<std::string>& args,
                                                     const std::string& log_name) {
  std::vector<std::string> argv = {BinDir() + "/kseek"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto cli = ChildProcess::Start(argv, dir_.File(log_name), {{"KSEEK_SERVER", address_}, {"KSEEK_TOKEN", user_token_}});
  REQUIRE(cli.ok());
  return *std::move(cli);
}

nlohmann::json JobJson(LocalStack& stack, const std::string& id) {
  SubprocessResult r = stack.Kseek({"job", id, "--json"});
  INFO(r.stderr_text);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.stdout_text);
}

std::string WriteSlowNvcc(LocalStack& stack) {
  const std::string path = stack.dir().File("tools/nvcc");
  std::filesystem::create_directories(stack.dir().File("tools"));
  std::filesystem::permissions(stack.dir().path(), std::filesystem::perms(0711));
  WriteFile(path,
            "#!/bin/sh\ncase \"$1\" in --version|--list-gpu-code|--list-gpu-arch) ;; *) sleep 30;; esac\n"
            "exec /usr/local/cuda/bin/nvcc \"$@\"\n");
  REQUIRE(chmod(path.c_str(), 0755) == 0);
  return path;
}

}  // namespace kseek::testing
