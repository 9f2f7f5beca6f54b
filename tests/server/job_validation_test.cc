#include "server/job_validation.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

// A problem whose defaults differ from attention_fwd's: the server must take
// them from the manifest.
constexpr char kToyManifest[] = R"pb(name: "toy"
entry_point: "toy"
symbol { name: "n" min: 1 }
dtypes: [DTYPE_BF16]
tensor { name: "x" role: TENSOR_ROLE_INPUT dtype: DTYPE_SCENARIO shape: ["n"] }
tensor { name: "y" role: TENSOR_ROLE_OUTPUT dtype: DTYPE_F32 shape: ["n"] }
flops: "n"
tolerance { output: "y" rtol_factor: 2 atol: 0 }
reference: "toy"
scenarios_file: "scenarios.textproto"
baseline { name: "ref" program: "toy_baseline.py" }
default_verify_scenarios: "check"
default_bench_scenarios: "fast"
default_baseline: "ref"
)pb";

constexpr char kToyScenarios[] = R"pb(problem: "toy"
scenario { id: "c1" set: "check" dtype: DTYPE_BF16 seed: 1 symbol { name: "n" value: 3 } }
scenario { id: "f1" set: "fast" dtype: DTYPE_BF16 seed: 2 symbol { name: "n" value: 4096 } }
)pb";

kernelseek::v1::JobSpec Job(kernelseek::v1::JobKind kind, const std::string& problem = "attention_fwd") {
  kernelseek::v1::JobSpec spec;
  spec.set_kind(kind);
  spec.set_source_name("k.cu");
  spec.set_source("extern \"C\" int attention_fwd(const void*, void*) { return 0; }\n");
  spec.mutable_compile()->set_arch("sm_90a");
  spec.mutable_run()->set_problem(problem);
  return spec;
}

TEST_CASE("a job that names no scenarios or baseline gets its manifest's defaults", "[validation]") {
  testing::TempDir dir;
  std::filesystem::create_directory(dir.File("toy"));
  std::ofstream(dir.File("toy/problem.textproto")) << kToyManifest;
  std::ofstream(dir.File("toy/scenarios.textproto")) << kToyScenarios;
  absl::StatusOr<ProblemCatalog> problems = ProblemCatalog::Load(dir.path());
  REQUIRE(problems.ok());
  kernelseek::v1::JobSpec verify = Job(kernelseek::v1::JOB_KIND_VERIFY, "toy");
  REQUIRE(ValidateJobSpec(&verify, *problems).ok());
  CHECK(verify.run().scenarios() == "check");
  CHECK(verify.run().baseline().empty());
  kernelseek::v1::JobSpec bench = Job(kernelseek::v1::JOB_KIND_BENCH, "toy");
  REQUIRE(ValidateJobSpec(&bench, *problems).ok());
  CHECK(bench.run().scenarios() == "fast");
  CHECK(bench.run().baseline() == "ref");
}

