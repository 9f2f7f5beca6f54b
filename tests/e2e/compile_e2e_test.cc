// End to end: the real kseek CLI, kseek-server and kseek-worker on loopback,
// a temp SQLite file and the real nvcc, compiling real kernels.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

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
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  if (i < n) out[i] = __expf(tile[threadIdx.x]) * tile[(threadIdx.x + 1) % 256];
}
)cu";

std::string WriteKernel(const LocalStack& stack, const std::string& name, const std::string& text) {
  std::string path = stack.dir().File(name);
  WriteFile(path, text);
  return path;
}

TEST_CASE("the CLI compiles a kernel for sm_90a and sm_100a through server and worker", "[e2e]") {
  LocalStack stack;
  stack.StartServer();
  stack.StartWorker("cpu-1");
  std::string kernel = WriteKernel(stack, "scale_rows.cu", kKernel);
  for (const std::string arch : {"sm_90a", "sm_100a"}) {
    SubprocessResult text = stack.Kseek({"compile", kernel, "--arch", arch});
    INFO(text.stdout_text << text.stderr_text);
    REQUIRE(text.exit_code == 0);
    REQUIRE_THAT(text.stdout_text, Catch::Contains("scale_rows"));

    SubprocessResult r = stack.Kseek({"compile", kernel, "--arch", arch, "--json"});
    REQUIRE(r.exit_code == 0);
    json job = json::parse(r.stdout_text);
    REQUIRE(job["state"] == "JOB_STATE_SUCCEEDED");
    const json& compile = job["result"]["compile"];
    REQUIRE(compile["success"] == true);
    REQUIRE(compile["resources"].size() == 1);
    REQUIRE(compile["resources"][0]["arch"] == arch);
    REQUIRE(compile["resources"][0]["registers"].get<int>() > 0);
    REQUIRE(compile["resources"][0]["shared_bytes"].get<int>() == 1024);
    // cuobjdump is part of the installed toolchain here: the SASS summary must be there.
    REQUIRE(compile["sass"].size() == 1);
    int mufu = 0;
    for (const json& c : compile["sass"][0]["classes"]) {
      if (c["name"] == "MUFU") mufu = c.value("count", 0);
    }
    REQUIRE(mufu > 0);
  }
  SubprocessResult workers = stack.Kseek({"workers"});
  REQUIRE(workers.exit_code == 0);
  REQUIRE_THAT(workers.stdout_text, Catch::Contains("cpu-1") && Catch::Contains("sm_100a"));
}

TEST_CASE("bad input gets a clear error and nothing half-stored", "[e2e]") {
  LocalStack stack;
  stack.StartServer();
  stack.StartWorker("cpu-1");

  SECTION("source that does not compile comes back with diagnostics and line numbers") {
    std::string bad = WriteKernel(stack, "broken.cu", "__global__ void k(float* x) {\n  x[0] = y;\n}\n");
    SubprocessResult r = stack.Kseek({"compile", bad, "--arch", "sm_90a"});
    INFO(r.stdout_text << r.stderr_text);
    REQUIRE(r.exit_code == 1);
    REQUIRE_THAT(r.stdout_text, Catch::Contains("broken.cu:2") && Catch::Contains("error"));
    REQUIRE_THAT(r.stdout_text, Catch::Contains("\"y\" is undefined") || Catch::Contains("identifier \"y\""));
  }
  SECTION("an unknown arch, an oversized source and forbidden flags are refused before anything is queued") {
    std::string kernel = WriteKernel(stack, "ok.cu", kKernel);
    SubprocessResult arch = stack.Kseek({"compile", kernel, "--arch", "sm_42"});
    REQUIRE(arch.exit_code == 2);
    REQUIRE_THAT(arch.stderr_text, Catch::Contains("sm_42"));

    std::string huge = WriteKernel(stack, "huge.cu", std::string((1 << 20) + 10, ' '));
    SubprocessResult big = stack.Kseek({"compile", huge, "--arch", "sm_90a"});
    REQUIRE(big.exit_code == 2);
    REQUIRE_THAT(big.stderr_text, Catch::Contains("limit"));

    for (std::string define : {"X -o /etc/x", "--run", "-ccbin=/bin/sh", "A=1,-o/etc/x"}) {
      SubprocessResult r = stack.Kseek({"compile", kernel, "--arch", "sm_90a", "--define", define});
      INFO(define << ": " << r.stderr_text);
      REQUIRE(r.exit_code == 2);
      REQUIRE_FALSE(r.stderr_text.empty());
    }
    SubprocessResult jobs = stack.Kseek({"jobs", "--json"});
    REQUIRE(jobs.exit_code == 0);
    json listed = json::parse(jobs.stdout_text);
    REQUIRE(listed.value("jobs", json::array()).empty());
  }
  SECTION("missing and wrong tokens, and unknown job ids") {
    SubprocessSpec no_token;
    no_token.argv = {BinDir() + "/kseek", "--server", stack.address(), "jobs"};
    no_token.extra_env = {{"KSEEK_TOKEN", ""}};
    auto r1 = RunSubprocess(no_token);
    REQUIRE(r1->exit_code == 3);
    REQUIRE_THAT(r1->stderr_text, Catch::Contains("token create"));

    SubprocessResult wrong = stack.Kseek({"jobs"}, "ksu_not-a-real-token");
    REQUIRE(wrong.exit_code == 3);
    REQUIRE_THAT(wrong.stderr_text, Catch::Contains("token"));

    SubprocessResult unknown = stack.Kseek({"job", "424242"});
    REQUIRE(unknown.exit_code == 2);
    REQUIRE_THAT(unknown.stderr_text, Catch::Contains("424242"));
  }
}

