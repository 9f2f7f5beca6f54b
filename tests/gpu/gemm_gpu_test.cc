// GPU tests of the gemm problem (label `gpu`): kernels/gemm/naive.cu passes
// every gemm scenario against the cuBLAS reference, and each planted-wrong
// gemm kernel (tests/gpu/planted/gemm/) is caught, with the reason its defect
// should give. Where no GPU is visible each test says so and returns.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

#include "tests/gpu/gpu_runner.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using gpu_testing::BuildSharedObject;
using gpu_testing::FailureReasons;
using gpu_testing::FindPaths;
using gpu_testing::HaveGpu;
using gpu_testing::Paths;
using gpu_testing::RunnerRun;
using gpu_testing::Verify;
using nlohmann::json;

// Ragged in every dimension, a k tail past a multiple of 32 (203 = 6 * 32 +
// 11), a deep k (4093) in both dtypes (one with a hidden seed), and a
// one-element output.
constexpr const char* kPlantScenarios =
    "rag-bf16-m113-n799-k203,rag-f16-m1023-n1025-k1027,rag-bf16-m3001-n17-k4093,rag-f16-m3001-n17-k4093,"
    "rag-bf16-m1-n1-k17";

TEST_CASE("gemm naive.cu passes all 74 gemm scenarios", "[gpu][gemm]") {
  if (!HaveGpu()) return;
  Paths paths = FindPaths("gemm");
  testing::TempDir dir;
  std::string so = BuildSharedObject(dir, paths.kernels + "/gemm/naive.cu", paths.kernels);
  RunnerRun run = Verify(paths, so, "all", 120);
  int failed = 0;
  std::string reasons = FailureReasons(run, &failed);
  const size_t total = run.report.value("scenarios", json::array()).size();
  std::printf("gemm naive.cu: %zu of %zu scenarios passed\n", total - failed, total);
  INFO(reasons);
  CHECK(total == 74);
  CHECK(failed == 0);
  CHECK(run.exit_code == 0);
}

TEST_CASE("every planted-wrong gemm kernel is caught", "[gpu][gemm]") {
  if (!HaveGpu()) return;
  Paths paths = FindPaths("gemm");
  struct Plant {
    const char* file;
    const char* expected;  // in some failing scenario's reason
  };
  const Plant plants[] = {
      {"skips_partial_tiles.cu", "never written"},
      {"drops_k_tail.cu", "exceeds the bar"},
      {"accumulates_in_input_dtype.cu", "exceeds the bar"},
      {"leaves_one_element_unwritten.cu", "1 of "},
  };
  for (const Plant& plant : plants) {
    testing::TempDir dir;
    std::string so = BuildSharedObject(dir, paths.planted + "/gemm/" + plant.file, paths.kernels + "/gemm");
    RunnerRun run = Verify(paths, so, kPlantScenarios, 10);
    int failed = 0;
    std::string reasons = FailureReasons(run, &failed);
    std::printf("%-34s exit %d, %d failing: %s\n", plant.file, run.exit_code, failed,
                reasons.substr(0, reasons.find('\n')).c_str());
    INFO(plant.file << " exit " << run.exit_code << "\n" << reasons);
    CHECK(run.exit_code != 0);
    CHECK(failed > 0);
    CHECK(reasons.find(plant.expected) != std::string::npos);
  }
  // The correct kernel passes the same scenarios: the plants fail for their defect.
  testing::TempDir dir;
  std::string so = BuildSharedObject(dir, paths.kernels + "/gemm/naive.cu", paths.kernels);
  RunnerRun control = Verify(paths, so, kPlantScenarios, 60);
  int failed = 0;
  INFO(FailureReasons(control, &failed));
  CHECK(control.exit_code == 0);
  CHECK(failed == 0);
}

}  // namespace
}  // namespace kseek
