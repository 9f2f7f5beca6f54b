#include "problem/problem_digest.h"

#include <openssl/sha.h>

#include <algorithm>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kseek {

std::string Sha256Hex(absl::string_view bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

bool IsSha256Hex(absl::string_view text) {
  return text.size() == 2 * SHA256_DIGEST_LENGTH &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

kernelseek::v1::ProblemDigest DigestOf(absl::string_view manifest_text, absl::string_view manifest_name,
                                       absl::string_view scenarios_text, absl::string_view scenarios_name) {
  kernelseek::v1::ProblemDigest digest;
  digest.set_manifest_file(std::string(manifest_name));
  digest.set_manifest_sha256(Sha256Hex(manifest_text));
  digest.set_scenarios_file(std::string(scenarios_name));
  digest.set_scenarios_sha256(Sha256Hex(scenarios_text));
  return digest;
}

std::string ProblemCapability(absl::string_view problem, const kernelseek::v1::ProblemDigest& digest) {
  return absl::StrCat(problem, "@", Sha256Hex(absl::StrCat(digest.manifest_sha256(), digest.scenarios_sha256())).substr(0, 16));
}

absl::Status CheckProblemDigest(absl::string_view problem, const kernelseek::v1::ProblemDigest& expected,
                                const kernelseek::v1::ProblemDigest& actual) {
  if (expected.manifest_sha256().empty() && expected.scenarios_sha256().empty()) return absl::OkStatus();
  std::vector<std::string> differences;
  if (expected.manifest_sha256() != actual.manifest_sha256()) {
    differences.push_back(absl::StrCat("the server's manifest ", expected.manifest_file(), " has sha256 ",
                                       expected.manifest_sha256(), ", this worker's ", actual.manifest_file(), " ",
                                       actual.manifest_sha256()));
  }
  if (expected.scenarios_sha256() != actual.scenarios_sha256()) {
    differences.push_back(absl::StrCat("the server's scenario file ", expected.scenarios_file(), " has sha256 ",
                                       expected.scenarios_sha256(), ", this worker's ", actual.scenarios_file(), " ",
                                       actual.scenarios_sha256()));
  }
  if (differences.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "problem \"", problem, "\" differs between the server and this worker: ", absl::StrJoin(differences, "; "),
      ". Not run, so that no other shapes are measured under the same scenario ids: give both the same "
      "scenarios/ folder"));
}

}  // namespace kseek
