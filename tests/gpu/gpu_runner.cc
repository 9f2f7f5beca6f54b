#include "tests/gpu/gpu_runner.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/subprocess.h"

namespace kseek::gpu_testing {

Paths FindPaths(const std::string& problem) {
  if (const char* bundle = std::getenv("KSEEK_BUNDLE"); bundle != nullptr && *bundle) {
    std::string b = bundle;
    return {b + "/bin/kseek-runner", b + "/share/scenarios/" + problem + "/problem.textproto", b + "/share/kernels",
            b + "/share/planted"};
  }
  return {KSEEK_BIN_DIR "/kseek-runner", KSEEK_SOURCE_DIR "/scenarios/" + problem + "/problem.textproto",
          KSEEK_SOURCE_DIR "/kernels", KSEEK_SOURCE_DIR "/tests/gpu/planted"};
}

bool HaveGpu() {
  SubprocessSpec smi;
  smi.argv = {"nvidia-smi", "-L"};
  smi.time_limit = absl::Seconds(30);
  auto r = RunSubprocess(smi);
  if (r.ok() && r->Succeeded() && r->stdout_text.find("GPU 0") != std::string::npos) return true;
  WARN("skipped: no GPU visible (nvidia-smi -L: "
       << (r.ok() ? r->Describe() : std::string(r.status().message())) << ")");
  return false;
}

std::string BuildSharedObject(const testing::TempDir& dir, const std::string& source, const std::string& include) {
  std::string so = dir.File("kernel.so");
  SubprocessSpec nvcc;
  nvcc.argv = {"/usr/local/cuda/bin/nvcc", "-gencode=arch=compute_90a,code=sm_90a", "-O3", "-shared",
               "-Xcompiler", "-fPIC", "-cudart", "shared", "-I", include, "-o", so, source};
  nvcc.time_limit = absl::Minutes(5);
  auto r = RunSubprocess(nvcc);
  REQUIRE(r.ok());
  INFO(r->stderr_text);
  REQUIRE(r->Succeeded());
  return so;
}

RunnerRun Verify(const Paths& paths, const std::string& so, const std::string& scenarios, double max_seconds) {
  SubprocessSpec runner;
  runner.argv = {paths.runner, "--problem", paths.manifest, "--kernel", so, "--mode", "verify", "--scenarios",
                 scenarios, "--max-seconds-per-scenario", absl::StrCat(max_seconds)};
  runner.time_limit = absl::Minutes(15);
  runner.max_output_bytes = 64 << 20;
  auto r = RunSubprocess(runner);
  REQUIRE(r.ok());
  nlohmann::json report = nlohmann::json::parse(r->stdout_text, nullptr, false);
  // A runner that could not start (no GPU, a broken kernel) prints no report:
  // an empty one, with its stderr, fails the caller's checks with the reason.
  if (!report.is_object()) report = nlohmann::json::object();
  UNSCOPED_INFO("kseek-runner exit " << r->exit_code << ": " << r->stderr_text.substr(0, 2000));
  return {r->timed_out ? -1 : r->exit_code, std::move(report), r->stderr_text};
}

std::string FailureReasons(const RunnerRun& run, int* failed) {
  std::string reasons;
  *failed = 0;
  for (const nlohmann::json& s : run.report.value("scenarios", nlohmann::json::array())) {
    if (!s.value("pass", false)) {
      ++*failed;
      absl::StrAppend(&reasons, s.value("id", ""), ": ", s.value("reason", ""), "\n");
    }
  }
  return reasons;
}

}  // namespace kseek::gpu_testing
