#include "common/baseline_list.h"

#include <catch2/catch.hpp>

namespace kseek {
namespace {

TEST_CASE("ParseBaselineList keeps the order given, and none is the empty list") {
  REQUIRE(*ParseBaselineList("cudnn") == std::vector<std::string>{"cudnn"});
  REQUIRE(*ParseBaselineList("fa3,cudnn") == std::vector<std::string>{"fa3", "cudnn"});
  REQUIRE(*ParseBaselineList("cudnn,fa2,fa3,fa4") == std::vector<std::string>{"cudnn", "fa2", "fa3", "fa4"});
  REQUIRE(ParseBaselineList("none")->empty());
}

TEST_CASE("ParseBaselineList names the bad entry") {
  auto check = [](const char* value, const char* says) {
    absl::StatusOr<std::vector<std::string>> parsed = ParseBaselineList(value);
    REQUIRE(parsed.status().code() == absl::StatusCode::kInvalidArgument);
    REQUIRE_THAT(std::string(parsed.status().message()), Catch::Contains(says));
  };
  check("fa5", "unknown baseline \"fa5\"");
  check("cudnn,fa3,cudnn", "\"cudnn\" appears twice");
  check("cudnn,", "empty entry");
  check("", "empty entry");
  check("none,fa3", "none stands alone");
  check("cuDNN", "unknown baseline \"cuDNN\"");
}

TEST_CASE("a baseline list is checked against the names a problem's manifest declares") {
  const std::vector<std::string> gemm = {"cublas", "cutlass"};
  CHECK(*ParseBaselineList("cutlass,cublas", gemm) == std::vector<std::string>{"cutlass", "cublas"});
  CHECK(ParseBaselineList("none", gemm)->empty());
  absl::StatusOr<std::vector<std::string>> cudnn = ParseBaselineList("cudnn", gemm);
  CHECK(cudnn.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(cudnn.status().message() == "unknown baseline \"cudnn\" in \"cudnn\"; known: cublas, cutlass, or none");
  CHECK(ParseBaselineList("x", {}).status().message() == "unknown baseline \"x\" in \"x\"; known: none declared, or none");
}

TEST_CASE("SplitBaselineList checks only the list's form, for a client that does not know the problem") {
  CHECK(*SplitBaselineList("cublas") == std::vector<std::string>{"cublas"});
  CHECK(*SplitBaselineList("fa3,cudnn") == std::vector<std::string>{"fa3", "cudnn"});
  CHECK(SplitBaselineList("none")->empty());
  CHECK(SplitBaselineList("cublas,cublas").status().message() == "baseline \"cublas\" appears twice in \"cublas,cublas\"");
  CHECK(SplitBaselineList("none,cublas").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(SplitBaselineList("cublas,").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(SplitBaselineList("cu blas").status().message() ==
        "baseline \"cu blas\" in \"cu blas\" is not a name (letters, digits, '-', '_', '.')");
}

}  // namespace
}  // namespace kseek
