#include "common/flags.h"

#include <catch2/catch.hpp>

namespace kseek {
namespace {

TEST_CASE("ParseHostPort takes HOST:PORT with a port in range", "[flags]") {
  absl::StatusOr<HostPort> v4 = ParseHostPort("listen", "127.0.0.1:7070", false);
  REQUIRE(v4.ok());
  CHECK(v4->host == "127.0.0.1");
  CHECK(v4->port == 7070);
  absl::StatusOr<HostPort> v6 = ParseHostPort("listen", "[::1]:65535", false);
  REQUIRE(v6.ok());
  CHECK(v6->host == "[::1]");
  CHECK(v6->port == 65535);
  CHECK(ParseHostPort("listen", "localhost:0", true)->port == 0);
}

TEST_CASE("ParseHostPort refuses a port outside 1-65535, naming the flag and the value", "[flags]") {
  for (const char* address : {"127.0.0.1:99999", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:70x",
                              "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:000000007070"}) {
    INFO(address);
    absl::StatusOr<HostPort> parsed = ParseHostPort("listen", address, false);
    REQUIRE(parsed.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(parsed.status().message()),
               Catch::Contains("--listen") && Catch::Contains(address) && Catch::Contains("1-65535"));
  }
  CHECK(ParseHostPort("listen", "127.0.0.1:99999", true).status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("ParseHostPort refuses an address without a host or a port", "[flags]") {
  for (const char* address : {"7070", ":7070", "::1:7070", "[::1:7070"}) {
    INFO(address);
    CHECK(ParseHostPort("server", address, false).status().code() == absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace kseek
