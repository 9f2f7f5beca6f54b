// End to end: queue control through the real CLI, server and worker. A job
// that no connected worker could run is refused at submit (or queued on
// request, saying why it waits); queued jobs say their place; `kseek jobs`
// filters on the server; Ctrl-C while kseek waits leaves the job running.
#include <signal.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "tests/e2e/local_stack.h"

namespace kseek::testing {
namespace {

using nlohmann::json;

constexpr const char* kKernel = R"cu(
__global__ void scale_rows(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.f * in[i];
}
)cu";

// An nvcc that waits before compiling while the file it returns in `hold`
// exists (60 s at most), so that a test decides when the running job ends.
std::string WriteHeldNvcc(LocalStack& stack, std::string* hold) {
  const std::string tools = stack.dir().File("tools");
  std::filesystem::create_directories(tools);
  std::filesystem::permissions(stack.dir().path(), std::filesystem::perms(0711));
  *hold = tools + "/hold";
  WriteFile(*hold, "");
  const std::string path = tools + "/nvcc";
  WriteFile(path, absl::StrCat("#!/bin/sh\ncase \"$1\" in --version|--list-gpu-code|--list-gpu-arch) ;; *)\n"
                               "  i=0; while [ -e ",
                               *hold, " ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done;;\nesac\n"
                               "exec /usr/local/cuda/bin/nvcc \"$@\"\n"));
  REQUIRE(chmod(path.c_str(), 0755) == 0);
  return path;
}

std::string Submitted(const SubprocessResult& r) {
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 0);
  return std::string(absl::StripAsciiWhitespace(r.stdout_text));
}

// The ids `kseek jobs ARGS --json` lists, newest first.
std::vector<std::string> ListedIds(LocalStack& stack, std::vector<std::string> args) {
  args.insert(args.begin(), "jobs");
  args.push_back("--json");
  SubprocessResult r = stack.Kseek(args);
  INFO(r.stderr_text);
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> ids;
  for (const json& job : json::parse(r.stdout_text).value("jobs", json::array())) ids.push_back(job["id"]);
  return ids;
}

TEST_CASE("a verify no connected worker can run is refused at once, or queued with --wait-for-worker saying why",
          "[e2e][queue]") {
  LocalStack stack;
  stack.StartServer();
  stack.StartWorker("cpu-1");
  const std::string kernel = stack.dir().File("k.cu");
  WriteFile(kernel, kKernel);

  SubprocessResult refused = stack.Kseek({"verify", kernel, "--problem", "attention_fwd", "--arch", "sm_90a"});
  INFO(refused.stderr_text);
  CHECK(refused.exit_code == 5);
  CHECK_THAT(refused.stderr_text, Catch::Contains("no connected worker has arch=sm_90 ") &&
                                      Catch::Contains("cpu-1 (no arch, compile=") &&
                                      Catch::Contains("--wait-for-worker"));
  CHECK(ListedIds(stack, {}).empty());

  const std::string verify = Submitted(stack.Kseek(
      {"verify", kernel, "--problem", "attention_fwd", "--arch", "sm_90a", "--no-wait", "--wait-for-worker"}));
  json job = JobJson(stack, verify);
  CHECK(job["state"] == "JOB_STATE_QUEUED");
  CHECK(job["queue_position"] == 0);
  CHECK_THAT(job["waiting_for"].get<std::string>(), Catch::Contains("no connected worker has arch=sm_90"));
  SubprocessResult shown = stack.Kseek({"job", verify});
  CHECK_THAT(shown.stdout_text, Catch::Contains("waiting") && Catch::Contains("no connected worker has arch=sm_90"));

  const std::string compile = Submitted(stack.Kseek({"compile", kernel, "--arch", "sm_90a", "--no-wait"}));
  REQUIRE(WaitFor([&] { return JobJson(stack, compile)["state"] == "JOB_STATE_SUCCEEDED"; }, absl::Seconds(60)));

  // Filters, applied by the server: every one given must hold.
  CHECK(ListedIds(stack, {"--problem", "attention_fwd"}) == std::vector<std::string>{verify});
  CHECK(ListedIds(stack, {"--state", "queued"}) == std::vector<std::string>{verify});
  CHECK(ListedIds(stack, {"--state", "SUCCEEDED", "--user", "tester"}) == std::vector<std::string>{compile});
  CHECK(ListedIds(stack, {"--user", "tester"}) == std::vector<std::string>{compile, verify});
  CHECK(ListedIds(stack, {"--user", "nobody"}).empty());
  CHECK(ListedIds(stack, {"--user", "tester", "--limit", "1"}).size() == 1);
  SubprocessResult bad_state = stack.Kseek({"jobs", "--state", "done"});
  CHECK(bad_state.exit_code == 2);
  CHECK_THAT(bad_state.stderr_text, Catch::Contains("\"done\"") &&
                                        Catch::Contains("queued, leased, succeeded, failed, cancelled"));

  SubprocessResult cancel = stack.Kseek({"cancel", verify});
  CHECK(cancel.exit_code == 0);
  CHECK(ListedIds(stack, {"--state", "cancelled"}) == std::vector<std::string>{verify});
}

