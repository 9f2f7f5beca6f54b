#include "server/caller.h"

#include "absl/strings/str_cat.h"

namespace kseek {
namespace {

absl::Status ViewerRefused(absl::string_view action) {
  return absl::PermissionDeniedError(
      absl::StrCat("viewers can read but not ", action, "; ask a team admin for a member token"));
}

}  // namespace

bool Caller::CanRead(absl::string_view other_team) const { return other_team == team; }

absl::Status Caller::CheckSubmit() const {
  return role == Role::kViewer ? ViewerRefused("submit") : absl::OkStatus();
}

absl::Status Caller::CheckAsk() const {
  return role == Role::kViewer ? ViewerRefused("post messages") : absl::OkStatus();
}

absl::Status Caller::CheckControl(absl::string_view what, absl::string_view owner, absl::string_view owner_team,
                                  absl::string_view verb) const {
  if (role == Role::kViewer) return ViewerRefused(verb);
  if (owner_team == team && (role == Role::kAdmin || owner == name)) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(what, " is ", owner, "'s: only its owner or an admin of team ",
                                                  owner_team, " can ", verb, " it"));
}

absl::Status Caller::CheckAdmin() const {
  if (role == Role::kAdmin) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat("managing tokens needs the admin role in team ", team,
                                                  "; this token's role is ", RoleName(role)));
}

}  // namespace kseek
