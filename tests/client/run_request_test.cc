#include "client/run_request.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

RunRequest Bench(const std::string& path) {
  RunRequest request;
  request.kind = kernelseek::v1::JOB_KIND_BENCH;
  request.compile.path = path;
  request.compile.arch = "sm_90a";
  request.problem = "attention_fwd";
  request.scenarios = "perf";
  request.baseline = "cudnn";
  return request;
}

TEST_CASE("a bench request becomes a BENCH spec with its run and compile options") {
  testing::TempDir dir;
  std::ofstream(dir.File("naive.cu")) << "extern \"C\" int attention_fwd();\n";
  RunRequest request = Bench(dir.File("naive.cu"));
  request.compile.line_info = true;
  request.max_seconds_per_scenario = 2.5;
  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeRunSpec(request);
  REQUIRE(spec.ok());
  CHECK(spec->kind() == kernelseek::v1::JOB_KIND_BENCH);
  CHECK(spec->source_name() == "naive.cu");
  CHECK(spec->compile().arch() == "sm_90a");
  CHECK(spec->compile().line_info());
  CHECK(spec->run().problem() == "attention_fwd");
  CHECK(spec->run().scenarios() == "perf");
  CHECK(spec->run().baseline() == "cudnn");
  CHECK(spec->run().max_seconds_per_scenario() == 2.5);
  CHECK(spec->run().rounds() == 0);
}

TEST_CASE("a bench request without scenarios or baseline leaves both to the problem's defaults") {
  testing::TempDir dir;
  std::ofstream(dir.File("naive.cu")) << "extern \"C\" int gemm();\n";
  RunRequest request = Bench(dir.File("naive.cu"));
  request.problem = "gemm";
  request.scenarios.clear();
  request.baseline.clear();
  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeRunSpec(request);
  REQUIRE(spec.ok());
  CHECK(spec->run().scenarios().empty());
  CHECK(spec->run().baseline().empty());
  // A name no list in the client knows goes to the server, which checks it against the manifest.
  request.baseline = "cublas";
  request.scenarios = "square,llm";
  spec = MakeRunSpec(request);
  REQUIRE(spec.ok());
  CHECK(spec->run().baseline() == "cublas");
  CHECK(spec->run().scenarios() == "square,llm");
}

TEST_CASE("a bench request takes several baselines, in the order given") {
  testing::TempDir dir;
  std::ofstream(dir.File("k.cu")) << "\n";
  RunRequest request = Bench(dir.File("k.cu"));
  request.baseline = "fa3,cudnn";
  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeRunSpec(request);
  REQUIRE(spec.ok());
  CHECK(spec->run().baseline() == "fa3,cudnn");
}

TEST_CASE("bench rounds go into the spec, 0..10, and only for bench") {
  testing::TempDir dir;
  std::ofstream(dir.File("k.cu")) << "\n";
  RunRequest request = Bench(dir.File("k.cu"));
  request.rounds = 3;
  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeRunSpec(request);
  REQUIRE(spec.ok());
  CHECK(spec->run().rounds() == 3);

  for (int64_t n : {-1, 11}) {
    request.rounds = n;
    absl::StatusOr<kernelseek::v1::JobSpec> bad = MakeRunSpec(request);
    REQUIRE_FALSE(bad.ok());
    CHECK(std::string(bad.status().message()) ==
          absl::StrCat("--rounds wants 0..10 (0: one round), got ", n));
  }
  request.rounds = 2;
  request.kind = kernelseek::v1::JOB_KIND_VERIFY;
  request.baseline.clear();
  absl::StatusOr<kernelseek::v1::JobSpec> verify = MakeRunSpec(request);
  REQUIRE_FALSE(verify.ok());
  CHECK(std::string(verify.status().message()) ==
        "a baseline, a time cap, rounds and shards apply to bench only, not verify");
}

TEST_CASE("bench shards go into the spec: N, auto, and only for bench") {
  testing::TempDir dir;
  std::ofstream(dir.File("k.cu")) << "\n";
  RunRequest request = Bench(dir.File("k.cu"));
  CHECK(MakeRunSpec(request)->run().shards() == 0);
  request.shards = "4";
  CHECK(MakeRunSpec(request)->run().shards() == 4);
  request.shards = "auto";
  CHECK(MakeRunSpec(request)->run().shards() == -1);
  for (const char* bad : {"0", "65", "-1", "two", "4x"}) {
    request.shards = bad;
    absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeRunSpec(request);
    REQUIRE_FALSE(spec.ok());
    CHECK(std::string(spec.status().message()) == absl::StrCat("--shards wants 1..64 or auto, got \"", bad, "\""));
  }
  request.shards = "2";
  request.kind = kernelseek::v1::JOB_KIND_VERIFY;
  CHECK_FALSE(MakeRunSpec(request).ok());
}

TEST_CASE("a verify request carries no baseline") {
  testing::TempDir dir;
  std::ofstream(dir.File("k.cu")) << "\n";
  RunRequest request = Bench(dir.File("k.cu"));
  request.kind = kernelseek::v1::JOB_KIND_VERIFY;
  request.baseline.clear();
  request.scenarios = "perf-bf16-d64-full-s512,corr-fp16-d96-decode";
  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeRunSpec(request);
  REQUIRE(spec.ok());
  CHECK(spec->kind() == kernelseek::v1::JOB_KIND_VERIFY);
  CHECK(spec->run().scenarios() == "perf-bf16-d64-full-s512,corr-fp16-d96-decode");
  CHECK(spec->run().baseline().empty());
}