TEST_CASE("a bench against a baseline its problem does not declare is refused naming the declared ones",
          "[validation]") {
  absl::StatusOr<ProblemCatalog> problems = ProblemCatalog::Load(KSEEK_SCENARIOS_DIR);
  REQUIRE(problems.ok());
  kernelseek::v1::JobSpec bench = Job(kernelseek::v1::JOB_KIND_BENCH);
  bench.mutable_run()->set_baseline("fa3,cudnn");
  CHECK(ValidateJobSpec(&bench, *problems).ok());
  testing::TempDir dir;
  std::filesystem::create_directory(dir.File("toy"));
  std::ofstream(dir.File("toy/problem.textproto")) << kToyManifest;
  std::ofstream(dir.File("toy/scenarios.textproto")) << kToyScenarios;
  absl::StatusOr<ProblemCatalog> toy = ProblemCatalog::Load(dir.path());
  REQUIRE(toy.ok());
  kernelseek::v1::JobSpec other = Job(kernelseek::v1::JOB_KIND_BENCH, "toy");
  other.mutable_run()->set_baseline("cudnn");
  absl::StatusOr<std::vector<kernelseek::v1::Property>> refused = ValidateJobSpec(&other, *toy);
  CHECK(refused.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(refused.status().message() == "unknown baseline \"cudnn\" in \"cudnn\"; known: ref, or none");
}

TEST_CASE("a gemm bench is checked against gemm's baselines and gets gemm's defaults and digest", "[validation]") {
  absl::StatusOr<ProblemCatalog> problems = ProblemCatalog::Load(KSEEK_SCENARIOS_DIR);
  REQUIRE(problems.ok());
  kernelseek::v1::JobSpec cudnn = Job(kernelseek::v1::JOB_KIND_BENCH, "gemm");
  cudnn.mutable_run()->set_baseline("cudnn");
  absl::StatusOr<std::vector<kernelseek::v1::Property>> refused = ValidateJobSpec(&cudnn, *problems);
  CHECK(refused.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(refused.status().message() == "unknown baseline \"cudnn\" in \"cudnn\"; known: cublas, or none");

  kernelseek::v1::JobSpec bench = Job(kernelseek::v1::JOB_KIND_BENCH, "gemm");
  REQUIRE(ValidateJobSpec(&bench, *problems).ok());
  CHECK(bench.run().scenarios() == "square,llm");
  CHECK(bench.run().baseline() == "cublas");
  CHECK(bench.run().problem_digest().manifest_sha256() == (*problems->Find("gemm"))->digest().manifest_sha256());
  CHECK(bench.run().problem_digest().manifest_file() == std::string(KSEEK_SCENARIOS_DIR) + "/gemm/problem.textproto");
}

TEST_CASE("a verify or bench job carries the digest of the problem files the server checked it against",
          "[validation]") {
  absl::StatusOr<ProblemCatalog> problems = ProblemCatalog::Load(KSEEK_SCENARIOS_DIR);
  REQUIRE(problems.ok());
  const kernelseek::v1::ProblemDigest& digest = (*problems->Find("attention_fwd"))->digest();
  for (kernelseek::v1::JobKind kind : {kernelseek::v1::JOB_KIND_VERIFY, kernelseek::v1::JOB_KIND_BENCH}) {
    kernelseek::v1::JobSpec spec = Job(kind);
    REQUIRE(ValidateJobSpec(&spec, *problems).ok());
    CHECK(spec.run().problem_digest().scenarios_sha256() == digest.scenarios_sha256());
    CHECK(spec.run().problem_digest().manifest_sha256() == digest.manifest_sha256());
    CHECK(spec.run().problem_digest().scenarios_file() == std::string(KSEEK_SCENARIOS_DIR) +
                                                              "/attention_fwd/scenarios.textproto");
  }
}

TEST_CASE("compile options are checked with the problem library's policy before a job is queued",
          "[validation]") {
  absl::StatusOr<ProblemCatalog> problems = ProblemCatalog::Load(KSEEK_SCENARIOS_DIR);
  REQUIRE(problems.ok());
  kernelseek::v1::JobSpec spec = Job(kernelseek::v1::JOB_KIND_VERIFY);
  spec.mutable_compile()->add_defines("X=a,-o/etc/x");
  absl::StatusOr<std::vector<kernelseek::v1::Property>> refused = ValidateJobSpec(&spec, *problems);
  CHECK(refused.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(refused.status().message().find("define 'X=a,-o/etc/x' is not allowed") != std::string::npos);
  kernelseek::v1::JobSpec unknown = Job(kernelseek::v1::JOB_KIND_VERIFY);
  unknown.mutable_compile()->set_arch("sm_91");
  refused = ValidateJobSpec(&unknown, *problems);
  CHECK(refused.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(refused.status().message().find("unknown arch \"sm_91\"; known: sm_75, sm_80") != std::string::npos);
}

}  // namespace
}  // namespace kseek
