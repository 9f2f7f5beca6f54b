#include "server/store.h"

#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "server/sqlite.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;

Job NewJob(const std::string& user) {
  Job job;
  job.set_user(user);
  job.set_team(kDefaultTeam);
  job.mutable_spec()->set_kind(kernelseek::v1::JOB_KIND_COMPILE);
  job.mutable_spec()->set_source_name("k.cu");
  job.mutable_spec()->set_source("__global__ void k() {}");
  job.mutable_spec()->mutable_compile()->set_arch("sm_90a");
  auto* req = job.add_requirements();
  req->set_key("compile");
  req->set_value("sm_90a");
  job.mutable_created()->set_seconds(1'800'000'000);
  return job;
}

TEST_CASE("a new database is migrated to the latest schema, in WAL mode") {
  testing::TempDir dir;
  auto store = Store::Open(dir.File("db.sqlite"));
  REQUIRE(store.ok());
  REQUIRE((*store)->SchemaVersion().value() == Store::LatestSchemaVersion());
  auto db = Database::Open(dir.File("db.sqlite"));
  REQUIRE(db.ok());
  auto q = (*db)->Prepare("PRAGMA journal_mode");
  REQUIRE(q.ok());
  REQUIRE(q->Step().value());
  REQUIRE(q->ColumnString(0) == "wal");
}

TEST_CASE("reopening a migrated database keeps its data and version") {
  testing::TempDir dir;
  int64_t id = 0;
  {
    auto store = Store::Open(dir.File("db.sqlite"));
    REQUIRE(store.ok());
    id = (*store)->InsertJob(NewJob("ana")).value();
  }
  auto store = Store::Open(dir.File("db.sqlite"));
  REQUIRE(store.ok());
  REQUIRE((*store)->SchemaVersion().value() == Store::LatestSchemaVersion());
  auto job = (*store)->GetJob(id);
  REQUIRE(job.ok());
  REQUIRE(job->has_value());
  REQUIRE((*job)->user() == "ana");
  REQUIRE((*job)->spec().source() == "__global__ void k() {}");
  REQUIRE((*job)->requirements_size() == 1);
}

TEST_CASE("a database from a newer server is refused, not downgraded") {
  testing::TempDir dir;
  {
    REQUIRE(Store::Open(dir.File("db.sqlite")).ok());
    auto db = Database::Open(dir.File("db.sqlite"));
    REQUIRE((*db)->Exec("INSERT INTO schema_migrations (version, applied_at) VALUES (999, 0)").ok());
  }
  auto store = Store::Open(dir.File("db.sqlite"));
  REQUIRE(store.status().code() == absl::StatusCode::kFailedPrecondition);
  REQUIRE_THAT(std::string(store.status().message()), Catch::Contains("999"));
}

TEST_CASE("foreign keys are enforced") {
  testing::TempDir dir;
  REQUIRE(Store::Open(dir.File("db.sqlite")).ok());
  auto db = Database::Open(dir.File("db.sqlite"));
  absl::Status s = (*db)->Exec("INSERT INTO job_results (job_id, result) VALUES (12345, x'00')");
  REQUIRE_FALSE(s.ok());
}

TEST_CASE("job lifecycle: lease, requeue, finish with result") {
  testing::TempDir dir;
  auto store = *Store::Open(dir.File("db.sqlite"));
  int64_t id = store->InsertJob(NewJob("ana")).value();
  REQUIRE(store->LeaseJob(id, "w1", "L1.1", 1).ok());
  auto unfinished = store->LoadUnfinishedJobs().value();
  REQUIRE(unfinished.size() == 1);
  REQUIRE(unfinished[0].lease_id == "L1.1");
  REQUIRE(unfinished[0].job.state() == kernelseek::v1::JOB_STATE_LEASED);
  REQUIRE(store->RequeueJob(id).ok());
  REQUIRE(store->LoadUnfinishedJobs().value()[0].lease_id.empty());

  kernelseek::v1::JobResult result;
  result.mutable_compile()->set_success(true);
  REQUIRE(store->FinishJob(id, kernelseek::v1::JOB_STATE_SUCCEEDED, "", &result, absl::Now()).ok());
  REQUIRE(store->LoadUnfinishedJobs().value().empty());
  auto job = store->GetJob(id).value().value();
  REQUIRE(job.state() == kernelseek::v1::JOB_STATE_SUCCEEDED);
  REQUIRE(job.result().compile().success());
  REQUIRE(job.has_finished());
}

TEST_CASE("listing shows newest first and leaves out the source") {
  testing::TempDir dir;
  auto store = *Store::Open(dir.File("db.sqlite"));
  store->InsertJob(NewJob("ana")).value();
  store->InsertJob(NewJob("bo")).value();
  auto jobs = store->ListJobs({.team = kDefaultTeam, .limit = 10}).value();
  REQUIRE(jobs.size() == 2);
  REQUIRE(jobs[0].user() == "bo");
  REQUIRE(jobs[0].spec().source().empty());
  REQUIRE(store->ListJobs({.team = kDefaultTeam, .limit = 1}).value().size() == 1);
}

TEST_CASE("tokens are found by hash with their kind") {
  testing::TempDir dir;
  auto store = *Store::Open(dir.File("db.sqlite"));
  REQUIRE(store->AddToken({.kind = TokenKind::kWorker, .name = "gpu-1", .created_at = absl::Now()}, "abc123").ok());
  auto found = store->FindToken("abc123").value();
  REQUIRE(found.has_value());
  REQUIRE(found->kind == TokenKind::kWorker);
  REQUIRE(found->name == "gpu-1");
  REQUIRE_FALSE(store->FindToken("other").value().has_value());
  // The same hash twice is a constraint violation, not a silent overwrite.
  REQUIRE_FALSE(
      store->AddToken({.kind = TokenKind::kUser, .name = "x", .team = "t", .created_at = absl::Now()}, "abc123").ok());
}

}  // namespace
}  // namespace kseek

