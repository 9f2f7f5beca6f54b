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

TEST_CASE("Validate refuses defines that try to smuggle flags, naming the value") {
  for (std::string bad : {"-o/etc/x", "X=1 -o/etc/x", "X=a,-o/etc/x", "X=\"q\"", "X='q'", "X=a\\b",
                          "X=a;b", "1X", "", "X Y", "--run", "X\t=1", "X=a\nb"}) {
    CompileOptions o = Options("sm_90a");
    o.add_defines(bad);
    absl::Status s = Command().Validate(o);
    INFO("define: " << bad);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.message().find("define '" + bad + "'") != std::string::npos);
  }
}

TEST_CASE("Validate refuses unknown, malformed and unsupported archs") {
  for (std::string bad : {"sm_91", "sm_90a -o /etc/x", "compute_90a", "-ccbin", "SM_90A"}) {
    absl::Status s = Command().Validate(Options(bad));
    INFO("arch: " << bad);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.message().find("'" + bad + "'") != std::string::npos);
  }
  // Known, but not in this worker's compile capability.
  absl::Status s = Command().Validate(Options("sm_120a"));
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message().find("not supported by this worker") != std::string::npos);
  CHECK(Command().Validate(Options("")).code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("Validate bounds opt_level and max_registers") {
  CompileOptions o = Options("sm_90a");
  for (int level : {0, 1, 2, 3}) {
    o.set_opt_level(level);
    CHECK(Command().Validate(o).ok());
  }
  for (int level : {-1, 4}) {
    o.set_opt_level(level);
    CHECK(Command().Validate(o).code() == absl::StatusCode::kInvalidArgument);
  }
  o.set_opt_level(0);
  for (int regs : {0, 16, 255}) {
    o.set_max_registers(regs);
    CHECK(Command().Validate(o).ok());
  }
  for (int regs : {-1, 15, 256}) {
    o.set_max_registers(regs);
    absl::Status s = Command().Validate(o);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.message().find(std::to_string(regs)) != std::string::npos);
  }
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

TEST_CASE("KnownArchs maps every arch to its virtual arch") {
  for (const KnownArch& arch : KnownArchs()) {
    CHECK(arch.compute.substr(0, 8) == "compute_");
    CHECK(arch.compute.substr(8) == arch.name.substr(3));
    CHECK(FindKnownArch(arch.name) == &arch);
  }
  CHECK(FindKnownArch("sm_90a") != nullptr);
  CHECK(FindKnownArch("sm_100a")->base == "sm_100");
  CHECK(FindKnownArch("sm_91") == nullptr);
}

}  // namespace
}  // namespace kseek
