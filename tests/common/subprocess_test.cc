#include "common/subprocess.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

SubprocessResult MustRun(SubprocessSpec spec) {
  absl::StatusOr<SubprocessResult> result = RunSubprocess(spec);
  INFO(result.status().ToString());
  REQUIRE(result.ok());
  return *std::move(result);
}

SubprocessSpec Shell(std::string script) {
  SubprocessSpec spec;
  spec.argv = {"/bin/sh", "-c", std::move(script)};
  return spec;
}

TEST_CASE("RunSubprocess captures stdout and stderr separately with the exit code") {
  SubprocessResult r = MustRun(Shell("echo out; echo err >&2; exit 3"));
  CHECK(r.stdout_text == "out\n");
  CHECK(r.stderr_text == "err\n");
  CHECK(r.exit_code == 3);
  CHECK(r.term_signal == 0);
  CHECK_FALSE(r.timed_out);
  CHECK_FALSE(r.Succeeded());
  CHECK(r.Describe() == "exit code 3");
}

TEST_CASE("RunSubprocess hands each stderr line to the callback while the program runs") {
  SubprocessSpec spec = Shell("printf 'progress 1/2 a\\n'; sleep 0.2; printf 'progress 2/2 b\\nno newline' >&2");
  spec.argv[2] = "printf 'progress 1/2 a\\n' >&2; sleep 0.2; printf 'progress 2/2 b\\nno newline' >&2";
  std::vector<std::string> lines;
  spec.on_stderr_line = [&lines](absl::string_view line) { lines.emplace_back(line); };
  SubprocessResult r = MustRun(spec);
  REQUIRE(lines == std::vector<std::string>{"progress 1/2 a", "progress 2/2 b"});
  CHECK(r.stderr_text == "progress 1/2 a\nprogress 2/2 b\nno newline");
}

TEST_CASE("RunSubprocess passes argv verbatim, without a shell") {
  SubprocessSpec spec;
  spec.argv = {"/bin/echo", "a b", "$HOME", "; rm -rf /"};
  SubprocessResult r = MustRun(spec);
  CHECK(r.stdout_text == "a b $HOME ; rm -rf /\n");
  CHECK(r.Succeeded());
}

TEST_CASE("RunSubprocess finds a bare program name in PATH") {
  SubprocessSpec spec;
  spec.argv = {"echo", "found"};
  CHECK(MustRun(spec).stdout_text == "found\n");
}

TEST_CASE("RunSubprocess uses the working dir and the extra environment") {
  char pattern[] = "/tmp/kseek-subprocess-test-XXXXXX";
  REQUIRE(mkdtemp(pattern) != nullptr);
  SubprocessSpec spec = Shell("pwd; echo \"$KSEEK_TEST_VAR\"");
  spec.working_dir = pattern;
  spec.extra_env = {{"KSEEK_TEST_VAR", "hello there"}};
  SubprocessResult r = MustRun(spec);
  CHECK(r.stdout_text ==
        absl::StrCat(std::filesystem::canonical(pattern).string(), "\nhello there\n"));
  std::filesystem::remove_all(pattern);
}

TEST_CASE("RunSubprocess gives the child /dev/null as stdin") {
  SubprocessSpec spec;
  spec.argv = {"/bin/cat"};
  spec.time_limit = absl::Seconds(10);
  SubprocessResult r = MustRun(spec);
  CHECK_FALSE(r.timed_out);
  CHECK(r.exit_code == 0);
  CHECK(r.stdout_text.empty());
}

TEST_CASE("RunSubprocess kills the whole process group at the time limit") {
  // The background sleep keeps the pipes open; only a group kill ends it.
  SubprocessSpec spec = Shell("echo started; sleep 30 & sleep 30");
  spec.time_limit = absl::Milliseconds(300);
  SubprocessResult r = MustRun(spec);
  CHECK(r.timed_out);
  CHECK(r.term_signal == SIGKILL);
  CHECK(r.stdout_text == "started\n");
  CHECK(r.wall_seconds < 5);
  CHECK_FALSE(r.Succeeded());
}

TEST_CASE("RunSubprocess returns when the child exits even if a background child holds the pipes") {
  SubprocessResult r = MustRun(Shell("sleep 30 & echo done"));
  CHECK(r.exit_code == 0);
  CHECK(r.stdout_text == "done\n");
  CHECK(r.wall_seconds < 5);
}

TEST_CASE("RunSubprocess reports a terminating signal") {
  SubprocessResult r = MustRun(Shell("kill -TERM $$"));
  CHECK(r.term_signal == SIGTERM);
  CHECK_FALSE(r.timed_out);
  CHECK(r.Describe().find("signal 15") != std::string::npos);
}

TEST_CASE("RunSubprocess caps captured output, keeps draining, and marks it truncated") {
  SubprocessSpec spec = Shell("head -c 3000000 /dev/zero; echo tail >&2");
  spec.max_output_bytes = 1000;
  spec.time_limit = absl::Seconds(20);
  SubprocessResult r = MustRun(spec);
  CHECK_FALSE(r.timed_out);
  CHECK(r.exit_code == 0);
  CHECK(r.stdout_text.size() == 1000);
  CHECK(r.stdout_truncated);
  CHECK(r.stderr_text == "tail\n");
  CHECK_FALSE(r.stderr_truncated);
}

TEST_CASE("RunSubprocess names a missing program in a NOT_FOUND error") {
  SubprocessSpec spec;
  spec.argv = {"/nonexistent/dir/nvcc", "--version"};
  absl::StatusOr<SubprocessResult> r = RunSubprocess(spec);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kNotFound);
  CHECK(r.status().message().find("/nonexistent/dir/nvcc") != std::string::npos);

  spec.argv = {"kseek-no-such-program-in-path"};
  r = RunSubprocess(spec);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kNotFound);
  CHECK(r.status().message().find("kseek-no-such-program-in-path") != std::string::npos);
}