namespace kseek {
namespace {

// Runs Store::Open(path) as an unprivileged user when the test runs as root
// (root writes read-only files, so permissions would test nothing), in a
// child process. Returns "" when it opened, else the error message.
std::string OpenAsUser(const std::string& path) {
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(pipe_fds[0]);
    if (geteuid() == 0 && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
    const std::string message = store.ok() ? "" : std::string(store.status().message());
    [[maybe_unused]] ssize_t n = write(pipe_fds[1], message.data(), message.size());
    _exit(store.ok() ? 0 : 1);
  }
  close(pipe_fds[1]);
  std::string message;
  char buffer[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) message.append(buffer, static_cast<size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) != 3);
  CHECK((WEXITSTATUS(status) == 0) == message.empty());
  return message;
}

// A migrated database in a folder the unprivileged user of OpenAsUser owns.
struct OwnedDatabase {
  OwnedDatabase() : path(dir.File("kseek.db")) {
    REQUIRE(Store::Open(path).ok());
    for (const std::string& p : {dir.path(), path, path + "-wal", path + "-shm"}) {
      if (geteuid() == 0) chown(p.c_str(), 65534, 65534);
    }
  }
  testing::TempDir dir;
  std::string path;
};

int ModeOf(const std::string& path) {
  struct stat info {};
  REQUIRE(stat(path.c_str(), &info) == 0);
  return static_cast<int>(info.st_mode & 0777);
}

TEST_CASE("a new database and its -wal and -shm are created 0600", "[store]") {
  testing::TempDir dir;
  const mode_t old_umask = umask(022);
  {
    auto store = Store::Open(dir.File("kseek.db"));
    REQUIRE(store.ok());
    CHECK(ModeOf(dir.File("kseek.db")) == 0600);
    CHECK(ModeOf(dir.File("kseek.db-wal")) == 0600);
    CHECK(ModeOf(dir.File("kseek.db-shm")) == 0600);
  }
  umask(old_umask);
}

TEST_CASE("a read-only database file is refused at open, not at the first write", "[store]") {
  OwnedDatabase db;
  REQUIRE(OpenAsUser(db.path).empty());
  chmod(db.path.c_str(), 0400);
  const std::string error = OpenAsUser(db.path);
  CHECK_THAT(error, Catch::Contains(db.path) && Catch::Contains("read-only"));
}

TEST_CASE("a database in a folder that cannot be written is refused at open", "[store]") {
  OwnedDatabase db;
  // Closed cleanly, so -wal and -shm are gone and must be created anew.
  std::filesystem::remove(db.path + "-wal");
  std::filesystem::remove(db.path + "-shm");
  chmod(db.dir.path().c_str(), 0500);
  const std::string error = OpenAsUser(db.path);
  chmod(db.dir.path().c_str(), 0700);
  CHECK_THAT(error, Catch::Contains(db.path) && Catch::Contains("folder must be writable"));
}

TEST_CASE("a corrupted database is refused at open with what SQLite found", "[store]") {
  testing::TempDir dir;
  const std::string path = dir.File("kseek.db");
  {
    auto store = Store::Open(path);
    REQUIRE(store.ok());
    for (int i = 0; i < 200; ++i) REQUIRE((*store)->InsertJob(NewJob("alice")).ok());
  }
  {
    // Checkpoint the WAL into the file, so that the pages overwritten below are
    // the only copy.
    auto raw = Database::Open(path);
    REQUIRE(raw.ok());
    REQUIRE((*raw)->Exec("PRAGMA wal_checkpoint(TRUNCATE)").ok());
  }
  SECTION("garbage in the pages after the first") {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    const std::string garbage(4096 * 3, '\x5a');
    file.seekp(4096 * 2);
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
    file.close();
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
    REQUIRE(store.status().code() == absl::StatusCode::kFailedPrecondition);
    CHECK_THAT(std::string(store.status().message()),
               Catch::Contains(path) && (Catch::Contains("damaged") || Catch::Contains("malformed")));
  }
  SECTION("garbage over the header") {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.write("this is not sqlite", 18);
    file.close();
    absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(path);
    REQUIRE(store.status().code() == absl::StatusCode::kFailedPrecondition);
    CHECK_THAT(std::string(store.status().message()), Catch::Contains(path) && Catch::Contains("not a database"));
  }
}

TEST_CASE("ListJobs filters by team always and by user, state and problem, all of those given, newest first") {
  testing::TempDir dir;
  auto store = *Store::Open(dir.File("db.sqlite"));
  auto verify_of = [](const std::string& user, const std::string& problem) {
    Job job = NewJob(user);
    job.mutable_spec()->set_kind(kernelseek::v1::JOB_KIND_VERIFY);
    job.mutable_spec()->mutable_run()->set_problem(problem);
    return job;
  };
  const int64_t ana_compile = store->InsertJob(NewJob("ana")).value();
  const int64_t ana_verify = store->InsertJob(verify_of("ana", "attention_fwd")).value();
  const int64_t bob_verify = store->InsertJob(verify_of("bob", "attention_fwd")).value();
  const int64_t bob_other = store->InsertJob(verify_of("bob", "layernorm")).value();
  REQUIRE(store->FinishJob(bob_verify, kernelseek::v1::JOB_STATE_FAILED, "no", nullptr, absl::Now()).ok());
  Job other_team = verify_of("bob", "attention_fwd");
  other_team.set_team("blue");
  const int64_t bob_blue = store->InsertJob(other_team).value();

  auto ids = [&](JobFilter filter) {
    if (filter.team.empty()) filter.team = kDefaultTeam;
    absl::StatusOr<std::vector<Job>> listed = store->ListJobs(filter);
    REQUIRE(listed.ok());
    std::vector<int64_t> out;
    for (const Job& job : *listed) out.push_back(std::stoll(job.id()));
    return out;
  };
  CHECK(ids({}) == std::vector<int64_t>{bob_other, bob_verify, ana_verify, ana_compile});
  CHECK(ids({.user = "ana"}) == std::vector<int64_t>{ana_verify, ana_compile});
  CHECK(ids({.state = kernelseek::v1::JOB_STATE_FAILED}) == std::vector<int64_t>{bob_verify});
  CHECK(ids({.problem = "attention_fwd"}) == std::vector<int64_t>{bob_verify, ana_verify});
  CHECK(ids({.user = "bob", .state = kernelseek::v1::JOB_STATE_QUEUED, .problem = "layernorm"}) ==
        std::vector<int64_t>{bob_other});
  CHECK(ids({.user = "bob", .problem = "attention_fwd", .limit = 1}) == std::vector<int64_t>{bob_verify});
  CHECK(ids({.user = "carol"}).empty());
  CHECK(ids({.team = "blue"}) == std::vector<int64_t>{bob_blue});
  CHECK(ids({.team = "green"}).empty());
  // Listings carry no source text.
  absl::StatusOr<std::vector<Job>> ana = store->ListJobs({.team = kDefaultTeam, .user = "ana"});
  REQUIRE(ana.ok());
  REQUIRE(!ana->empty());
  CHECK(ana->front().spec().source().empty());
}

TEST_CASE("a database of schema version 3 migrates to teams: its rows join team default, its users as members") {
  testing::TempDir dir;
  const std::string path = dir.File("old.sqlite");
  REQUIRE(Store::OpenAtVersion(path, 3).ok());
  {
    // Rows as a server before teams wrote them, with the columns it knew.
    auto db = Database::Open(path);
    REQUIRE(db.ok());
    REQUIRE((*db)->Exec("INSERT INTO tokens (kind, name, sha256, created_at) VALUES ('user', 'ana', 'h-ana', 1), "
                        "('worker', 'gpu-1', 'h-gpu', 2)")
                .ok());
    Job job = NewJob("ana");
    auto q = (*db)->Prepare(
        "INSERT INTO jobs (user, kind, spec, requirements, state, created_at) VALUES ('ana', 1, ?, ?, 1, 5)");
    REQUIRE(q.ok());
    REQUIRE(q->BindBlob(1, job.spec().SerializeAsString()).BindBlob(2, Job().SerializeAsString()).Run().ok());
    REQUIRE((*db)->Exec("INSERT INTO sessions (user, spec, state, created_at, updated_at) VALUES ('ana', '', 2, 7, 7)")
                .ok());
  }
  auto store = Store::Open(path);
  REQUIRE(store.ok());
  CHECK((*store)->SchemaVersion().value() == Store::LatestSchemaVersion());

  auto ana = (*store)->FindToken("h-ana").value();
  REQUIRE(ana.has_value());
  CHECK(ana->name == "ana");
  CHECK(ana->team == kDefaultTeam);
  CHECK(ana->role == Role::kMember);
  CHECK_FALSE(ana->expires_at.has_value());
  CHECK_FALSE(ana->revoked_at.has_value());
  auto gpu = (*store)->FindToken("h-gpu").value();
  REQUIRE(gpu.has_value());
  CHECK(gpu->kind == TokenKind::kWorker);
  CHECK(gpu->team.empty());

  auto jobs = (*store)->ListJobs({.team = kDefaultTeam, .limit = 10}).value();
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].user() == "ana");
  CHECK(jobs[0].team() == kDefaultTeam);
  CHECK(jobs[0].spec().source_name() == "k.cu");
  auto sessions = (*store)->ListSessions(kDefaultTeam, 10).value();
  REQUIRE(sessions.size() == 1);
  CHECK(sessions[0].team() == kDefaultTeam);
  CHECK((*store)->ListJobs({.team = "other", .limit = 10}).value().empty());
}

