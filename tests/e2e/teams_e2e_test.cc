// End to end for issue 13 ("teams, roles, tokens"), through the real
// binaries on one database: two teams that do not see each other's jobs, a
// viewer refused with nothing stored, cancelling another member's job, a
// team admin's `kseek token`, and `kseek-server token revoke` or an expiry
// taking effect on a running server at the next call.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "tests/e2e/local_stack.h"

namespace kseek::testing {
namespace {

using nlohmann::json;

// Submits a compile of a trivial kernel with --no-wait as `token`; no
// worker runs it, so it stays queued. Returns the job id.
std::string SubmitQueued(LocalStack& stack, const std::string& token) {
  const std::string kernel = stack.dir().File("k.cu");
  WriteFile(kernel, "__global__ void k() {}\n");
  SubprocessResult submitted = stack.Kseek({"compile", kernel, "--arch", "sm_90a", "--no-wait", "--wait-for-worker"}, token);
  INFO(submitted.stderr_text);
  REQUIRE(submitted.exit_code == 0);
  return std::string(absl::StripAsciiWhitespace(submitted.stdout_text));
}

size_t ListedJobs(LocalStack& stack, const std::string& token) {
  SubprocessResult listed = stack.Kseek({"jobs", "--json"}, token);
  INFO(listed.stderr_text);
  REQUIRE(listed.exit_code == 0);
  return json::parse(listed.stdout_text)["jobs"].size();
}

TEST_CASE("two teams on one server: a job of team A is not found for team B, and lists hold one's own team",
          "[e2e][teams]") {
  LocalStack stack;
  const std::string alice = stack.CreateUserToken("alice", "team-a", "member");
  const std::string bob = stack.CreateUserToken("bob", "team-b", "admin");
  stack.StartServer();
  const std::string id = SubmitQueued(stack, alice);

  SubprocessResult own = stack.Kseek({"job", id, "--json"}, alice);
  REQUIRE(own.exit_code == 0);
  CHECK(json::parse(own.stdout_text)["team"] == "team-a");
  SubprocessResult other = stack.Kseek({"job", id}, bob);
  CHECK(other.exit_code == 2);
  CHECK(other.stderr_text == absl::StrCat("kseek: no job with id ", id, "\n"));
  SubprocessResult cancel = stack.Kseek({"cancel", id}, bob);
  CHECK(cancel.exit_code == 2);
  CHECK(ListedJobs(stack, bob) == 0);
  CHECK(ListedJobs(stack, alice) == 1);
  // The token LocalStack made before teams were named is a member of "default".
  CHECK(ListedJobs(stack, stack.user_token()) == 0);
  // Workers are one fleet: every team lists them.
  CHECK(stack.Kseek({"workers"}, bob).exit_code == 0);
}

TEST_CASE("a viewer's submit is refused with nothing stored - a member cannot cancel another's job, the admin can",
          "[e2e][teams]") {
  LocalStack stack;
  const std::string viewer = stack.CreateUserToken("vera", "team-a", "viewer");
  const std::string alice = stack.CreateUserToken("alice", "team-a", "member");
  const std::string carol = stack.CreateUserToken("carol", "team-a", "member");
  const std::string admin = stack.CreateUserToken("ada", "team-a", "admin");
  stack.StartServer();

  const std::string kernel = stack.dir().File("k.cu");
  WriteFile(kernel, "__global__ void k() {}\n");
  SubprocessResult refused = stack.Kseek({"compile", kernel, "--arch", "sm_90a", "--no-wait", "--wait-for-worker"}, viewer);
  CHECK(refused.exit_code == 3);
  CHECK(refused.stderr_text ==
        "kseek: permission denied: viewers can read but not submit; ask a team admin for a member token\n");
  CHECK(ListedJobs(stack, admin) == 0);

  const std::string id = SubmitQueued(stack, alice);
  CHECK(ListedJobs(stack, viewer) == 1);
  SubprocessResult by_carol = stack.Kseek({"cancel", id}, carol);
  CHECK(by_carol.exit_code == 3);
  CHECK(by_carol.stderr_text == absl::StrCat("kseek: permission denied: job ", id,
                                             " is alice's: only its owner or an admin of team team-a can cancel it\n"));
  CHECK(json::parse(stack.Kseek({"job", id, "--json"}, alice).stdout_text)["state"] == "JOB_STATE_QUEUED");

  SubprocessResult by_admin = stack.Kseek({"cancel", id}, admin);
  INFO(by_admin.stderr_text);
  REQUIRE(by_admin.exit_code == 0);
  json job = json::parse(stack.Kseek({"job", id, "--json"}, alice).stdout_text);
  CHECK(job["state"] == "JOB_STATE_CANCELLED");
  CHECK(job["cancelled_by"] == "ada");
  CHECK(job["user"] == "alice");
}

TEST_CASE("kseek-server token revoke while the server runs: the next kseek call fails with the revoked message",
          "[e2e][teams]") {
  LocalStack stack;
  const std::string alice = stack.CreateUserToken("alice", "team-a", "member");
  stack.StartServer();
  REQUIRE(stack.Kseek({"jobs"}, alice).exit_code == 0);

  SubprocessResult listed = stack.KseekServer({"token", "list", "--db", stack.db(), "--team", "team-a"});
  INFO(listed.stdout_text);
  REQUIRE(listed.exit_code == 0);
  CHECK(listed.stdout_text.find(alice) == std::string::npos);  // never the token itself
  CHECK_THAT(listed.stdout_text, Catch::Contains("alice") && Catch::Contains("member"));
  // tester (1) and the worker (2) came first.
  SubprocessResult revoked = stack.KseekServer({"token", "revoke", "--db", stack.db(), "3"});
  INFO(revoked.stderr_text);
  REQUIRE(revoked.exit_code == 0);
  CHECK_THAT(revoked.stderr_text, Catch::Contains("revoked token 3 (user alice of team team-a)"));

  SubprocessResult after = stack.Kseek({"jobs"}, alice);
  CHECK(after.exit_code == 3);
  CHECK_THAT(after.stderr_text, Catch::StartsWith("kseek: token rejected by server: token revoked at "));
  SubprocessResult twice = stack.KseekServer({"token", "revoke", "--db", stack.db(), "3"});
  CHECK(twice.exit_code == 2);
  CHECK_THAT(twice.stderr_text, Catch::Contains("token 3 was already revoked at "));
  SubprocessResult unknown = stack.KseekServer({"token", "revoke", "--db", stack.db(), "99"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.stderr_text == "kseek-server: no token with id 99\n");
  // Others' tokens keep working.
  CHECK(stack.Kseek({"jobs"}).exit_code == 0);
}

TEST_CASE("a worker token revoked while its worker serves stops the worker at its next sync, with the reason",
          "[e2e][teams]") {
  LocalStack stack;
  stack.StartServer({"--idle-poll", "1"});
  ChildProcess* worker = stack.StartWorker("revoked-worker", "", {"--no-sandbox"});
  // tester's user token is 1, the worker's 2.
  SubprocessResult revoked = stack.KseekServer({"token", "revoke", "--db", stack.db(), "2"});
  INFO(revoked.stderr_text);
  REQUIRE(revoked.exit_code == 0);
  REQUIRE(WaitFor([&] { return !worker->running(); }, absl::Seconds(30)));
  CHECK(worker->Wait() != 0);
  CHECK_THAT(ReadFile(worker->log_path()), Catch::Contains("token revoked at "));
}

TEST_CASE("a team admin's kseek token: create for the own team, list, revoke - a member is refused",
          "[e2e][teams]") {
  LocalStack stack;
  const std::string admin = stack.CreateUserToken("ada", "team-a", "admin");
  const std::string member = stack.CreateUserToken("alice", "team-a", "member");
  const std::string other_admin = stack.CreateUserToken("bob", "team-b", "admin");
  stack.StartServer();

  SubprocessResult created = stack.Kseek({"token", "create", "dan", "--role", "viewer", "--expires", "30d"}, admin);
  INFO(created.stderr_text);
  REQUIRE(created.exit_code == 0);
  const std::string dan(absl::StripAsciiWhitespace(created.stdout_text));
  CHECK_THAT(created.stderr_text, Catch::Contains("user dan, viewer of team team-a, expires "));
  CHECK(stack.Kseek({"jobs"}, dan).exit_code == 0);

  SubprocessResult listed = stack.Kseek({"token", "list"}, admin);
  INFO(listed.stdout_text);
  REQUIRE(listed.exit_code == 0);
  CHECK_THAT(listed.stdout_text, Catch::Contains("dan") && Catch::Contains("by ada") && Catch::Contains("in 29d"));
  CHECK(listed.stdout_text.find("bob") == std::string::npos);

  SubprocessResult by_member = stack.Kseek({"token", "list"}, member);
  CHECK(by_member.exit_code == 3);
  CHECK(by_member.stderr_text ==
        "kseek: permission denied: managing tokens needs the admin role in team team-a; this token's role is "
        "member\n");
  SubprocessResult bad = stack.Kseek({"token", "create", "eve", "--expires", "soon"}, admin);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.stderr_text, Catch::Contains("--expires \"soon\""));

  json tokens = json::parse(stack.Kseek({"token", "list", "--json"}, admin).stdout_text)["tokens"];
  std::string dan_id;
  for (const json& t : tokens) {
    if (t["name"] == "dan") dan_id = t["id"].get<std::string>();
  }
  REQUIRE_FALSE(dan_id.empty());
  CHECK(stack.Kseek({"token", "revoke", dan_id}, other_admin).exit_code == 2);  // another team's: not found
  SubprocessResult revoked = stack.Kseek({"token", "revoke", dan_id}, admin);
  INFO(revoked.stderr_text);
  REQUIRE(revoked.exit_code == 0);
  SubprocessResult after = stack.Kseek({"jobs"}, dan);
  CHECK(after.exit_code == 3);
  CHECK_THAT(after.stderr_text, Catch::Contains("token revoked at "));
}

TEST_CASE("kseek-server token create refuses a bad name, team, role or duration with the flag, storing nothing",
          "[e2e][teams]") {
  LocalStack stack;
  const std::string fresh = stack.dir().File("fresh.db");
  struct Case {
    std::vector<std::string> flags;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"--user", "a b"}, "--user \"a b\" is not a name"},
           {{"--user", "ana", "--team", "x/y"}, "--team \"x/y\" is not a name"},
           {{"--user", "ana", "--role", "owner"}, "--role: role \"owner\" is not one of admin, member, viewer"},
           {{"--user", "ana", "--expires", "tomorrow"}, "--expires \"tomorrow\" is not a duration"},
           {{"--user", "ana", "--expires", "2001-01-01"}, "--expires 2001-01-01 is not in the future"},
           {{"--worker", "gpu-1", "--team", "a"}, "--team and --role are for --user tokens"},
       }) {
    std::vector<std::string> args = {"token", "create", "--db", fresh};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    SubprocessResult r = stack.KseekServer(args);
    INFO(r.stderr_text);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.stderr_text, Catch::Contains(c.message));
    CHECK(r.stdout_text.empty());
  }
  CHECK_FALSE(std::filesystem::exists(fresh));
  SubprocessResult help = stack.KseekServer({"token", "revoke", "--help"});
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.stdout_text, Catch::Contains("token revoked at"));
}

}  // namespace
}  // namespace kseek::testing
