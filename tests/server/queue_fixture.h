// QueueFixture: a JobQueue over a fresh SQLite file in a temp folder, a fake
// clock, the repository's problems, a 10 s lease and 2 attempts: what the
// queue's tests and the bench-shard tests drive directly. Not thread-safe.
#ifndef KERNELSEEK_TESTS_SERVER_QUEUE_FIXTURE_H_
#define KERNELSEEK_TESTS_SERVER_QUEUE_FIXTURE_H_

#include <memory>

#include "common/clock.h"
#include "problem/problem_catalog.h"
#include "server/job_queue.h"
#include "server/job_store.h"
#include "tests/server/open_store.h"
#include "tests/testing/temp_dir.h"

namespace kseek::testing {

struct QueueFixture {
  TempDir dir;
  FakeClock clock;
  std::unique_ptr<JobStore> store = OpenStore<JobStore>(dir.File("db.sqlite"));
  JobQueueOptions options = [] {
    JobQueueOptions o;
    o.lease_timeout = absl::Seconds(10);
    o.max_attempts = 2;
    return o;
  }();
  ProblemCatalog problems = *ProblemCatalog::Load(KSEEK_SCENARIOS_DIR);
  JobQueue queue{store.get(), &clock, &problems, options};
};

}  // namespace kseek::testing

#endif  // KERNELSEEK_TESTS_SERVER_QUEUE_FIXTURE_H_
