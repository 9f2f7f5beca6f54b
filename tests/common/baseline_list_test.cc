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

}  // namespace
}  // namespace kseek
