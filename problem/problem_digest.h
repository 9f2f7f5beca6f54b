// The SHA-256 of a problem's manifest and scenario file. The server puts the
// digest of what it validated a job against into the job; the worker compares
// it with the files it loaded, so a job never runs on shapes other than the
// ones the server checked and lists under the same scenario ids. Plain
// functions; thread-safe.
#ifndef KERNELSEEK_PROBLEM_PROBLEM_DIGEST_H_
#define KERNELSEEK_PROBLEM_PROBLEM_DIGEST_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/problem.pb.h"

namespace kseek {

// 64 lowercase hex digits.
std::string Sha256Hex(absl::string_view bytes);
// Whether `text` looks like what Sha256Hex returns (content-addressed keys
// from the wire are checked with it before they name a file or a row).
bool IsSha256Hex(absl::string_view text);

// The digest of a manifest and its scenario file; the names are kept for
// messages only.
kernelseek::v1::ProblemDigest DigestOf(absl::string_view manifest_text, absl::string_view manifest_name,
                                       absl::string_view scenarios_text, absl::string_view scenarios_name);

// `NAME@HEX16`: the problem's name and the first 16 hex digits of the
// SHA-256 of its two file digests. A worker advertises one per problem it
// has (the `problems` property), and a verify, bench or profile job requires
// the one of the server's files, so a job is leased only to workers whose
// files are the server's.
std::string ProblemCapability(absl::string_view problem, const kernelseek::v1::ProblemDigest& digest);

// OK when `expected` (the server's) is empty, as from a server older than
// digests, or when both hashes equal `actual` (this worker's).
// FAILED_PRECONDITION otherwise, naming the problem and, per file that
// differs, both files and both digests.
absl::Status CheckProblemDigest(absl::string_view problem, const kernelseek::v1::ProblemDigest& expected,
                                const kernelseek::v1::ProblemDigest& actual);

}  // namespace kseek

#endif  // KERNELSEEK_PROBLEM_PROBLEM_DIGEST_H_
