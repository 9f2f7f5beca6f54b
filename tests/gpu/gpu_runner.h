// What the GPU tests share: where kseek-runner, a problem's manifest and the
// kernels are (the source tree, or a bundle on a GPU node through
// $KSEEK_BUNDLE: bin/kseek-runner, share/scenarios, share/kernels,
// share/planted), whether a GPU is visible, building a kernel with the real
// nvcc, and running the real runner on it. Plain functions using Catch2's
// assertions, so only for test code.
#ifndef KERNELSEEK_TESTS_GPU_GPU_RUNNER_H_
#define KERNELSEEK_TESTS_GPU_GPU_RUNNER_H_

#include <nlohmann/json.hpp>

#include <string>

#include "tests/testing/temp_dir.h"

namespace kseek::gpu_testing {

struct Paths {
  std::string runner, manifest, kernels, planted;
};

// `problem` names the folder under scenarios/, e.g. "gemm".
Paths FindPaths(const std::string& problem);

// True when a GPU is visible; otherwise WARNs why the test is skipped.
bool HaveGpu();

// nvcc for sm_90a into DIR/kernel.so, with -I `include`; REQUIREs success.
std::string BuildSharedObject(const testing::TempDir& dir, const std::string& source, const std::string& include);

struct RunnerRun {
  int exit_code;  // -1 when it timed out
  nlohmann::json report;
  std::string stderr_text;
};

// Runs kseek-runner --mode verify. `report` is its JSON, or an empty object
// when it printed none (its stderr is then in the test's failure message).
RunnerRun Verify(const Paths& paths, const std::string& so, const std::string& scenarios, double max_seconds);

// "ID: reason" of each failing scenario, one a line; `failed` counts them.
std::string FailureReasons(const RunnerRun& run, int* failed);

}  // namespace kseek::gpu_testing

#endif  // KERNELSEEK_TESTS_GPU_GPU_RUNNER_H_