TEST_CASE("kill -9 of a worker holding a lease: the job completes on a second worker, listed once", "[e2e][fault]") {
  LocalStack stack;
  stack.StartServer({"--lease-timeout", "2"});
  // A slow nvcc keeps the first worker inside the job long enough to kill it there.
  ChildProcess* first = stack.StartWorker("doomed", WriteSlowNvcc(stack));

  std::string kernel = WriteKernel(stack, "k.cu", kKernel);
  SubprocessResult submitted = stack.Kseek({"compile", kernel, "--arch", "sm_90a", "--no-wait"});
  INFO(submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  std::string id(absl::StripAsciiWhitespace(submitted.stdout_text));
  bool leased = WaitFor([&] { return JobJson(stack, id)["state"] == "JOB_STATE_LEASED"; }, absl::Seconds(20));
  INFO(ReadFile(first->log_path()));
  REQUIRE(leased);
  first->Signal(SIGKILL);
  first->Wait();

  stack.StartWorker("rescuer");
  bool done = WaitFor([&] { return JobJson(stack, id)["state"] == "JOB_STATE_SUCCEEDED"; }, absl::Seconds(60));
  json job = JobJson(stack, id);
  INFO(job.dump(2));
  REQUIRE(done);
  REQUIRE(job["worker"] == "rescuer");
  REQUIRE(job["attempts"] == 2);
  json listed = json::parse(stack.Kseek({"jobs", "--json"}).stdout_text);
  REQUIRE(listed["jobs"].size() == 1);
}

TEST_CASE("a job during which the worker process crashes fails once with the reason, and the worker comes back",
          "[e2e][fault]") {
  LocalStack stack;
  stack.StartServer({"--lease-timeout", "20"});
  ChildProcess* worker = stack.StartWorker("fragile", WriteSlowNvcc(stack));
  std::string kernel = WriteKernel(stack, "k.cu", kKernel);
  SubprocessResult submitted = stack.Kseek({"compile", kernel, "--arch", "sm_90a", "--no-wait"});
  REQUIRE(submitted.exit_code == 0);
  std::string id(absl::StripAsciiWhitespace(submitted.stdout_text));
  REQUIRE(WaitFor([&] { return JobJson(stack, id)["state"] == "JOB_STATE_LEASED"; }, absl::Seconds(20)));

  // The loop runs in the supervisor's child: the process a bad job brings down.
  std::string log = ReadFile(worker->log_path());
  size_t at = log.find("worker process ");
  REQUIRE(at != std::string::npos);
  pid_t loop_pid = std::stoi(log.substr(at + std::string("worker process ").size()));
  REQUIRE(kill(loop_pid, SIGSEGV) == 0);

  REQUIRE(WaitFor([&] { return JobJson(stack, id)["state"] == "JOB_STATE_FAILED"; }, absl::Seconds(20)));
  json job = JobJson(stack, id);
  INFO(job.dump(2));
  CHECK(job["attempts"] == 1);
  CHECK_THAT(job["failure"].get<std::string>(), Catch::Contains("worker fragile died while running this job"));
  CHECK_THAT(job["failure"].get<std::string>(), Catch::Contains("signal 11"));
  // The supervisor started the loop again, and it serves.
  REQUIRE(WaitFor([&] { return ReadFile(worker->log_path()).find("starting it again") != std::string::npos; },
                  absl::Seconds(10)));
  REQUIRE(WaitFor([&] {
    return stack.Kseek({"workers"}).stdout_text.find("idle") != std::string::npos;
  }, absl::Seconds(20)));
}

TEST_CASE("a second worker started with a live worker's name is refused with a clear message", "[e2e][fault]") {
  LocalStack stack;
  stack.StartServer();
  stack.StartWorker("twin");
  SubprocessSpec second;
  second.argv = {BinDir() + "/kseek-worker", "--server", stack.address(), "--name", "twin"};
  second.extra_env = {{"KSEEK_WORKER_TOKEN", stack.worker_token()}};
  second.time_limit = absl::Seconds(60);
  absl::StatusOr<SubprocessResult> r = RunSubprocess(second);
  REQUIRE(r.ok());
  INFO(r->stderr_text);
  CHECK(r->exit_code == 1);
  CHECK_THAT(r->stderr_text, Catch::Contains("a worker named twin is already connected"));
  // The first one still serves.
  SubprocessResult listed = stack.Kseek({"workers"});
  CHECK_THAT(listed.stdout_text, Catch::Contains("twin"));
}

TEST_CASE("kseek cancel stops a running job, its worker kills nvcc and takes the next job", "[e2e]") {
  LocalStack stack;
  stack.StartServer({"--lease-timeout", "3"});
  ChildProcess* worker = stack.StartWorker("busy", WriteSlowNvcc(stack));
  std::string kernel = WriteKernel(stack, "k.cu", kKernel);
  SubprocessResult submitted = stack.Kseek({"compile", kernel, "--arch", "sm_90a", "--no-wait"});
  REQUIRE(submitted.exit_code == 0);
  std::string id(absl::StripAsciiWhitespace(submitted.stdout_text));
  REQUIRE(WaitFor([&] { return JobJson(stack, id)["stage"] != "queued" &&
                               JobJson(stack, id)["state"] == "JOB_STATE_LEASED"; }, absl::Seconds(20)));
  SubprocessResult other_user = stack.Kseek({"cancel", "999"});
  CHECK(other_user.exit_code == 2);
  SubprocessResult cancel = stack.Kseek({"cancel", id});
  INFO(cancel.stderr_text);
  REQUIRE(cancel.exit_code == 0);
  CHECK(cancel.stdout_text == "job " + id + ": cancelled\n");
  json job = JobJson(stack, id);
  CHECK(job["state"] == "JOB_STATE_CANCELLED");
  SubprocessResult again = stack.Kseek({"cancel", id});
  CHECK(again.exit_code != 0);
  CHECK_THAT(again.stderr_text, Catch::Contains("already ended"));
  // The worker drops it at its next sync, killing the sleeping nvcc, and is
  // free again well before nvcc's 30 s were up.
  REQUIRE(WaitFor([&] { return ReadFile(worker->log_path()).find("dropping lease") != std::string::npos; },
                  absl::Seconds(15)));
  bool idle = WaitFor([&] { return stack.Kseek({"workers"}).stdout_text.find(" idle ") != std::string::npos; },
                      absl::Seconds(15));
  INFO(stack.Kseek({"workers"}).stdout_text);
  INFO(ReadFile(worker->log_path()));
  REQUIRE(idle);
}

TEST_CASE("a worker clears the job folders an earlier run of it left, users' sources among them", "[e2e][fault]") {
  LocalStack stack;
  stack.StartServer();
  const std::string left = stack.WorkerTempDir() + "/kseek-worker-stale/kseek-compile-old";
  std::filesystem::create_directories(left);
  WriteFile(left + "/secret.cu", "int someone_elses_kernel;\n");
  ChildProcess* worker = stack.StartWorker("stale");
  CHECK_FALSE(std::filesystem::exists(left));
  CHECK_THAT(ReadFile(worker->log_path()), Catch::Contains("removed 1 job folder(s) left by an earlier run"));
}

// Two workers of one name on one host would share a job folder, and the
// second, clearing it at start, would delete the first one's running jobs.
TEST_CASE("a second worker of the same name and temp folder on one host is refused before it dials", "[e2e][fault]") {
  LocalStack stack;
  stack.StartServer();
  stack.StartWorker("shared");
  SubprocessSpec second;
  second.argv = {BinDir() + "/kseek-worker", "--server", stack.address(), "--name", "shared",
                 "--temp-dir", stack.WorkerTempDir()};
  second.extra_env = {{"KSEEK_WORKER_TOKEN", stack.worker_token()}};
  second.time_limit = absl::Seconds(60);
  absl::StatusOr<SubprocessResult> r = RunSubprocess(second);
  REQUIRE(r.ok());
  INFO(r->stderr_text);
  CHECK(r->exit_code == 1);
  CHECK_THAT(r->stderr_text, Catch::Contains("another kseek-worker named shared runs on this host"));
  SubprocessResult listed = stack.Kseek({"workers"});
  CHECK_THAT(listed.stdout_text, Catch::Contains("shared"));
}

TEST_CASE("kill -9 of the server with jobs queued: after restart every acknowledged job is there", "[e2e][fault]") {
  LocalStack stack;
  stack.StartServer();
  std::string kernel = WriteKernel(stack, "k.cu", kKernel);
  std::vector<std::string> ids;
  // No worker is up yet: the jobs are queued for the one that starts later.
  for (int i = 0; i < 5; ++i) {
    SubprocessResult r = stack.Kseek({"compile", kernel, "--arch", "sm_90a", "--no-wait", "--wait-for-worker"});
    REQUIRE(r.exit_code == 0);
    ids.emplace_back(absl::StripAsciiWhitespace(r.stdout_text));
  }
  stack.KillServer(SIGKILL);
  stack.StartServer();
  for (const std::string& id : ids) REQUIRE(JobJson(stack, id)["state"] == "JOB_STATE_QUEUED");

  stack.StartWorker("cpu-1");
  for (const std::string& id : ids) {
    INFO("job " << id);
    REQUIRE(WaitFor([&] { return JobJson(stack, id)["state"] == "JOB_STATE_SUCCEEDED"; }, absl::Seconds(60)));
  }
}

TEST_CASE("SIGTERM stops the server gracefully", "[e2e]") {
  LocalStack stack;
  stack.StartServer();
  stack.KillServer(SIGTERM);
  REQUIRE(stack.server()->Wait() == 0);
  REQUIRE_THAT(ReadFile(stack.server()->log_path()), Catch::Contains("stopped"));
}

TEST_CASE("a second worker fetches another's build of the same key from the server instead of compiling",
          "[e2e][cache]") {
  LocalStack stack;
  stack.StartServer();
  ChildProcess* builder = stack.StartWorker("builder");
  std::string kernel = WriteKernel(stack, "scale_rows.cu", kKernel);
  SubprocessResult first = stack.Kseek({"compile", kernel, "--arch", "sm_90a", "--define", "TILE=64", "--json"});
  INFO(first.stdout_text << first.stderr_text);
  REQUIRE(first.exit_code == 0);
  json built = json::parse(first.stdout_text);
  REQUIRE(built["worker"] == "builder");
  const std::string miss = built["result"]["compile"]["cache"];
  REQUIRE_THAT(miss, Catch::StartsWith("miss "));
  const std::string key_prefix = miss.substr(5);

  // Its own disk answers the builder the second time.
  SubprocessResult again = stack.Kseek({"compile", kernel, "--arch", "sm_90a", "--define", "TILE=64"});
  INFO(again.stdout_text);
  REQUIRE(again.exit_code == 0);
  REQUIRE_THAT(again.stdout_text, Catch::Contains("compile: cache hit " + key_prefix + "\n"));

  builder->Signal(SIGTERM);
  builder->Wait();
  stack.StartWorker("fetcher");
  SubprocessResult fetched = stack.Kseek({"compile", kernel, "--arch", "sm_90a", "--define", "TILE=64", "--json"});
  INFO(fetched.stdout_text << fetched.stderr_text);
  REQUIRE(fetched.exit_code == 0);
  json job = json::parse(fetched.stdout_text);
  REQUIRE(job["worker"] == "fetcher");
  const json& compile = job["result"]["compile"];
  REQUIRE(compile["cache"] == "hit " + key_prefix + " from server");
  REQUIRE(compile["success"] == true);
  REQUIRE(compile["resources"] == built["result"]["compile"]["resources"]);
  REQUIRE(compile["sass"] == built["result"]["compile"]["sass"]);

  // Any other define is another key: compiled, not fetched.
  SubprocessResult other = stack.Kseek({"compile", kernel, "--arch", "sm_90a", "--define", "TILE=128", "--json"});
  REQUIRE(other.exit_code == 0);
  const std::string other_cache = json::parse(other.stdout_text)["result"]["compile"]["cache"];
  REQUIRE_THAT(other_cache, Catch::StartsWith("miss "));
}

}  // namespace
}  // namespace kseek::testing
