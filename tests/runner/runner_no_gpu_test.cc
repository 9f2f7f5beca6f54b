#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

namespace {

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

Outcome Run(const std::string& command) {
  Outcome outcome;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) outcome.output.append(buffer.data(), n);
  int status = pclose(pipe);
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return outcome;
}

TEST_CASE("kseek-runner refuses cleanly where no GPU is visible", "[runner]") {
#ifndef KSEEK_RUNNER_BIN
  WARN("kseek-runner was not built (no nvcc); skipped");
#else
  if (std::filesystem::exists("/dev/nvidiactl")) {
    WARN("a GPU driver is present; the no-GPU refusal cannot be observed here");
    return;
  }
  const std::string problem =
      std::string(KSEEK_SOURCE_DIR) + "/scenarios/attention_fwd/problem.textproto";
  Outcome outcome = Run(std::string(KSEEK_RUNNER_BIN) + " --problem " + problem +
                        " --kernel /nonexistent/kernel.so --mode verify --scenarios perf");
  CHECK(outcome.exit_code == 2);
  CHECK_THAT(outcome.output, Catch::StartsWith("kseek-runner: no CUDA device visible ("));
  CHECK(std::count(outcome.output.begin(), outcome.output.end(), '\n') == 1);
#endif
}

TEST_CASE("kseek-runner reports bad flags and manifests before touching the GPU", "[runner]") {
#ifdef KSEEK_RUNNER_BIN
  Outcome no_mode = Run(std::string(KSEEK_RUNNER_BIN) + " --problem x --kernel y");
  CHECK(no_mode.exit_code == 2);
  CHECK_THAT(no_mode.output, Catch::Contains("--mode is required"));
  Outcome bad_set = Run(std::string(KSEEK_RUNNER_BIN) + " --problem " + KSEEK_SOURCE_DIR +
                        "/scenarios/attention_fwd/problem.textproto --kernel y --mode verify "
                        "--scenarios nosuchset");
  CHECK(bad_set.exit_code == 2);
  CHECK_THAT(bad_set.output, Catch::Contains("'nosuchset'"));
#endif
}

}  // namespace
