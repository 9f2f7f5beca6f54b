// End to end on this CPU machine for the gemm problem: the real kseek CLI,
// kseek-server and a compile worker on loopback and the real nvcc. The GPU
// half (verify and bench, planted kernels caught) is tests/gpu/gemm_gpu_test.cc.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/subprocess.h"
#include "tests/e2e/local_stack.h"

namespace kseek::testing {
namespace {

using nlohmann::json;

const std::string kSource = KSEEK_SOURCE_DIR;

TEST_CASE("gemm's naive kernel compiles for sm_90a through server and worker", "[e2e][gemm]") {
  LocalStack stack;
  stack.StartServer();
  stack.StartWorker("cpu-1");
  SubprocessResult r = stack.Kseek({"compile", kSource + "/kernels/gemm/naive.cu", "--arch", "sm_90a", "--json"});
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 0);
  json job = json::parse(r.stdout_text);
  REQUIRE(job["state"] == "JOB_STATE_SUCCEEDED");
  const json& compile = job["result"]["compile"];
  REQUIRE(compile["success"] == true);
  REQUIRE(compile["resources"][0]["arch"] == "sm_90a");
  // Two 32 x 32 fp32 tiles.
  CHECK(compile["resources"][0]["shared_bytes"].get<int>() == 2 * 32 * 32 * 4);
}

TEST_CASE("gemm's planted-wrong kernels compile for sm_90a against naive.cu", "[e2e][gemm]") {
  TempDir dir;
  for (const char* plant : {"skips_partial_tiles.cu", "drops_k_tail.cu", "accumulates_in_input_dtype.cu",
                            "leaves_one_element_unwritten.cu"}) {
    SubprocessSpec nvcc;
    nvcc.argv = {"/usr/local/cuda/bin/nvcc", "-gencode=arch=compute_90a,code=sm_90a", "-O3", "-shared",
                 "-Xcompiler", "-fPIC", "-cudart", "shared", "-I", kSource + "/kernels/gemm",
                 "-o", dir.File(absl::StrCat(plant, ".so")), kSource + "/tests/gpu/planted/gemm/" + plant};
    nvcc.time_limit = absl::Minutes(5);
    auto r = RunSubprocess(nvcc);
    REQUIRE(r.ok());
    INFO(plant << ": " << r->stderr_text);
    CHECK(r->Succeeded());
    CHECK(std::filesystem::file_size(dir.File(absl::StrCat(plant, ".so"))) > 0);
  }
}

TEST_CASE("kseek scenarios gemm lists its sets through the server", "[e2e][gemm]") {
  LocalStack stack;
  stack.StartServer();
  SubprocessResult all = stack.Kseek({"scenarios", "gemm"});
  INFO(all.stdout_text << all.stderr_text);
  REQUIRE(all.exit_code == 0);
  CHECK_THAT(all.stdout_text, Catch::Contains("74 scenarios: square 10, llm 24, ragged 40\n"
                                              "defaults: verify all; bench square,llm against cublas "
                                              "(baselines: cublas)\n"));
  SubprocessResult ragged = stack.Kseek({"scenarios", "gemm", "--set", "ragged"});
  REQUIRE(ragged.exit_code == 0);
  CHECK_THAT(ragged.stdout_text, Catch::Contains("rag-bf16-m113-n799-k203") && Catch::Contains("hidden") &&
                                     Catch::Contains("40 scenarios: ragged 40"));
  SubprocessResult llm = stack.Kseek({"scenarios", "gemm", "--set", "llm", "--json"});
  REQUIRE(llm.exit_code == 0);
  json listed = json::parse(llm.stdout_text);
  CHECK(listed["scenarios"].size() == 24);
  CHECK(listed["problem"]["default_baseline"] == "cublas");
  CHECK(listed["problem"]["default_bench_scenarios"] == "square,llm");
}

TEST_CASE("the server checks a gemm job's baseline against gemm's manifest and fills in its defaults",
          "[e2e][gemm]") {
  LocalStack stack;
  stack.StartServer();
  stack.StartWorker("cpu-1");
  const std::string kernel = kSource + "/kernels/gemm/naive.cu";
  SubprocessResult cudnn =
      stack.Kseek({"bench", kernel, "--problem", "gemm", "--arch", "sm_90a", "--baseline", "cudnn"});
  INFO(cudnn.stdout_text << cudnn.stderr_text);
  CHECK(cudnn.exit_code == 2);
  CHECK_THAT(cudnn.stderr_text, Catch::Contains("unknown baseline \"cudnn\" in \"cudnn\"; known: cublas, or none"));
  SubprocessResult sets =
      stack.Kseek({"bench", kernel, "--problem", "gemm", "--arch", "sm_90a", "--scenarios", "square,perf"});
  CHECK(sets.exit_code == 2);
  CHECK_THAT(sets.stderr_text, Catch::Contains("'perf' is neither 'all', a set name nor a scenario id of gemm"));

  // With no scenarios or baseline the server uses the manifest's; queued for a
  // GPU worker that never comes, the stored job shows what it chose.
  SubprocessResult queued =
      stack.Kseek({"bench", kernel, "--problem", "gemm", "--arch", "sm_90a", "--wait-for-worker", "--no-wait"});
  INFO(queued.stdout_text << queued.stderr_text);
  REQUIRE(queued.exit_code == 0);
  std::string id(absl::StripAsciiWhitespace(queued.stdout_text));
  SubprocessResult shown = stack.Kseek({"job", id, "--json"});
  REQUIRE(shown.exit_code == 0);
  json job = json::parse(shown.stdout_text);
  CHECK(job["spec"]["run"]["scenarios"] == "square,llm");
  CHECK(job["spec"]["run"]["baseline"] == "cublas");
  CHECK(job["spec"]["run"]["problem_digest"]["manifest_file"].get<std::string>().find("scenarios/gemm/problem.textproto") !=
        std::string::npos);
  SubprocessResult cancel = stack.Kseek({"cancel", id});
  CHECK(cancel.exit_code == 0);
}

}  // namespace
}  // namespace kseek::testing
