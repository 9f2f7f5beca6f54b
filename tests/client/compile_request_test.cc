#include "client/compile_request.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

std::string WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

TEST_CASE("a compile request becomes a compile job named after the file's base name") {
  testing::TempDir dir;
  CompileRequest request;
  request.path = WriteFile(dir.File("naive.cu"), "__global__ void k() {}\n");
  request.arch = "sm_90a";
  request.opt_level = 2;
  request.line_info = true;
  request.defines = {"TILE=64", "USE_TMA"};
  request.max_registers = 128;

  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeCompileSpec(request);
  REQUIRE(spec.ok());
  CHECK(spec->kind() == kernelseek::v1::JOB_KIND_COMPILE);
  CHECK(spec->source_name() == "naive.cu");
  CHECK(spec->source() == "__global__ void k() {}\n");
  CHECK(spec->compile().arch() == "sm_90a");
  CHECK(spec->compile().opt_level() == 2);
  CHECK(spec->compile().line_info());
  REQUIRE(spec->compile().defines_size() == 2);
  CHECK(spec->compile().defines(1) == "USE_TMA");
  CHECK(spec->compile().max_registers() == 128);
}

TEST_CASE("an unset optimisation level leaves the choice to the worker") {
  testing::TempDir dir;
  CompileRequest request;
  request.path = WriteFile(dir.File("k.cu"), "");
  request.arch = "sm_100a";
  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeCompileSpec(request);
  REQUIRE(spec.ok());
  CHECK(spec->compile().opt_level() == 0);
}

TEST_CASE("a missing file is NOT_FOUND naming the path") {
  testing::TempDir dir;
  CompileRequest request;
  request.path = dir.File("nope.cu");
  request.arch = "sm_90a";
  absl::StatusOr<kernelseek::v1::JobSpec> spec = MakeCompileSpec(request);
  REQUIRE(spec.status().code() == absl::StatusCode::kNotFound);
  CHECK(absl::StrContains(spec.status().message(), "nope.cu"));
  CHECK(absl::StrContains(spec.status().message(), "No such file"));
}

TEST_CASE("a directory is not a source file") {
  testing::TempDir dir;
  CompileRequest request;
  request.path = dir.path();
  request.arch = "sm_90a";
  CHECK(MakeCompileSpec(request).status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("bad options are INVALID_ARGUMENT naming the value") {
  testing::TempDir dir;
  CompileRequest request;
  request.path = WriteFile(dir.File("k.cu"), "");
  request.arch = "sm_90a";

  auto error_for = [&](CompileRequest r) {
    absl::Status status = MakeCompileSpec(r).status();
    CHECK(status.code() == absl::StatusCode::kInvalidArgument);
    return std::string(status.message());
  };
  CompileRequest r = request;
  r.arch = "";
  CHECK(absl::StrContains(error_for(r), "--arch is required"));
  r.arch = "90a";
  CHECK(absl::StrContains(error_for(r), "\"90a\""));
  r.arch = "sm_90ab";
  CHECK(absl::StrContains(error_for(r), "\"sm_90ab\""));
  r = request;
  r.opt_level = 4;
  CHECK(absl::StrContains(error_for(r), "got 4"));
  r.opt_level = 0;
  CHECK(absl::StrContains(error_for(r), "--opt-level 0"));
  r = request;
  r.max_registers = 300;
  CHECK(absl::StrContains(error_for(r), "got 300"));
  r = request;
  r.defines = {"1BAD=2"};
  CHECK(absl::StrContains(error_for(r), "\"1BAD=2\""));
  r.defines = {"=x"};
  CHECK(absl::StrContains(error_for(r), "\"=x\""));
}

TEST_CASE("architecture names of Hopper and Blackwell are accepted") {
  testing::TempDir dir;
  CompileRequest request;
  request.path = WriteFile(dir.File("k.cu"), "");
  for (const char* arch : {"sm_90", "sm_90a", "sm_100a", "sm_100f", "sm_120"}) {
    request.arch = arch;
    CHECK(MakeCompileSpec(request).ok());
  }
}

}  // namespace
}  // namespace kseek
