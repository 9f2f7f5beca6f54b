#include "problem/arch.h"

#include <catch2/catch.hpp>
#include <string>

namespace kseek {
namespace {

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

TEST_CASE("KnownArchNames lists every arch oldest first for error messages") {
  const std::string names = KnownArchNames();
  CHECK(names.substr(0, 13) == "sm_75, sm_80,");
  CHECK(names.find("sm_90, sm_90a, sm_100") != std::string::npos);
  CHECK(names.substr(names.size() - 7) == "sm_121a");
}

}  // namespace
}  // namespace kseek
