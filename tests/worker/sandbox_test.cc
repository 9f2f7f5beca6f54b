// The probes of a hostile team member against a worker, each of which once
// read the host's files or took its resources, now through the sandbox: each
// must fail closed. They need bubblewrap (CI installs it) and, for the
// compile probes, nvcc; without them they skip with a warning.
#include "worker/sandbox.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tests/testing/temp_dir.h"
#include "worker/compiler.h"

namespace kseek {
namespace {

constexpr char kNvccPath[] = "/usr/local/cuda/bin/nvcc";
constexpr char kBwrapPath[] = "/usr/bin/bwrap";

bool HaveBwrap() { return access(kBwrapPath, X_OK) == 0; }
bool HaveNvcc() { return access(kNvccPath, X_OK) == 0; }

// A job folder parent the sandbox's user can pass through, as the worker's.
struct Jobs {
  Jobs() { std::filesystem::permissions(dir.path(), std::filesystem::perms(0711)); }
  testing::TempDir dir;
};

Sandbox MakeSandbox(ResourceLimits compile_limits = {}) {
  SandboxConfig config = Sandbox::DefaultConfig(kBwrapPath, {kNvccPath});
  if (compile_limits.address_space_bytes != 0 || compile_limits.processes != 0) {
    config.compile_limits = compile_limits;
  }
  absl::StatusOr<Sandbox> sandbox = Sandbox::Create(config);
  INFO(sandbox.status().ToString());
  REQUIRE(sandbox.ok());
  return *std::move(sandbox);
}

// A job folder under `jobs_dir`, handed to the sandbox's user as the worker's.
std::string JobDir(const Sandbox& sandbox, const std::string& jobs_dir) {
  const std::string dir = jobs_dir + "/kseek-run-test";
  std::filesystem::create_directory(dir);
  REQUIRE(sandbox.HandOver(dir).ok());
  return dir;
}

SubprocessResult RunIn(const Sandbox& sandbox, const std::string& jobs_dir, std::vector<std::string> argv) {
  const std::string job_dir = JobDir(sandbox, jobs_dir);
  SubprocessSpec spec;
  spec.argv = std::move(argv);
  spec.time_limit = absl::Seconds(60);
  sandbox.Apply(SandboxKind::kCompile, {job_dir}, {}, &spec);
  absl::StatusOr<SubprocessResult> ran = RunSubprocess(spec);
  INFO(ran.status().ToString());
  REQUIRE(ran.ok());
  return *std::move(ran);
}

kernelseek::v1::CompileResult CompileIn(const Sandbox& sandbox, const std::string& jobs_dir,
                                        const std::string& source) {
  CompilerConfig config;
  config.nvcc_path = kNvccPath;
  config.supported_archs = {"sm_90a"};
  config.temp_dir = jobs_dir;
  config.time_limit = absl::Seconds(120);
  config.sandbox = &sandbox;
  Compiler compiler(config);
  kernelseek::v1::JobSpec spec;
  spec.set_kind(kernelseek::v1::JOB_KIND_COMPILE);
  spec.set_source_name("probe.cu");
  spec.set_source(source);
  spec.mutable_compile()->set_arch("sm_90a");
  absl::StatusOr<kernelseek::v1::CompileResult> result = compiler.Compile(spec);
  INFO(result.status().ToString());
  REQUIRE(result.ok());
  return *std::move(result);
}

std::string AllText(const kernelseek::v1::CompileResult& r) {
  std::string text = r.log();
  for (const auto& d : r.diagnostics()) absl::StrAppend(&text, "\n", d.message());
  return text;
}

TEST_CASE("a compile job cannot #include the host's files, the worker's token or another job's folder") {
  if (!HaveBwrap() || !HaveNvcc()) {
    WARN("skipped: needs " << kBwrapPath << " and " << kNvccPath);
    return;
  }
  Jobs jobs;
  Sandbox sandbox = MakeSandbox();
  // What the sandbox must hide: a token file of the worker's and a file in
  // another job's folder, both readable by the worker itself.
  const std::string token = jobs.dir.File("worker.token");
  std::ofstream(token) << "ksw_secret_token_value\n";
  std::filesystem::create_directory(jobs.dir.File("kseek-compile-other"));
  const std::string other = jobs.dir.File("kseek-compile-other/secret.cu");
  std::ofstream(other) << "int other_users_secret = 42;\n";

  // The worker's own environment, through its pid (not in the sandbox's pid
  // namespace).
  const std::string worker_environ = absl::StrCat("/proc/", getpid(), "/environ");
  for (const std::string& path : {std::string("/etc/passwd"), std::string("/etc/shadow"), token, other,
                                  std::string("/dev/zero"), worker_environ}) {
    INFO("#include \"" << path << "\"");
    kernelseek::v1::CompileResult r = CompileIn(sandbox, jobs.dir.path(), absl::StrCat("#include \"", path, "\"\n"));
    CHECK_FALSE(r.success());
    const std::string text = AllText(r);
    CHECK(text.find("root:") == std::string::npos);
    CHECK(text.find("ksw_secret_token_value") == std::string::npos);
    CHECK(text.find("other_users_secret") == std::string::npos);
    CHECK(r.seconds() < 60);  // /dev/zero is not read forever
  }
}

TEST_CASE("__has_include sees none of the host's files from a compile job") {
  if (!HaveBwrap() || !HaveNvcc()) {
    WARN("skipped: needs " << kBwrapPath << " and " << kNvccPath);
    return;
  }
  Jobs jobs;
  Sandbox sandbox = MakeSandbox();
  // Compiles only if every probe is false; the toolchain's own headers stay
  // visible (the control).
  kernelseek::v1::CompileResult r = CompileIn(sandbox, jobs.dir.path(), R"(
#if __has_include("/etc/passwd") || __has_include("/etc/hostname") || __has_include("/root/.bashrc")
#error host file visible
#endif
#if !__has_include(<cuda_runtime.h>)
#error toolchain not visible
#endif
__global__ void k(float* x) { x[threadIdx.x] = 1.f; }
)");
  INFO(AllText(r));
  CHECK(r.success());
}

TEST_CASE("a sandboxed program has no network, no worker environment and its own processes") {
  if (!HaveBwrap()) {
    WARN("skipped: needs " << kBwrapPath);
    return;
  }
  Jobs jobs;
  Sandbox sandbox = MakeSandbox();
  // A listener of the host's on loopback: reachable from outside the
  // sandbox (the control), not from inside.
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(listener >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  REQUIRE(listen(listener, 4) == 0);
  socklen_t len = sizeof(addr);
  REQUIRE(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  const std::string connect = absl::StrCat("echo hi > /dev/tcp/127.0.0.1/", ntohs(addr.sin_port));

  SubprocessSpec outside;
  outside.argv = {"/bin/bash", "-c", connect};
  absl::StatusOr<SubprocessResult> control = RunSubprocess(outside);
  REQUIRE(control.ok());
  CHECK(control->Succeeded());
  CHECK_FALSE(RunIn(sandbox, jobs.dir.path(), {"/bin/bash", "-c", connect}).Succeeded());
  close(listener);

  setenv("KSEEK_WORKER_TOKEN", "ksw_from_the_environment", 1);
  SubprocessResult env = RunIn(sandbox, jobs.dir.path(), {"/usr/bin/env"});
  unsetenv("KSEEK_WORKER_TOKEN");
  CHECK(env.Succeeded());
  CHECK(env.stdout_text.find("ksw_from_the_environment") == std::string::npos);
  CHECK(env.stdout_text.find("PATH=") != std::string::npos);

  // Its own pid namespace: only its own processes.
  SubprocessResult ps = RunIn(sandbox, jobs.dir.path(), {"/bin/sh", "-c", "ls /proc | grep -c '^[0-9]'"});
  CHECK(ps.Succeeded());
  CHECK(std::stoi(ps.stdout_text) < 10);

  // The job folder is writable, the toolchain is not.
  SubprocessResult write = RunIn(sandbox, jobs.dir.path(),
                                 {"/bin/sh", "-c", absl::StrCat("echo x > ", jobs.dir.path(), "/kseek-run-test/f && echo x > /usr/f")});
  CHECK_FALSE(write.Succeeded());
  CHECK(std::filesystem::exists(jobs.dir.File("kseek-run-test/f")));
  CHECK_FALSE(std::filesystem::exists("/usr/f"));
}

TEST_CASE("a sandboxed program is held to its memory and process limits") {
  if (!HaveBwrap() || access("/usr/bin/python3", X_OK) != 0) {
    WARN("skipped: needs " << kBwrapPath << " and /usr/bin/python3");
    return;
  }
  if (geteuid() != 0) {
    // As an ordinary user the process limit counts all of that user's
    // processes, which a test cannot know; the sandbox's user is nobody only
    // for a root worker.
    WARN("skipped: the process-limit probe needs a root worker (sandbox user nobody)");
    return;
  }
  Jobs jobs;
  Sandbox sandbox = MakeSandbox({.address_space_bytes = 512ull << 20, .processes = 64});
  SubprocessResult memory =
      RunIn(sandbox, jobs.dir.path(), {"/usr/bin/python3", "-c", "b = bytearray(2 << 30); print('allocated')"});
  CHECK_FALSE(memory.Succeeded());
  CHECK(memory.stdout_text.find("allocated") == std::string::npos);
  CHECK(memory.stderr_text.find("MemoryError") != std::string::npos);

  SubprocessResult forks = RunIn(sandbox, jobs.dir.path(), {"/usr/bin/python3", "-c", R"(
import os, time
n = 0
try:
    for _ in range(400):
        if os.fork() == 0:
            time.sleep(1)
            os._exit(0)
        n += 1
except OSError:
    pass
print(n)
)"});
  INFO(forks.stderr_text);
  REQUIRE_FALSE(forks.stdout_text.empty());
  CHECK(std::stoi(forks.stdout_text) < 64);
}

TEST_CASE("a bubblewrap that cannot make a sandbox is refused at start") {
  if (!HaveBwrap()) {
    WARN("skipped: needs " << kBwrapPath);
    return;
  }
  SandboxConfig broken = Sandbox::DefaultConfig("/bin/false", {});
  absl::StatusOr<Sandbox> refused = Sandbox::Create(broken);
  CHECK(refused.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(absl::StrContains(refused.status().message(), "bubblewrap cannot make a sandbox"));
}

// /usr/local/bin/nvcc, a wrapper, made the worker show /usr/local/lib64, a
// link into the CUDA toolkit inside the /usr already shown: bubblewrap
// cannot mount on a link, and the worker refused to start (seen in CI).
TEST_CASE("a tool whose lib64 beside its bin is a link, inside a folder already shown, runs sandboxed") {
  if (!HaveBwrap()) {
    WARN("skipped: needs " << kBwrapPath);
    return;
  }
  Jobs jobs;
  const std::filesystem::path tree = std::filesystem::path(jobs.dir.path()) / "toolkit";
  std::filesystem::create_directories(tree / "bin");
  std::filesystem::create_directories(tree / "real" / "lib");
  std::filesystem::create_directory_symlink("lib", tree / "real" / "lib64");
  std::filesystem::create_directory_symlink(tree / "real" / "lib64", tree / "lib64");
  const std::string tool = (tree / "bin" / "tool").string();
  std::ofstream(tool) << "#!/bin/sh\necho tool ran\n";
  std::filesystem::permissions(tool, std::filesystem::perms(0755));
  for (const auto& entry : std::filesystem::recursive_directory_iterator(tree)) {
    if (!entry.is_symlink() && entry.is_directory()) std::filesystem::permissions(entry.path(), std::filesystem::perms(0755));
  }
  std::filesystem::permissions(tree, std::filesystem::perms(0755));

  SandboxConfig config = Sandbox::DefaultConfig(kBwrapPath, {tool});
  config.read_only_paths.insert(config.read_only_paths.begin(), tree.string());
  absl::StatusOr<Sandbox> sandbox = Sandbox::Create(config);
  INFO(sandbox.status().ToString());
  REQUIRE(sandbox.ok());
  SubprocessResult ran = RunIn(*sandbox, jobs.dir.path(), {tool});
  INFO(ran.stderr_text);
  CHECK(ran.Succeeded());
  CHECK(ran.stdout_text == "tool ran\n");
}

// The process limit counts every process of the sandbox's user: jobs of two
// workers under one user share it, under users of their own they do not.
TEST_CASE("sandboxes of different users do not share the process limit") {
  if (!HaveBwrap() || geteuid() != 0 || access("/usr/bin/python3", X_OK) != 0) {
    WARN("skipped: needs " << kBwrapPath << ", /usr/bin/python3 and a root worker");
    return;
  }
  Jobs jobs;
  auto make = [](int64_t uid) {
    SandboxConfig config = Sandbox::DefaultConfig(kBwrapPath, {});
    config.uid = config.gid = uid;
    config.compile_limits.processes = 24;
    absl::StatusOr<Sandbox> sandbox = Sandbox::Create(config);
    INFO(sandbox.status().ToString());
    REQUIRE(sandbox.ok());
    return *std::move(sandbox);
  };
  const Sandbox first = make(61184 + 40);
  const Sandbox same = make(61184 + 40);
  const Sandbox own = make(61184 + 41);
  // The first sandbox's user holds its whole process allowance for 6 s.
  const std::string hold_dir = JobDir(first, jobs.dir.path());
  SubprocessSpec hold;
  hold.argv = {"/usr/bin/python3", "-c", R"(
import os, time
try:
    for _ in range(40):
        if os.fork() == 0:
            time.sleep(6)
            os._exit(0)
except OSError:
    pass
time.sleep(6)
)"};
  hold.time_limit = absl::Seconds(30);
  first.Apply(SandboxKind::kCompile, {hold_dir}, {}, &hold);
  absl::StatusOr<SubprocessResult> held;
  std::thread holder([&] { held = RunSubprocess(hold); });
  absl::SleepFor(absl::Seconds(2));

  const std::vector<std::string> fork_once = {"/bin/sh", "-c", "/bin/true && echo forked"};
  std::filesystem::create_directories(jobs.dir.path() + "/other");
  std::filesystem::permissions(jobs.dir.path() + "/other", std::filesystem::perms(0711));
  SubprocessResult same_user = RunIn(same, jobs.dir.path() + "/other", fork_once);
  SubprocessResult own_user = RunIn(own, jobs.dir.path() + "/other", fork_once);
  holder.join();
  INFO(same_user.stderr_text << own_user.stderr_text);
  CHECK_FALSE(same_user.Succeeded());
  CHECK(own_user.Succeeded());
  CHECK(own_user.stdout_text == "forked\n");
}

}  // namespace
}  // namespace kseek
