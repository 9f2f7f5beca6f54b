#include "server/store.h"

#include <catch2/catch.hpp>

#include "server/sqlite.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;

Job NewJob(const std::string& user) {
  Job job;
  job.set_user(user);
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
  REQUIRE(q->ColumnText(0) == "wal");
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
  auto jobs = store->ListJobs(10).value();
  REQUIRE(jobs.size() == 2);
  REQUIRE(jobs[0].user() == "bo");
  REQUIRE(jobs[0].spec().source().empty());
  REQUIRE(store->ListJobs(1).value().size() == 1);
}

TEST_CASE("tokens are found by hash with their kind") {
  testing::TempDir dir;
  auto store = *Store::Open(dir.File("db.sqlite"));
  REQUIRE(store->AddToken(TokenKind::kWorker, "gpu-1", "abc123", absl::Now()).ok());
  auto found = store->FindToken("abc123").value();
  REQUIRE(found.has_value());
  REQUIRE(found->kind == TokenKind::kWorker);
  REQUIRE(found->name == "gpu-1");
  REQUIRE_FALSE(store->FindToken("other").value().has_value());
  // The same hash twice is a constraint violation, not a silent overwrite.
  REQUIRE_FALSE(store->AddToken(TokenKind::kUser, "x", "abc123", absl::Now()).ok());
}

}  // namespace
}  // namespace kseek
