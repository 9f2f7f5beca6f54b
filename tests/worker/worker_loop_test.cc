// WorkerLoop against a scripted WorkerHub stub and a fake executor: the
// worker side of the Synchronize protocol (whole state every call, results
// re-sent until a sync succeeds, permanent refusals end the loop, a lease the
// server moved off is dropped and reported as draining until its run ends).
#include "worker/worker_loop.h"

#include <google/protobuf/util/time_util.h>

#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"

namespace kseek {
namespace {

using kernelseek::v1::JobResult;
using kernelseek::v1::JobSpec;
using kernelseek::v1::SynchronizeRequest;
using kernelseek::v1::SynchronizeResponse;

// Answers Synchronize with `answer`, called with the number of the call (from
// 0) and the request; keeps every request. The other RPCs are not used by the
// loop and answer UNIMPLEMENTED.
class ScriptedHub final : public kernelseek::v1::WorkerHub::StubInterface {
 public:
  using Answer = std::function<grpc::Status(int call, const SynchronizeRequest&, SynchronizeResponse*)>;
  explicit ScriptedHub(Answer answer) : answer_(std::move(answer)) {}

  grpc::Status Synchronize(grpc::ClientContext*, const SynchronizeRequest& request,
                           SynchronizeResponse* response) override {
    int call;
    {
      absl::MutexLock lock(&mu_);
      call = static_cast<int>(requests_.size());
      requests_.push_back(request);
    }
    return answer_(call, request, response);
  }
  std::vector<SynchronizeRequest> requests() {
    absl::MutexLock lock(&mu_);
    return requests_;
  }

  grpc::Status PutCompiledArtifact(grpc::ClientContext*, const kernelseek::v1::PutCompiledArtifactRequest&,
                                   kernelseek::v1::PutCompiledArtifactResponse*) override {
    return {grpc::StatusCode::UNIMPLEMENTED, "not in this test"};
  }
  grpc::Status GetCompiledArtifact(grpc::ClientContext*, const kernelseek::v1::GetCompiledArtifactRequest&,
                                   kernelseek::v1::GetCompiledArtifactResponse*) override {
    return {grpc::StatusCode::UNIMPLEMENTED, "not in this test"};
  }

 private:
  grpc::ClientAsyncResponseReaderInterface<SynchronizeResponse>* AsyncSynchronizeRaw(
      grpc::ClientContext*, const SynchronizeRequest&, grpc::CompletionQueue*) override {
    return nullptr;
  }
  grpc::ClientAsyncResponseReaderInterface<SynchronizeResponse>* PrepareAsyncSynchronizeRaw(
      grpc::ClientContext*, const SynchronizeRequest&, grpc::CompletionQueue*) override {
    return nullptr;
  }
  grpc::ClientAsyncResponseReaderInterface<kernelseek::v1::PutCompiledArtifactResponse>* AsyncPutCompiledArtifactRaw(
      grpc::ClientContext*, const kernelseek::v1::PutCompiledArtifactRequest&, grpc::CompletionQueue*) override {
    return nullptr;
  }
  grpc::ClientAsyncResponseReaderInterface<kernelseek::v1::PutCompiledArtifactResponse>*
  PrepareAsyncPutCompiledArtifactRaw(grpc::ClientContext*, const kernelseek::v1::PutCompiledArtifactRequest&,
                                     grpc::CompletionQueue*) override {
    return nullptr;
  }
  grpc::ClientAsyncResponseReaderInterface<kernelseek::v1::GetCompiledArtifactResponse>* AsyncGetCompiledArtifactRaw(
      grpc::ClientContext*, const kernelseek::v1::GetCompiledArtifactRequest&, grpc::CompletionQueue*) override {
    return nullptr;
  }
  grpc::ClientAsyncResponseReaderInterface<kernelseek::v1::GetCompiledArtifactResponse>*
  PrepareAsyncGetCompiledArtifactRaw(grpc::ClientContext*, const kernelseek::v1::GetCompiledArtifactRequest&,
                                     grpc::CompletionQueue*) override {
    return nullptr;
  }

