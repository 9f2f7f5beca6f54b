#include "server/caller.h"

#include <catch2/catch.hpp>

namespace kseek {
namespace {

const Caller kAdmin{"ada", "blue", Role::kAdmin};
const Caller kMember{"bo", "blue", Role::kMember};
const Caller kViewer{"vic", "blue", Role::kViewer};

TEST_CASE("a caller reads its own team's work only") {
  for (const Caller& c : {kAdmin, kMember, kViewer}) {
    CHECK(c.CanRead("blue"));
    CHECK_FALSE(c.CanRead("red"));
    CHECK_FALSE(c.CanRead(""));
  }
}

TEST_CASE("viewers may not submit, ask, cancel or stop, and are told to ask for a member token") {
  CHECK(kMember.CheckSubmit().ok());
  CHECK(kAdmin.CheckSubmit().ok());
  CHECK(kMember.CheckAsk().ok());
  absl::Status submit = kViewer.CheckSubmit();
  CHECK(submit.code() == absl::StatusCode::kPermissionDenied);
  CHECK(submit.message() == "viewers can read but not submit; ask a team admin for a member token");
  CHECK(kViewer.CheckAsk().code() == absl::StatusCode::kPermissionDenied);
  CHECK(kViewer.CheckControl("job 1", "vic", "blue", "cancel").code() == absl::StatusCode::kPermissionDenied);
}

TEST_CASE("a member controls its own work - another member's needs an admin of that team") {
  CHECK(kMember.CheckControl("job 1", "bo", "blue", "cancel").ok());
  absl::Status other = kMember.CheckControl("job 2", "cy", "blue", "cancel");
  CHECK(other.code() == absl::StatusCode::kPermissionDenied);
  CHECK(other.message() == "job 2 is cy's: only its owner or an admin of team blue can cancel it");
  CHECK(kAdmin.CheckControl("job 2", "cy", "blue", "cancel").ok());
  // A user is its name in its team: the same name in another team is someone else.
  CHECK(kMember.CheckControl("job 3", "bo", "red", "cancel").code() == absl::StatusCode::kPermissionDenied);
  CHECK(kAdmin.CheckControl("job 3", "cy", "red", "cancel").code() == absl::StatusCode::kPermissionDenied);
}

TEST_CASE("only admins manage tokens") {
  CHECK(kAdmin.CheckAdmin().ok());
  absl::Status member = kMember.CheckAdmin();
  CHECK(member.code() == absl::StatusCode::kPermissionDenied);
  CHECK(member.message() == "managing tokens needs the admin role in team blue; this token's role is member");
  CHECK(kViewer.CheckAdmin().code() == absl::StatusCode::kPermissionDenied);
}

}  // namespace
}  // namespace kseek