TEST_CASE("RunSubprocess refuses a non-executable file and a missing working dir") {
  SubprocessSpec spec;
  spec.argv = {"/etc/hostname"};
  absl::StatusOr<SubprocessResult> r = RunSubprocess(spec);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kFailedPrecondition);

  spec.argv = {"/bin/true"};
  spec.working_dir = "/nonexistent/work";
  r = RunSubprocess(spec);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(r.status().message().find("/nonexistent/work") != std::string::npos);

  spec.argv.clear();
  CHECK(RunSubprocess(spec).status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("RunSubprocess runs concurrently from several threads without mixing output") {
  constexpr int kThreads = 8;
  constexpr int kRunsPerThread = 10;
  std::vector<std::thread> threads;
  std::vector<int> correct(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &correct] {
      for (int i = 0; i < kRunsPerThread; ++i) {
        std::string word = absl::StrCat("thread", t, "run", i);
        SubprocessSpec spec;
        spec.argv = {"/bin/echo", word};
        spec.time_limit = absl::Seconds(30);
        absl::StatusOr<SubprocessResult> r = RunSubprocess(spec);
        if (r.ok() && r->Succeeded() && r->stdout_text == word + "\n") ++correct[t];
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) CHECK(correct[t] == kRunsPerThread);
}

TEST_CASE("FormatCommandLine quotes only what a shell would split") {
  CHECK(FormatCommandLine({"nvcc", "-o", "$WORK/a.cubin", "-DX=1"}) ==
        "nvcc -o $WORK/a.cubin -DX=1");
  CHECK(FormatCommandLine({"echo", "a b", "it's"}) == "echo 'a b' 'it'\\''s'");
  CHECK(FormatCommandLine({"echo", ""}) == "echo ''");
}

TEST_CASE("RunSubprocess writes stdin_text to the child and keeps it off the command line") {
  SubprocessSpec spec = Shell("read line; echo \"got $line\"");
  spec.stdin_text = "secret-key\n";
  SubprocessResult r = MustRun(spec);
  CHECK(r.stdout_text == "got secret-key\n");
  spec.stdin_text = std::string(kMaxStdinBytes + 1, 'x');
  CHECK(RunSubprocess(spec).status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("RunSubprocess with inherit_environment false passes extra_env alone") {
  setenv("KSEEK_TEST_SECRET", "do-not-pass", 1);
  SubprocessSpec spec;
  spec.argv = {"/usr/bin/env"};
  spec.inherit_environment = false;
  spec.extra_env = {{"ONLY", "this"}};
  SubprocessResult r = MustRun(spec);
  unsetenv("KSEEK_TEST_SECRET");
  CHECK(r.stdout_text == "ONLY=this\n");
}

TEST_CASE("RunSubprocess applies resource limits in the child") {
  SubprocessSpec spec = Shell("head -c 2000000 /dev/zero > big; echo written");
  const testing::TempDir dir;
  spec.working_dir = dir.path();
  spec.limits.file_size_bytes = 100000;
  SubprocessResult r = MustRun(spec);
  CHECK(std::filesystem::file_size(dir.path() + "/big") <= 100000);
  // head is killed by SIGXFSZ; the shell goes on.
  CHECK(r.stdout_text == "written\n");
  SubprocessSpec cpu = Shell("ulimit -t");
  cpu.limits.cpu_seconds = 7;
  CHECK(MustRun(cpu).stdout_text == "7\n");
}

TEST_CASE("a CancelScope's flag kills the running child at once") {
  std::atomic<bool> cancel{false};
  std::thread trigger([&cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  SubprocessResult r;
  {
    CancelScope scope(&cancel);
    r = MustRun(Shell("sleep 30"));
  }
  trigger.join();
  CHECK(r.cancelled);
  CHECK_FALSE(r.Succeeded());
  CHECK(r.Describe() == "cancelled");
  CHECK(r.wall_seconds < 5);
  // Outside the scope the flag means nothing.
  CHECK(MustRun(Shell("true")).Succeeded());
}

TEST_CASE("a child dies with the process that started it") {
  const testing::TempDir dir;
  const std::string pid_file = dir.path() + "/pid";
  pid_t middle = fork();
  REQUIRE(middle >= 0);
  if (middle == 0) {
    // Stands for a worker: starts a long child, then is killed.
    SubprocessSpec spec = Shell(absl::StrCat("echo $$ > ", pid_file, ".tmp; mv ", pid_file, ".tmp ", pid_file,
                                             "; exec sleep 60"));
    (void)RunSubprocess(spec);
    _exit(0);
  }
  for (int i = 0; i < 500 && !std::filesystem::exists(pid_file); ++i) usleep(10000);
  REQUIRE(std::filesystem::exists(pid_file));
  std::ifstream in(pid_file);
  pid_t child = 0;
  in >> child;
  REQUIRE(child > 0);
  CHECK(kill(child, 0) == 0);
  kill(middle, SIGKILL);
  waitpid(middle, nullptr, 0);
  bool gone = false;
  for (int i = 0; i < 300 && !gone; ++i) {
    // Gone, or a zombie waiting for init to reap it.
    std::ifstream stat(absl::StrCat("/proc/", child, "/stat"));
    std::string pid_text, name, state;
    gone = !(stat >> pid_text >> name >> state) || state == "Z";
    if (!gone) usleep(10000);
  }
  CHECK(gone);
}

}  // namespace
}  // namespace kseek
