// StoreFile: the schema and its migrations, the checks at open, and the
// stores sharing the file.
#include "server/store_file.h"

#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "server/job_store.h"
#include "server/session_store.h"
#include "server/sqlite.h"
#include "server/token_store.h"
#include "tests/server/compile_job.h"
#include "tests/server/open_store.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;

TEST_CASE("a new database is migrated to the latest schema, in WAL mode") {
  testing::TempDir dir;
  auto file = StoreFile::Open(dir.File("db.sqlite"));
  REQUIRE(file.ok());
  REQUIRE((*file)->SchemaVersion().value() == StoreFile::LatestSchemaVersion());
  auto db = Database::Open(dir.File("db.sqlite"));
  REQUIRE(db.ok());
  auto q = (*db)->Prepare("PRAGMA journal_mode");
  REQUIRE(q.ok());
  REQUIRE(q->Step().value());
  REQUIRE(q->ColumnString(0) == "wal");
}

TEST_CASE("a database from a newer server is refused, not downgraded") {
  testing::TempDir dir;
  {
    REQUIRE(StoreFile::Open(dir.File("db.sqlite")).ok());
    auto db = Database::Open(dir.File("db.sqlite"));
    REQUIRE((*db)->Exec("INSERT INTO schema_migrations (version, applied_at) VALUES (999, 0)").ok());
  }
  auto file = StoreFile::Open(dir.File("db.sqlite"));
  REQUIRE(file.status().code() == absl::StatusCode::kFailedPrecondition);
  REQUIRE_THAT(std::string(file.status().message()), Catch::Contains("999"));
}

TEST_CASE("foreign keys are enforced") {
  testing::TempDir dir;
  REQUIRE(StoreFile::Open(dir.File("db.sqlite")).ok());
  auto db = Database::Open(dir.File("db.sqlite"));
  absl::Status s = (*db)->Exec("INSERT INTO job_results (job_id, result) VALUES (12345, x'00')");
  REQUIRE_FALSE(s.ok());
}

TEST_CASE("a database of schema version 3 migrates to teams: its rows join team default, its users as members") {
  testing::TempDir dir;
  const std::string path = dir.File("old.sqlite");
  REQUIRE(StoreFile::OpenAtVersion(path, 3).ok());
  {
    // Rows as a server before teams wrote them, with the columns it knew.
    auto db = Database::Open(path);
    REQUIRE(db.ok());
    REQUIRE((*db)->Exec("INSERT INTO tokens (kind, name, sha256, created_at) VALUES ('user', 'ana', 'h-ana', 1), "
                        "('worker', 'gpu-1', 'h-gpu', 2)")
                .ok());
    Job job = testing::CompileJob("ana");
    auto q = (*db)->Prepare(
        "INSERT INTO jobs (user, kind, spec, requirements, state, created_at) VALUES ('ana', 1, ?, ?, 1, 5)");
    REQUIRE(q.ok());
    REQUIRE(q->BindBlob(1, job.spec().SerializeAsString()).BindBlob(2, Job().SerializeAsString()).Run().ok());
    REQUIRE((*db)->Exec("INSERT INTO sessions (user, spec, state, created_at, updated_at) VALUES ('ana', '', 2, 7, 7)")
                .ok());
  }
  auto file = StoreFile::Open(path);
  REQUIRE(file.ok());
  CHECK((*file)->SchemaVersion().value() == StoreFile::LatestSchemaVersion());
  auto tokens = *TokenStore::Open(**file);
  auto jobs = *JobStore::Open(**file);
  auto sessions = *SessionStore::Open(**file);

  auto ana = tokens->FindToken("h-ana").value();
  REQUIRE(ana.has_value());
  CHECK(ana->name == "ana");
  CHECK(ana->team == kDefaultTeam);
  CHECK(ana->role == Role::kMember);
  CHECK_FALSE(ana->expires_at.has_value());
  CHECK_FALSE(ana->revoked_at.has_value());
  auto gpu = tokens->FindToken("h-gpu").value();
  REQUIRE(gpu.has_value());
  CHECK(gpu->kind == TokenKind::kWorker);
  CHECK(gpu->team.empty());

  auto listed = jobs->ListJobs({.team = kDefaultTeam, .limit = 10}).value();
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].user() == "ana");
  CHECK(listed[0].team() == kDefaultTeam);
  CHECK(listed[0].spec().source_name() == "k.cu");
  auto listed_sessions = sessions->ListSessions(kDefaultTeam, 10).value();
  REQUIRE(listed_sessions.size() == 1);
  CHECK(listed_sessions[0].team() == kDefaultTeam);
  CHECK(jobs->ListJobs({.team = "other", .limit = 10}).value().empty());
}

