// Caller: the user behind a client RPC (a name in one team, with a role) and
// every rule of what that role allows, so that CoordinatorService asks here
// instead of deciding per RPC. A plain value; thread-compatible.
//
//   admin   everything a member may, in its team, and the team's tokens
//   member  submits jobs and starts sessions; cancels and stops its own;
//           reads its team's and posts messages to any session of its team
//   viewer  reads its team's
//
// Work of another team is invisible (NOT_FOUND, as for an unknown id), so
// the errors do not tell another team's ids apart from free ones.
#ifndef KERNELSEEK_SERVER_CALLER_H_
#define KERNELSEEK_SERVER_CALLER_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "server/token_store.h"

namespace kseek {

struct Caller {
  std::string name;
  std::string team;
  Role role = Role::kViewer;

  // Jobs, sessions, traces and sources of `other_team` are the caller's to read.
  bool CanRead(absl::string_view other_team) const;
  // Submitting a job or starting a session: PERMISSION_DENIED for viewers.
  absl::Status CheckSubmit() const;
  // Posting a message to a session of the caller's team: PERMISSION_DENIED for viewers.
  absl::Status CheckAsk() const;
  // Cancelling or stopping (`verb`) `what` (e.g. "job 7"), which `owner`
  // of `owner_team` started: its owner (not a viewer) or an admin of that team.
  absl::Status CheckControl(absl::string_view what, absl::string_view owner, absl::string_view owner_team,
                            absl::string_view verb) const;
  // Managing the team's tokens: PERMISSION_DENIED but for admins.
  absl::Status CheckAdmin() const;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_CALLER_H_
