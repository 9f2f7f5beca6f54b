#include "problem/compile_policy.h"

#include <catch2/catch.hpp>
#include <string>

namespace kseek {
namespace {

using kernelseek::v1::CompileOptions;

CompileOptions Options(std::string arch) {
  CompileOptions o;
  o.set_arch(std::move(arch));
  return o;
}

TEST_CASE("ValidateCompileOptions refuses defines that try to smuggle flags and names the value") {
  for (std::string bad : {"-o/etc/x", "X=1 -o/etc/x", "X=a,-o/etc/x", "X=\"q\"", "X='q'", "X=a\\b",
                          "X=a;b", "1X", "", "X Y", "--run", "X\t=1", "X=a\nb"}) {
    CompileOptions o = Options("sm_90a");
    o.add_defines(bad);
    absl::Status s = ValidateCompileOptions(o);
    INFO("define: " << bad);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.message().find("define '" + bad + "'") != std::string::npos);
  }
}

TEST_CASE("ValidateCompileOptions refuses unknown or malformed or unsupported archs") {
  for (std::string bad : {"sm_91", "sm_90a -o /etc/x", "compute_90a", "-ccbin", "SM_90A"}) {
    absl::Status s = ValidateCompileOptions(Options(bad));
    INFO("arch: " << bad);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.message().find("'" + bad + "'") != std::string::npos);
  }
  // Known, but not among the archs given as supported.
  absl::Status s = ValidateCompileOptions(Options("sm_120a"), {"sm_90a", "sm_100a"});
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message().find("not supported by this worker") != std::string::npos);
  CHECK(ValidateCompileOptions(Options("")).code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("ValidateCompileOptions bounds opt_level and max_registers") {
  CompileOptions o = Options("sm_90a");
  for (int level : {0, 1, 2, 3}) {
    o.set_opt_level(level);
    CHECK(ValidateCompileOptions(o).ok());
  }
  for (int level : {-1, 4}) {
    o.set_opt_level(level);
    CHECK(ValidateCompileOptions(o).code() == absl::StatusCode::kInvalidArgument);
  }
  o.set_opt_level(0);
  for (int regs : {0, 16, 255}) {
    o.set_max_registers(regs);
    CHECK(ValidateCompileOptions(o).ok());
  }
  for (int regs : {-1, 15, 256}) {
    o.set_max_registers(regs);
    absl::Status s = ValidateCompileOptions(o);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.message().find(std::to_string(regs)) != std::string::npos);
  }
}

TEST_CASE("ValidateCompileOptions without a worker's list accepts every known arch") {
  CHECK(ValidateCompileOptions(Options("sm_75")).ok());
  CHECK(ValidateCompileOptions(Options("sm_121a")).ok());
  absl::Status s = ValidateCompileOptions(Options("sm_91"));
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message().find("sm_90a") != std::string::npos);  // names the known ones
}

TEST_CASE("ValidateCompileOptions bounds the number and length of defines") {
  CompileOptions o = Options("sm_90a");
  for (int i = 0; i < kMaxDefines; ++i) o.add_defines("D" + std::to_string(i));
  CHECK(ValidateCompileOptions(o).ok());
  o.add_defines("ONE_MORE");
  absl::Status s = ValidateCompileOptions(o);
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message().find(std::to_string(kMaxDefines + 1) + " defines") != std::string::npos);
  CompileOptions long_define = Options("sm_90a");
  long_define.add_defines("X=" + std::string(kMaxDefineBytes, '1'));
  CHECK(ValidateCompileOptions(long_define).code() == absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kseek