TEST_CASE("bad run options are usage errors naming the value, checked before the file") {
  // The file does not exist: each option error must come first.
  RunRequest request = Bench("/nonexistent/k.cu");
  auto message = [](const RunRequest& r) {
    absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeRunSpec(r);
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(spec.status().message());
  };
  SECTION("no problem") {
    request.problem.clear();
    CHECK(message(request) == "--problem is required, e.g. --problem attention_fwd");
  }
  SECTION("problem with a slash") {
    request.problem = "../etc";
    CHECK(message(request) == "--problem \"../etc\" is not a problem name like attention_fwd");
  }
  SECTION("empty scenario item") {
    request.scenarios = "a,,b";
    CHECK(message(request) ==
          "--scenarios \"a,,b\" has an empty item; give all, a set name or ID,ID,... (letters, "
          "digits, '-', '_', '.')");
  }
  SECTION("a baseline that is not a name (which names a problem has, the server checks)") {
    request.baseline = "fa9;rm";
    CHECK(message(request) ==
          "--baseline: baseline \"fa9;rm\" in \"fa9;rm\" is not a name (letters, digits, '-', '_', '.')");
  }
  SECTION("a repeated baseline in a list") {
    request.baseline = "fa3,cudnn,fa3";
    CHECK(message(request) == "--baseline: baseline \"fa3\" appears twice in \"fa3,cudnn,fa3\"");
  }
  SECTION("negative time cap") {
    request.max_seconds_per_scenario = -1;
    CHECK(message(request) == "--max-seconds wants 0..3600 (0: the worker's default), got -1");
  }
}

RunRequest Profile(const std::string& path) {
  RunRequest request;
  request.kind = kernelseek::v1::JOB_KIND_PROFILE;
  request.compile.path = path;
  request.compile.arch = "sm_90a";
  request.problem = "attention_fwd";
  request.scenarios = "perf-bf16-d64-full-s512";
  return request;
}

TEST_CASE("a profile request becomes a PROFILE spec of one scenario id and no baseline") {
  testing::TempDir dir;
  std::ofstream(dir.File("sm90.cu")) << "extern \"C\" int attention_fwd();\n";
  RunRequest request = Profile(dir.File("sm90.cu"));
  request.compile.line_info = true;
  request.compile.defines = {"TILE=64"};
  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeRunSpec(request);
  REQUIRE(spec.ok());
  CHECK(spec->kind() == kernelseek::v1::JOB_KIND_PROFILE);
  CHECK(spec->source_name() == "sm90.cu");
  CHECK(spec->compile().arch() == "sm_90a");
  CHECK(spec->compile().line_info());
  CHECK(spec->compile().defines(0) == "TILE=64");
  CHECK(spec->run().problem() == "attention_fwd");
  CHECK(spec->run().scenarios() == "perf-bf16-d64-full-s512");
  CHECK(spec->run().baseline().empty());
  CHECK(spec->run().max_seconds_per_scenario() == 0);
  CHECK_FALSE(spec->run().reuse_baseline());
  CHECK(spec->run().hotspots() == 0);

  request.hotspots = 50;
  spec = MakeRunSpec(request);
  REQUIRE(spec.ok());
  CHECK(spec->run().hotspots() == 50);
}

TEST_CASE("a profile wants exactly one scenario id and no bench options, checked before the file") {
  RunRequest request = Profile("/nonexistent/k.cu");
  auto message = [](const RunRequest& r) {
    absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeRunSpec(r);
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(spec.status().message());
  };
  SECTION("no scenario") {
    request.scenarios.clear();
    CHECK(message(request) ==
          "--scenario is required: profile runs one scenario id, e.g. --scenario "
          "perf-bf16-d64-full-s512 (`kseek scenarios PROBLEM` lists them)");
  }
  SECTION("a list of scenarios") {
    request.scenarios = "perf-bf16-d64-full-s512,corr-fp16-d96-decode";
    CHECK(message(request) ==
          "--scenario \"perf-bf16-d64-full-s512,corr-fp16-d96-decode\" is a list; profile runs "
          "exactly one scenario id");
  }
  SECTION("every scenario") {
    request.scenarios = "all";
    CHECK(message(request) ==
          "--scenario all selects every scenario; profile runs exactly one scenario id");
  }
  SECTION("not an id") {
    request.scenarios = "perf s512";
    CHECK(message(request) ==
          "--scenario \"perf s512\" is not a scenario id (letters, digits, '-', '_', '.')");
  }
  SECTION("a baseline") {
    request.baseline = "cudnn";
    CHECK(message(request) == "a baseline, a time cap, rounds and shards apply to bench only, not profile");
  }
  SECTION("a time cap") {
    request.max_seconds_per_scenario = 1;
    CHECK(message(request) == "a baseline, a time cap, rounds and shards apply to bench only, not profile");
  }
  SECTION("rounds") {
    request.rounds = 3;
    CHECK(message(request) == "a baseline, a time cap, rounds and shards apply to bench only, not profile");
  }
  SECTION("too many hot spots") {
    request.hotspots = 51;
    CHECK(message(request) == "--hotspots 51 is outside 0..50");
  }
  SECTION("negative hot spots") {
    request.hotspots = -1;
    CHECK(message(request) == "--hotspots -1 is outside 0..50");
  }
}

TEST_CASE("hot spots are refused for verify and bench") {
  RunRequest request = Bench("/nonexistent/k.cu");
  request.hotspots = 5;
  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeRunSpec(request);
  CHECK(spec.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(spec.status().message() == "--hotspots applies to profile only, not bench");
}

TEST_CASE("a good run request for a missing file fails as the compile request does") {
  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeRunSpec(Bench("/nonexistent/k.cu"));
  CHECK(spec.status().code() == absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace kseek