  Answer answer_;
  absl::Mutex mu_;
  std::vector<SynchronizeRequest> requests_ ABSL_GUARDED_BY(mu_);
};

// Reports a stage, waits for `release` (when given), and returns a compile
// result whose log names the job's source.
class FakeExecutor final : public JobExecutor {
 public:
  absl::StatusOr<JobResult> Execute(const JobSpec& spec, const StageReporter& report_stage) override {
    report_stage("compiling", {});
    if (release != nullptr) release->WaitForNotification();
    JobResult result;
    result.mutable_compile()->set_success(true);
    result.mutable_compile()->set_log("built " + spec.source());
    finished.Notify();
    return result;
  }
  absl::Notification* release = nullptr;
  absl::Notification finished;
};

void Execute(SynchronizeResponse* response, const std::string& lease, absl::Duration deadline_in) {
  auto* execute = response->mutable_desired_state()->mutable_execute();
  execute->set_lease_id(lease);
  execute->set_job_id("7");
  execute->mutable_spec()->set_kind(kernelseek::v1::JOB_KIND_COMPILE);
  execute->mutable_spec()->set_source("k.cu text");
  *response->mutable_next_sync_deadline() =
      google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(absl::Now() + deadline_in));
}

WorkerLoopOptions Options() {
  WorkerLoopOptions options;
  options.name = "gpu-1";
  options.token = "ksw_test";
  options.instance_id = "inst-1";
  options.max_backoff = absl::Milliseconds(20);
  return options;
}

TEST_CASE("a leased job runs in the executor and its result goes back under its lease, then the worker is idle") {
  WorkerLoop* loop = nullptr;
  ScriptedHub hub([&](int call, const SynchronizeRequest& request, SynchronizeResponse* response) {
    if (call == 0) {
      Execute(response, "L7.1", absl::Seconds(3));
    } else if (request.current_state().has_executing()) {
      Execute(response, "L7.1", absl::Seconds(3));  // keep running it
    } else {
      response->mutable_desired_state()->mutable_idle();
      if (request.current_state().has_idle()) loop->Stop();
    }
    return grpc::Status::OK;
  });
  FakeExecutor executor;
  WorkerLoop worker(&hub, &executor, Options());
  loop = &worker;
  REQUIRE(worker.Run().ok());

  std::vector<SynchronizeRequest> requests = hub.requests();
  REQUIRE(requests.size() >= 3);
  CHECK(requests.front().current_state().has_idle());
  CHECK(requests.front().worker_name() == "gpu-1");
  CHECK(requests.front().instance_id() == "inst-1");
  int completed = 0;
  for (const SynchronizeRequest& r : requests) {
    if (!r.current_state().has_completed()) continue;
    ++completed;
    CHECK(r.current_state().completed().lease_id() == "L7.1");
    CHECK(r.current_state().completed().result().compile().log() == "built k.cu text");
  }
  CHECK(completed == 1);  // taken by the server, so sent once
  CHECK(requests.back().current_state().has_idle());
}

TEST_CASE("a result whose sync fails is sent again; a refusal for good ends the loop with its code") {
  int completion_failures = 0;
  ScriptedHub hub([&](int call, const SynchronizeRequest& request, SynchronizeResponse* response) {
    if (call == 0) {
      Execute(response, "L7.1", absl::Seconds(3));
      return grpc::Status::OK;
    }
    if (request.current_state().has_executing()) {
      Execute(response, "L7.1", absl::Seconds(3));
      return grpc::Status::OK;
    }
    if (request.current_state().has_completed()) {
      if (completion_failures++ == 0) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "connection reset");
      response->mutable_desired_state()->mutable_idle();
      return grpc::Status::OK;
    }
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "token revoked at 2026-12-02 14:00:00 UTC");
  });
  FakeExecutor executor;
  WorkerLoop worker(&hub, &executor, Options());
  absl::Status ended = worker.Run();
  CHECK(ended.code() == absl::StatusCode::kUnauthenticated);
  CHECK_THAT(std::string(ended.message()), Catch::Contains("server rejected this worker: token revoked"));

  std::vector<SynchronizeRequest> requests = hub.requests();
  std::vector<std::string> completions;
  for (const SynchronizeRequest& r : requests) {
    if (r.current_state().has_completed()) completions.push_back(r.current_state().completed().lease_id());
  }
  CHECK(completions == std::vector<std::string>{"L7.1", "L7.1"});  // the failed sync's result, again
  CHECK(requests.back().current_state().has_idle());
}

TEST_CASE("a lease the server moves off is dropped, and the worker says it drains until that run ends") {
  absl::Notification release;
  WorkerLoop* loop = nullptr;
  std::vector<std::string> draining;
  ScriptedHub hub([&](int call, const SynchronizeRequest& request, SynchronizeResponse* response) {
    if (call == 0) {
      Execute(response, "L7.1", absl::Milliseconds(300));
      return grpc::Status::OK;
    }
    // From the second call on the server wants it idle (the lease moved).
    response->mutable_desired_state()->mutable_idle();
    if (request.current_state().has_idle()) {
      draining.push_back(request.draining());
      if (!request.draining().empty()) {
        release.Notify();  // the abandoned run ends now
      } else {
        loop->Stop();
      }
    }
    return grpc::Status::OK;
  });
  FakeExecutor executor;
  executor.release = &release;
  WorkerLoop worker(&hub, &executor, Options());
  loop = &worker;
  REQUIRE(worker.Run().ok());
  REQUIRE(executor.finished.WaitForNotificationWithTimeout(absl::Seconds(10)));

  std::vector<SynchronizeRequest> requests = hub.requests();
  REQUIRE(requests.size() >= 3);
  CHECK(requests[1].current_state().has_executing());
  CHECK(requests[1].current_state().executing().lease_id() == "L7.1");
  // The abandoned run's result is never sent.
  for (const SynchronizeRequest& r : requests) CHECK_FALSE(r.current_state().has_completed());
  REQUIRE(draining.size() >= 2);
  CHECK_THAT(draining.front(), Catch::Contains("lease L7.1") && Catch::Contains("still runs here"));
  CHECK(draining.back().empty());
}

}  // namespace
}  // namespace kseek
