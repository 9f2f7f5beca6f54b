// GPU test (label `gpu`) of the runner's sandbox: a kernel whose host code
// tries to read the host's files, find the worker's token or the hidden-seed
// key and reach the network (tests/gpu/probes/escapes_sandbox.cu) passes a
// verify job only when every attempt failed. Run through the worker's own
// Compiler and RunExecutor with the sandbox it would use; the same job
// without the sandbox is the control, and must fail.
//
// Paths as in harness_gpu_test.cc: the source tree, or $KSEEK_BUNDLE.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_replace.h"
#include "tests/testing/temp_dir.h"
#include "worker/compiler.h"
#include "worker/run_executor.h"
#include "worker/sandbox.h"

namespace kseek {
namespace {

constexpr char kNvccPath[] = "/usr/local/cuda/bin/nvcc";
constexpr char kScenarios[] = "perf-bf16-d64-full-s512,perf-bf16-d64-causal-s512";

struct Paths {
  std::string bin, share;
};

Paths FindPaths() {
  if (const char* bundle = std::getenv("KSEEK_BUNDLE"); bundle != nullptr && *bundle) {
    return {std::string(bundle) + "/bin", std::string(bundle) + "/share"};
  }
  return {KSEEK_BIN_DIR, KSEEK_SOURCE_DIR};
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool HaveGpu() {
  if (access("/dev/nvidiactl", F_OK) == 0) return true;
  WARN("skipped: no GPU visible (no /dev/nvidiactl)");
  return false;
}

// The probe as one source: naive.cu renamed, then the probe's own code.
std::string ProbeSource(const Paths& paths) {
  const bool bundle = paths.share != KSEEK_SOURCE_DIR;
  std::string naive = ReadText(paths.share + "/kernels/attention_fwd/naive.cu");
  std::string probe = ReadText(paths.share + (bundle ? "/probes" : "/tests/gpu/probes") + "/escapes_sandbox.cu");
  std::string plant = ReadText(paths.share + (bundle ? "/planted" : "/tests/gpu/planted") + "/plant.cuh");
  REQUIRE(!naive.empty());
  REQUIRE(!probe.empty());
  REQUIRE(!plant.empty());
  plant = absl::StrReplaceAll(plant, {{"#include \"naive.cu\"", naive}, {"#pragma once", ""}});
  return absl::StrReplaceAll(probe, {{"#include \"plant.cuh\"", plant}});
}

kernelseek::v1::RunResult VerifyProbe(const Paths& paths, const Sandbox* sandbox, const std::string& jobs_dir) {
  CompilerConfig compile;
  compile.nvcc_path = kNvccPath;
  compile.supported_archs = {"sm_90a"};
  compile.temp_dir = jobs_dir;
  compile.time_limit = absl::Minutes(5);
  compile.sandbox = sandbox;
  Compiler compiler(compile);
  RunExecutorConfig run;
  run.runner_path = paths.bin + "/kseek-runner";
  run.scenarios_dir = paths.share + "/scenarios";
  run.temp_dir = jobs_dir;
  run.hidden_seed_key = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
  run.sandbox = sandbox;
  RunExecutor executor(&compiler, run);
  kernelseek::v1::JobSpec spec;
  spec.set_kind(kernelseek::v1::JOB_KIND_VERIFY);
  spec.set_source_name("escapes_sandbox.cu");
  spec.set_source(ProbeSource(paths));
  spec.mutable_compile()->set_arch("sm_90a");
  spec.mutable_run()->set_problem("attention_fwd");
  spec.mutable_run()->set_scenarios(kScenarios);
  setenv("KSEEK_WORKER_TOKEN", "ksw_gpu_test_token", 1);
  absl::StatusOr<kernelseek::v1::RunResult> result =
      executor.Run(spec, [](const std::string&, const kernelseek::v1::Progress&) {});
  unsetenv("KSEEK_WORKER_TOKEN");
  INFO(result.status().ToString());
  REQUIRE(result.ok());
  INFO(result->compile().log());
  REQUIRE(result->compile().success());
  return *std::move(result);
}

TEST_CASE("a kernel's host code in the runner's sandbox reaches no host file, token, key or network", "[gpu]") {
  if (!HaveGpu()) return;
  Paths paths = FindPaths();
  const std::string bwrap = access((paths.bin + "/bwrap").c_str(), X_OK) == 0 ? paths.bin + "/bwrap" : "/usr/bin/bwrap";
  absl::StatusOr<Sandbox> sandbox =
      Sandbox::Create(Sandbox::DefaultConfig(bwrap, {kNvccPath, paths.bin + "/kseek-runner"}));
  INFO(sandbox.status().ToString());
  REQUIRE(sandbox.ok());
  testing::TempDir jobs;
  std::filesystem::permissions(jobs.path(), std::filesystem::perms(0711));

  kernelseek::v1::RunResult held = VerifyProbe(paths, &*sandbox, jobs.path());
  for (const auto& s : held.scenarios()) {
    INFO(s.id() << ": " << s.reason() << " " << held.runner_error());
    CHECK(s.passed());
  }
  CHECK(held.scenarios_size() == 2);
  std::printf("sandboxed: %d of %d scenarios passed\n", held.passed(), held.scenarios_size());

  // The control: unsandboxed, the same host code finds the host's files.
  Sandbox none = Sandbox::Disabled();
  kernelseek::v1::RunResult open = VerifyProbe(paths, &none, jobs.path());
  CHECK(open.passed() == 0);
  for (const auto& s : open.scenarios()) std::printf("unsandboxed %s: %s\n", s.id().c_str(), s.reason().c_str());
}

}  // namespace
}  // namespace kseek
