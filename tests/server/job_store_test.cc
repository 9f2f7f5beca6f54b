#include "server/job_store.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/server/compile_job.h"
#include "tests/server/open_store.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;

TEST_CASE("reopening a migrated database keeps its data and version") {
  testing::TempDir dir;
  int64_t id = 0;
  {
    auto store = testing::OpenStore<JobStore>(dir.File("db.sqlite"));
    id = store->InsertJob(testing::CompileJob("ana")).value();
  }
  auto file = StoreFile::Open(dir.File("db.sqlite"));
  REQUIRE(file.ok());
  REQUIRE((*file)->SchemaVersion().value() == StoreFile::LatestSchemaVersion());
  auto store = *JobStore::Open(**file);
  auto job = store->GetJob(id);
  REQUIRE(job.ok());
  REQUIRE(job->has_value());
  REQUIRE((*job)->user() == "ana");
  REQUIRE((*job)->spec().source() == "__global__ void k() {}");
  REQUIRE((*job)->requirements_size() == 1);
}

TEST_CASE("job lifecycle: lease, requeue, finish with result") {
  testing::TempDir dir;
  auto store = testing::OpenStore<JobStore>(dir.File("db.sqlite"));
  int64_t id = store->InsertJob(testing::CompileJob("ana")).value();
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
  auto store = testing::OpenStore<JobStore>(dir.File("db.sqlite"));
  store->InsertJob(testing::CompileJob("ana")).value();
  store->InsertJob(testing::CompileJob("bo")).value();
  auto jobs = store->ListJobs({.team = kDefaultTeam, .limit = 10}).value();
  REQUIRE(jobs.size() == 2);
  REQUIRE(jobs[0].user() == "bo");
  REQUIRE(jobs[0].spec().source().empty());
  REQUIRE(store->ListJobs({.team = kDefaultTeam, .limit = 1}).value().size() == 1);
}

TEST_CASE("ListJobs filters by team always and by user, state and problem, all of those given, newest first") {
  testing::TempDir dir;
  auto store = testing::OpenStore<JobStore>(dir.File("db.sqlite"));
  auto verify_of = [](const std::string& user, const std::string& problem) {
    Job job = testing::CompileJob(user);
    job.mutable_spec()->set_kind(kernelseek::v1::JOB_KIND_VERIFY);
    job.mutable_spec()->mutable_run()->set_problem(problem);
    return job;
  };
  const int64_t ana_compile = store->InsertJob(testing::CompileJob("ana")).value();
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

}  // namespace
}  // namespace kseek