TEST_CASE("a database of schema version 6 loses scenario_results and keeps its jobs' scenario results") {
  testing::TempDir dir;
  const std::string path = dir.File("old.sqlite");
  int64_t id = 0;
  {
    auto store = Store::OpenAtVersion(path, 6);
    REQUIRE(store.ok());
    REQUIRE((*store)->SchemaVersion().value() == 6);
    id = (*store)->InsertJob(NewJob("ana")).value();
    kernelseek::v1::JobResult result;
    auto* scenario = result.mutable_run()->add_scenarios();
    scenario->set_id("4096x4096");
    scenario->set_passed(true);
    scenario->set_speedup(1.0 / 3.0);
    REQUIRE((*store)->FinishJob(id, kernelseek::v1::JOB_STATE_SUCCEEDED, "", &result, absl::Now()).ok());
  }
  {
    // The row a server at version 6 also wrote.
    auto db = Database::Open(path);
    REQUIRE(db.ok());
    auto q = (*db)->Prepare(
        "INSERT INTO scenario_results (job_id, scenario, passed, speedup, result) VALUES (?, '4096x4096', 1, ?, x'')");
    REQUIRE(q.ok());
    REQUIRE(q->Bind(1, id).Bind(2, 1.0 / 3.0).Run().ok());
  }
  auto store = Store::Open(path);
  REQUIRE(store.ok());
  CHECK((*store)->SchemaVersion().value() == Store::LatestSchemaVersion());
  auto job = (*store)->GetJob(id).value().value();
  REQUIRE(job.result().run().scenarios_size() == 1);
  CHECK(job.result().run().scenarios(0).id() == "4096x4096");
  CHECK(job.result().run().scenarios(0).speedup() == 1.0 / 3.0);
  store->reset();
  auto db = Database::Open(path);
  REQUIRE(db.ok());
  auto q = (*db)->Prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'scenario_results'");
  REQUIRE(q.ok());
  REQUIRE(q->Step().value());
  CHECK(q->ColumnInt64(0) == 0);
}

