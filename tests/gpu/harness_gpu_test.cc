// GPU tests of the harness (label `gpu`): the starting kernel passes every
// scenario, and each planted-wrong kernel is caught by kseek-runner. They
// build kernels with the real nvcc and run the real runner, so they need a
// GPU; where none is visible each test says so and returns.
//
// Paths come from the source tree, or, for a bundle on a GPU node, from
// $KSEEK_BUNDLE (tests/gpu/gpu_runner.h).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/gpu/gpu_runner.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using nlohmann::json;
using gpu_testing::BuildSharedObject;
using gpu_testing::FindPaths;
using gpu_testing::HaveGpu;
using gpu_testing::Paths;
using gpu_testing::RunnerRun;
using gpu_testing::Verify;

// Scenarios with ragged lengths, s_q != s_k, GQA and causal masks.
constexpr const char* kPlantScenarios =
    "cor-bf16-d64-full-ragged-b2-s113,cor-bf16-d128-causal-ragged-b2-s799,cor-bf16-d96-full-longq-q113-k3";

TEST_CASE("naive.cu passes all 202 attention_fwd scenarios", "[gpu]") {
  if (!HaveGpu()) return;
  Paths paths = FindPaths("attention_fwd");
  testing::TempDir dir;
  std::string so = BuildSharedObject(dir, paths.kernels + "/attention_fwd/naive.cu", paths.kernels);
  RunnerRun run = Verify(paths, so, "all", 120);
  int passed = 0;
  for (const json& s : run.report.value("scenarios", json::array())) {
    if (s.value("pass", false)) {
      ++passed;
    } else {
      UNSCOPED_INFO(s.value("id", "") << ": " << s.value("reason", ""));
    }
  }
  std::printf("naive.cu: %d of %zu scenarios passed\n", passed, run.report.value("scenarios", json::array()).size());
  CHECK(run.report.value("scenarios", json::array()).size() == 202);
  CHECK(passed == 202);
  CHECK(run.exit_code == 0);
}

TEST_CASE("every planted-wrong kernel is caught, and the GPU is healthy for the next run", "[gpu]") {
  if (!HaveGpu()) return;
  Paths paths = FindPaths("attention_fwd");
  struct Plant {
    const char* file;
    const char* expected;  // in some failing scenario's reason
  };
  const Plant plants[] = {
      {"off_by_a_little.cu", "exceeds the bar"},
      {"skips_last_partial_tile.cu", "never written"},
      {"nan_in_one_row.cu", "NaN"},
      {"leaves_output_unwritten.cu", "never written"},
      {"reads_out_of_bounds.cu", "illegal"},
      {"never_returns.cu", "timed out"},
      {"returns_cached_result.cu", "exceeds the bar"},
      {"works_on_side_stream.cu", "outside the stream it was given"},
  };
  for (const Plant& plant : plants) {
    testing::TempDir dir;
    std::string so = BuildSharedObject(dir, paths.planted + "/" + plant.file, paths.kernels + "/attention_fwd");
    RunnerRun run = Verify(paths, so, kPlantScenarios, 10);
    std::string reasons;
    int failed = 0;
    for (const json& s : run.report.value("scenarios", json::array())) {
      if (!s.value("pass", false)) {
        ++failed;
        absl::StrAppend(&reasons, s.value("id", ""), ": ", s.value("reason", ""), "\n");
      }
    }
    std::printf("%-30s exit %d, %d failing: %s", plant.file, run.exit_code, failed,
                reasons.substr(0, reasons.find('\n') + 1).c_str());
    INFO(plant.file << " exit " << run.exit_code << "\n" << reasons << run.stderr_text.substr(0, 2000));
    CHECK(run.exit_code != 0);
    CHECK(failed > 0);
    CHECK(reasons.find(plant.expected) != std::string::npos);
  }
  // A fresh runner process after the faulting and hanging plants works.
  testing::TempDir dir;
  std::string so = BuildSharedObject(dir, paths.kernels + "/attention_fwd/naive.cu", paths.kernels);
  CHECK(Verify(paths, so, kPlantScenarios, 60).exit_code == 0);
}

}  // namespace
}  // namespace kseek
