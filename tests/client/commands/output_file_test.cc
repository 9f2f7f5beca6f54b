#include "client/commands/output_file.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace kseek {
namespace {

using Args = std::vector<std::string>;

TEST_CASE("ExpandOutputFlag spells -o FILE and -oFILE as --output") {
  CHECK(ExpandOutputFlag({"s1", "-o", "t.md"}) == Args{"s1", "--output", "t.md"});
  CHECK(ExpandOutputFlag({"-ot.md", "s1"}) == Args{"--output=t.md", "s1"});
}

TEST_CASE("ExpandOutputFlag leaves other flags and everything after -- alone") {
  CHECK(ExpandOutputFlag({"--format", "md", "-o", "-", "--force"}) == Args{"--format", "md", "--output", "-", "--force"});
  CHECK(ExpandOutputFlag({"-o--x"}) == Args{"-o--x"});
  CHECK(ExpandOutputFlag({"--", "-o", "x"}) == Args{"--", "-o", "x"});
}

}  // namespace
}  // namespace kseek