TEST_CASE("a database of schema version 6 loses scenario_results and keeps its jobs' scenario results") {
  testing::TempDir dir;
  const std::string path = dir.File("old.sqlite");
  int64_t id = 0;
  {
    auto file = StoreFile::OpenAtVersion(path, 6);
    REQUIRE(file.ok());
    REQUIRE((*file)->SchemaVersion().value() == 6);
    auto store = *JobStore::Open(**file);
    id = store->InsertJob(testing::CompileJob("ana")).value();
    kernelseek::v1::JobResult result;
    auto* scenario = result.mutable_run()->add_scenarios();
    scenario->set_id("4096x4096");
    scenario->set_passed(true);
    scenario->set_speedup(1.0 / 3.0);
    REQUIRE(store->FinishJob(id, kernelseek::v1::JOB_STATE_SUCCEEDED, "", &result, absl::Now()).ok());
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
  auto file = StoreFile::Open(path);
  REQUIRE(file.ok());
  CHECK((*file)->SchemaVersion().value() == StoreFile::LatestSchemaVersion());
  auto store = *JobStore::Open(**file);
  auto job = store->GetJob(id).value().value();
  REQUIRE(job.result().run().scenarios_size() == 1);
  CHECK(job.result().run().scenarios(0).id() == "4096x4096");
  CHECK(job.result().run().scenarios(0).speedup() == 1.0 / 3.0);
  store.reset();
  file->reset();
  auto db = Database::Open(path);
  REQUIRE(db.ok());
  auto q = (*db)->Prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'scenario_results'");
  REQUIRE(q.ok());
  REQUIRE(q->Step().value());
  CHECK(q->ColumnInt64(0) == 0);
}

TEST_CASE("the job store and the session store write the file from two threads at once on their own connections") {
  testing::TempDir dir;
  std::unique_ptr<StoreFile> file = *StoreFile::Open(dir.File("db.sqlite"));
  std::unique_ptr<JobStore> jobs = *JobStore::Open(*file);
  std::unique_ptr<SessionStore> sessions = *SessionStore::Open(*file);
  kernelseek::v1::Session session;
  session.set_user("alice");
  session.set_team(kDefaultTeam);
  session.mutable_spec()->set_kernel_name("k.cu");
  session.set_state(kernelseek::v1::SESSION_STATE_RUNNING);
  const int64_t session_id = sessions->InsertSession(session).value();

  constexpr int kEach = 300;
  // Every call's status, checked on this thread (Catch2's assertions are not
  // thread-safe).
  std::vector<absl::Status> job_errors, event_errors;
  std::thread job_writer([&] {
    for (int i = 0; i < kEach; ++i) {
      absl::StatusOr<int64_t> id = jobs->InsertJob(testing::CompileJob("ana"));
      if (!id.ok()) {
        job_errors.push_back(id.status());
        continue;
      }
      // A read between the writes, as the queue does.
      if (absl::Status s = jobs->LeaseJob(*id, "w1", "L", 1); !s.ok()) job_errors.push_back(s);
      if (absl::StatusOr<std::optional<Job>> got = jobs->GetJob(*id); !got.ok()) job_errors.push_back(got.status());
    }
  });
  std::thread event_writer([&] {
    kernelseek::v1::SessionEvent event;
    event.set_kind("note");
    event.set_author("harness");
    event.set_payload_json("{}");
    for (int i = 0; i < kEach; ++i) {
      if (absl::StatusOr<int64_t> seq = sessions->AppendSessionEvent(session_id, event); !seq.ok()) {
        event_errors.push_back(seq.status());
      }
      if (absl::StatusOr<std::vector<kernelseek::v1::SessionEvent>> listed =
              sessions->ListSessionEvents(session_id, i, 1);
          !listed.ok()) {
        event_errors.push_back(listed.status());
      }
    }
  });
  job_writer.join();
  event_writer.join();
  CHECK(job_errors.empty());
  CHECK(event_errors.empty());
  CHECK(jobs->LoadUnfinishedJobs().value().size() == kEach);
  std::vector<kernelseek::v1::SessionEvent> events = sessions->ListSessionEvents(session_id, 0, 2 * kEach).value();
  REQUIRE(events.size() == kEach);
  CHECK(events.back().seq() == kEach);
}

// Runs StoreFile::Open(path) as an unprivileged user when the test runs as root
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
    absl::StatusOr<std::unique_ptr<StoreFile>> store = StoreFile::Open(path);
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
    REQUIRE(StoreFile::Open(path).ok());
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
    auto file = StoreFile::Open(dir.File("kseek.db"));
    REQUIRE(file.ok());
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
    auto jobs = testing::OpenStore<JobStore>(path);
    for (int i = 0; i < 200; ++i) REQUIRE(jobs->InsertJob(testing::CompileJob("alice")).ok());
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
    absl::StatusOr<std::unique_ptr<StoreFile>> store = StoreFile::Open(path);
    REQUIRE(store.status().code() == absl::StatusCode::kFailedPrecondition);
    CHECK_THAT(std::string(store.status().message()),
               Catch::Contains(path) && (Catch::Contains("damaged") || Catch::Contains("malformed")));
  }
  SECTION("garbage over the header") {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.write("this is not sqlite", 18);
    file.close();
    absl::StatusOr<std::unique_ptr<StoreFile>> store = StoreFile::Open(path);
    REQUIRE(store.status().code() == absl::StatusCode::kFailedPrecondition);
    CHECK_THAT(std::string(store.status().message()), Catch::Contains(path) && Catch::Contains("not a database"));
  }
}

}  // namespace
}  // namespace kseek
