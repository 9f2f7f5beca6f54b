#include "problem/problem_digest.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "problem/problem.h"

namespace kseek {
namespace {

using kernelseek::v1::ProblemDigest;

TEST_CASE("Sha256Hex is SHA-256 in lowercase hex", "[digest]") {
  CHECK(Sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(Sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("Problem::Load records the digest of both files it read", "[digest]") {
  const std::string dir = std::string(KSEEK_SOURCE_DIR) + "/scenarios/attention_fwd";
  absl::StatusOr<Problem> problem = Problem::Load(dir + "/problem.textproto");
  REQUIRE(problem.ok());
  const ProblemDigest& digest = problem->digest();
  CHECK(digest.manifest_file() == dir + "/problem.textproto");
  CHECK(digest.scenarios_file() == dir + "/scenarios.textproto");
  CHECK(digest.manifest_sha256().size() == 64);
  CHECK(digest.scenarios_sha256().size() == 64);
  CHECK(digest.manifest_sha256() != digest.scenarios_sha256());
}

TEST_CASE("CheckProblemDigest accepts equal digests and a job without one", "[digest]") {
  ProblemDigest mine = DigestOf("name: \"p\"", "/w/p/problem.textproto", "scenario {}", "/w/p/s.textproto");
  ProblemDigest server = DigestOf("name: \"p\"", "/srv/p/problem.textproto", "scenario {}", "/srv/p/s.textproto");
  CHECK(CheckProblemDigest("p", server, mine).ok());  // the paths may differ, the bytes may not
  CHECK(CheckProblemDigest("p", ProblemDigest(), mine).ok());
}

TEST_CASE("CheckProblemDigest refuses other scenarios naming both files and digests", "[digest]") {
  ProblemDigest mine = DigestOf("name: \"p\"", "/w/p/problem.textproto", "scenario { id: \"a\" }", "/w/p/s.textproto");
  ProblemDigest server =
      DigestOf("name: \"p\"", "/srv/p/problem.textproto", "scenario { id: \"b\" }", "/srv/p/s.textproto");
  absl::Status s = CheckProblemDigest("p", server, mine);
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  const std::string message(s.message());
  CHECK(message.find("problem \"p\" differs") != std::string::npos);
  CHECK(message.find("/srv/p/s.textproto has sha256 " + server.scenarios_sha256()) != std::string::npos);
  CHECK(message.find("/w/p/s.textproto " + mine.scenarios_sha256()) != std::string::npos);
  CHECK(message.find("manifest") == std::string::npos);  // the manifests agree
}

TEST_CASE("ProblemCapability names the problem and 16 hex digits that change with either file", "[digest]") {
  ProblemDigest base = DigestOf("name: \"p\"", "/a/problem.textproto", "scenario {}", "/a/s.textproto");
  ProblemDigest moved = DigestOf("name: \"p\"", "/b/problem.textproto", "scenario {}", "/b/s.textproto");
  ProblemDigest manifest = DigestOf("name: \"p\" ", "/a/problem.textproto", "scenario {}", "/a/s.textproto");
  ProblemDigest scenarios = DigestOf("name: \"p\"", "/a/problem.textproto", "scenario { }", "/a/s.textproto");
  const std::string value = ProblemCapability("p", base);
  CHECK(value.size() == 2 + 16);
  CHECK(value.rfind("p@", 0) == 0);
  CHECK(ProblemCapability("p", moved) == value);  // where the files lie does not matter
  CHECK(ProblemCapability("p", manifest) != value);
  CHECK(ProblemCapability("p", scenarios) != value);
}

}  // namespace
}  // namespace kseek

namespace kseek {
namespace {

std::string FileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("the gemm digest covers gemm's own two files, and differs from attention_fwd's", "[digest]") {
  const std::string dir = std::string(KSEEK_SOURCE_DIR) + "/scenarios/gemm";
  absl::StatusOr<Problem> gemm = Problem::Load(dir + "/problem.textproto");
  REQUIRE(gemm.ok());
  const ProblemDigest& digest = gemm->digest();
  CHECK(digest.manifest_file() == dir + "/problem.textproto");
  CHECK(digest.scenarios_file() == dir + "/scenarios.textproto");
  CHECK(digest.manifest_sha256() == Sha256Hex(FileText(dir + "/problem.textproto")));
  CHECK(digest.scenarios_sha256() == Sha256Hex(FileText(dir + "/scenarios.textproto")));
  absl::StatusOr<Problem> attention =
      Problem::Load(std::string(KSEEK_SOURCE_DIR) + "/scenarios/attention_fwd/problem.textproto");
  REQUIRE(attention.ok());
  absl::Status mixed = CheckProblemDigest("gemm", attention->digest(), digest);
  CHECK(mixed.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(CheckProblemDigest("gemm", digest, digest).ok());
}

}  // namespace
}  // namespace kseek
