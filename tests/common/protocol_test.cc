#include "common/protocol.h"

#include <catch2/catch.hpp>

#include "common/version.h"

namespace kseek {
namespace {

TEST_CASE("CheckPeerProtocol accepts the server's own version", "[protocol]") {
  CHECK(CheckPeerProtocol("3", 3, "kseek").ok());
}

TEST_CASE("CheckPeerProtocol tells an older peer to upgrade itself", "[protocol]") {
  absl::Status s = CheckPeerProtocol("2", 3, "kseek");
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(s.message() == "kseek-server speaks protocol 3, this kseek speaks protocol 2: upgrade kseek");
}

TEST_CASE("CheckPeerProtocol tells a newer peer to upgrade the server", "[protocol]") {
  absl::Status s = CheckPeerProtocol("4", 3, "kseek-worker");
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(s.message() == "kseek-server speaks protocol 3, this kseek-worker speaks protocol 4: upgrade kseek-server");
}

TEST_CASE("CheckPeerProtocol: a peer that sends no version is older and must upgrade", "[protocol]") {
  absl::Status s = CheckPeerProtocol(std::nullopt, 1, "kseek");
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(s.message()), Catch::Contains("sends no protocol version") && Catch::EndsWith("upgrade kseek"));
}

TEST_CASE("CheckPeerProtocol: a value that is not a version is invalid", "[protocol]") {
  for (const char* bad : {"", "x", "0", "-1", "1.5"}) {
    INFO(bad);
    CHECK(CheckPeerProtocol(bad, 1, "kseek").code() == absl::StatusCode::kInvalidArgument);
  }
}

TEST_CASE("CheckServerProtocol: same version passes, another or none names the side to upgrade", "[protocol]") {
  CHECK(CheckServerProtocol("2", 2, "kseek").ok());
  CHECK(CheckServerProtocol("3", 2, "kseek").message() ==
        "kseek-server speaks protocol 3, this kseek speaks protocol 2: upgrade kseek");
  CHECK(CheckServerProtocol("1", 2, "kseek-worker").message() ==
        "kseek-server speaks protocol 1, this kseek-worker speaks protocol 2: upgrade kseek-server");
  absl::Status none = CheckServerProtocol(std::nullopt, 2, "kseek");
  CHECK(none.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(none.message()), Catch::EndsWith("upgrade kseek-server"));
}

TEST_CASE("VersionLine names the program, the project version and the protocol", "[protocol]") {
  CHECK(VersionLine("kseek") == std::string("kseek ") + kProjectVersion + " (protocol " +
                                    std::to_string(kProtocolVersion) + ")");
}

}  // namespace
}  // namespace kseek
