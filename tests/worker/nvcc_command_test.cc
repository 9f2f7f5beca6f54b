#include "worker/nvcc_command.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace kseek {
namespace {

using kernelseek::v1::CompileOptions;

NvccCommand Command() {
  return NvccCommand("/usr/local/cuda/bin/nvcc", {"sm_90", "sm_90a", "sm_100", "sm_100a"});
}

CompileOptions Options(std::string arch) {
  CompileOptions o;
  o.set_arch(std::move(arch));
  return o;
}

bool Contains(const std::vector<std::string>& argv, const std::string& arg) {
  return std::find(argv.begin(), argv.end(), arg) != argv.end();
}

TEST_CASE("CubinArgv builds the fixed nvcc command for an arch-specific target") {
  absl::StatusOr<std::vector<std::string>> argv =
      Command().CubinArgv(Options("sm_90a"), "/w/k.cu", "/w/k.cubin");
  REQUIRE(argv.ok());
  CHECK(*argv == std::vector<std::string>{"/usr/local/cuda/bin/nvcc", "-cubin",
                                          "-gencode=arch=compute_90a,code=sm_90a", "-std=c++17",
                                          "-O3", "-Xptxas", "-O3", "-Xptxas", "-v", "-o",
                                          "/w/k.cubin", "/w/k.cu"});
  argv = Command().CubinArgv(Options("sm_100"), "/w/k.cu", "/w/k.cubin");
  REQUIRE(argv.ok());
  CHECK(Contains(*argv, "-gencode=arch=compute_100,code=sm_100"));
}

TEST_CASE("CubinArgv passes the options a user may choose") {
  CompileOptions o = Options("sm_100a");
  o.set_opt_level(2);
  o.set_line_info(true);
  o.set_max_registers(128);
  o.add_defines("BLOCK_M=128");
  o.add_defines("USE_TMA");
  o.add_defines("OFFSET=-1");
  absl::StatusOr<std::vector<std::string>> argv = Command().CubinArgv(o, "/w/k.cu", "/w/k.cubin");
  REQUIRE(argv.ok());
  CHECK(Contains(*argv, "-O2"));
  CHECK_FALSE(Contains(*argv, "-O3"));
  CHECK(Contains(*argv, "-lineinfo"));
  CHECK(Contains(*argv, "-maxrregcount=128"));
  CHECK(Contains(*argv, "-DBLOCK_M=128"));
  CHECK(Contains(*argv, "-DUSE_TMA"));
  CHECK(Contains(*argv, "-DOFFSET=-1"));
  // The user's choices never move the output.
  CHECK(argv->end()[-3] == "-o");
  CHECK(argv->end()[-2] == "/w/k.cubin");
}

TEST_CASE("Validate refuses a known arch this worker's nvcc cannot build for") {
  absl::Status s = Command().Validate(Options("sm_120a"));
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message().find("not supported by this worker") != std::string::npos);
  CHECK(s.message().find("sm_90,sm_90a,sm_100,sm_100a") != std::string::npos);
  CHECK(Command().Validate(Options("sm_100a")).ok());
}

TEST_CASE("SharedObjectArgv builds a loadable object with the same checks") {
  CompileOptions o = Options("sm_90a");
  o.add_defines("HEAD_DIM=128");
  absl::StatusOr<std::vector<std::string>> argv =
      Command().SharedObjectArgv(o, "/w/k.cu", "/w/kernel.so");
  REQUIRE(argv.ok());
  CHECK((*argv)[1] == "-shared");
  CHECK((*argv)[2] == "-Xcompiler");
  CHECK((*argv)[3] == "-fPIC");
  CHECK(Contains(*argv, "-gencode=arch=compute_90a,code=sm_90a"));
  CHECK(Contains(*argv, "-DHEAD_DIM=128"));
  CHECK_FALSE(Contains(*argv, "-cubin"));
  CHECK(argv->end()[-2] == "/w/kernel.so");
  o.add_defines("-o/etc/x");
  CHECK(Command().SharedObjectArgv(o, "/w/k.cu", "/w/kernel.so").status().code() ==
        absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kseek