TEST_CASE("queued jobs say their place, Ctrl-C leaves the job running and says how to follow it, job --wait does",
          "[e2e][queue]") {
  LocalStack stack;
  stack.StartServer();
  std::string hold;
  stack.StartWorker("w1", WriteHeldNvcc(stack, &hold), {"--no-sandbox"});
  const std::string kernel = stack.dir().File("k.cu");
  WriteFile(kernel, kKernel);

  std::unique_ptr<ChildProcess> waiting = stack.StartKseek({"compile", kernel, "--arch", "sm_90a"}, "compile.log");
  // The CLI follows job 1 (a fresh database) once it shows the worker's stage.
  REQUIRE(WaitFor(
      [&] { return ReadFile(waiting->log_path()).find("compiling for sm_90a on w1") != std::string::npos; },
      absl::Seconds(30)));
  const std::string second = Submitted(stack.Kseek({"compile", kernel, "--arch", "sm_90a", "--no-wait"}));
  const std::string third = Submitted(stack.Kseek({"compile", kernel, "--arch", "sm_90a", "--no-wait"}));

  json next = JobJson(stack, second);
  CHECK(next["queue_position"] == 1);
  CHECK_THAT(next["waiting_for"].get<std::string>(), Catch::Contains("busy") && Catch::Contains("w1 running job 1"));
  json last = JobJson(stack, third);
  CHECK(last["queue_position"] == 2);
  CHECK_THAT(last["waiting_for"].get<std::string>(), Catch::Contains("1 job ahead"));
  CHECK_THAT(stack.Kseek({"job", third}).stdout_text, Catch::Contains("position  2"));
  CHECK_THAT(stack.Kseek({"jobs"}).stdout_text, Catch::Contains("queued #1") && Catch::Contains("queued #2"));

  waiting->Signal(SIGINT);
  CHECK(waiting->Wait() == 130);
  const std::string said = ReadFile(waiting->log_path());
  INFO(said);
  CHECK_THAT(said, Catch::Contains("job 1 goes on on the server") && Catch::Contains("`kseek job 1 --wait`") &&
                       Catch::Contains("`kseek cancel 1`"));
  CHECK(JobJson(stack, "1")["state"] == "JOB_STATE_LEASED");

  std::filesystem::remove(hold);
  SubprocessResult followed = stack.Kseek({"job", "1", "--wait"});
  INFO(followed.stdout_text << followed.stderr_text);
  CHECK(followed.exit_code == 0);
  CHECK_THAT(followed.stdout_text, Catch::Contains("scale_rows"));
  SubprocessResult after = stack.Kseek({"job", third, "--wait"});
  CHECK(after.exit_code == 0);
  CHECK(JobJson(stack, second)["state"] == "JOB_STATE_SUCCEEDED");
}

}  // namespace
}  // namespace kseek::testing