TEST_CASE("tokens keep team, role, expiry and author - a revocation is stored once") {
  testing::TempDir dir;
  auto store = *Store::Open(dir.File("db.sqlite"));
  const absl::Time t0 = absl::FromUnixSeconds(1'800'000'000);
  TokenRecord viewer{.kind = TokenKind::kUser, .name = "vic", .team = "blue", .role = Role::kViewer,
                     .created_at = t0, .created_by = "ada", .expires_at = t0 + absl::Hours(12)};
  int64_t id = store->AddToken(viewer, "h-vic").value();
  REQUIRE(store->AddToken({.kind = TokenKind::kUser, .name = "rex", .team = "red", .role = Role::kAdmin,
                           .created_at = t0},
                          "h-rex")
              .ok());
  auto found = store->FindToken("h-vic").value();
  REQUIRE(found.has_value());
  CHECK(found->id == id);
  CHECK(found->team == "blue");
  CHECK(found->role == Role::kViewer);
  CHECK(found->created_by == "ada");
  CHECK(found->expires_at == t0 + absl::Hours(12));
  REQUIRE(store->ListTokens("blue").value().size() == 1);
  CHECK(store->ListTokens("").value().size() == 2);

  // Scoped to another team, the token does not exist.
  CHECK(store->RevokeToken(id, "red", "rex", t0).status().code() == absl::StatusCode::kNotFound);
  auto revoked = store->RevokeToken(id, "blue", "ada", t0 + absl::Minutes(1));
  REQUIRE(revoked.ok());
  CHECK(revoked->revoked_at == t0 + absl::Minutes(1));
  CHECK(store->FindToken("h-vic").value()->revoked_by == "ada");
  auto again = store->RevokeToken(id, "", "", t0 + absl::Minutes(2));
  CHECK(again.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(again.status().message()),
             Catch::Contains("already revoked at 2027-01-15 08:01:00 UTC by ada"));
  CHECK(store->RevokeToken(999, "", "", t0).status().code() == absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace kseek
