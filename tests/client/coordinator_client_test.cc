#include "client/coordinator_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/exit_codes.h"
#include "client/report_format.h"
#include "tests/client/fake_coordinator.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;
using testing::FakeCoordinatorServer;
using testing::WatchScript;

// A loopback port nothing listens on: bound by the OS, then released.
int ClosedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  socklen_t len = sizeof(addr);
  REQUIRE(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  close(fd);
  return ntohs(addr.sin_port);
}

Job MakeJob(kernelseek::v1::JobState state, const std::string& stage = "") {
  Job job;
  job.set_id("7");
  job.set_state(state);
  job.set_stage(stage);
  job.set_worker("worker-a");
  return job;
}

CoordinatorClient::Options FastRetries(absl::Duration budget) {
  CoordinatorClient::Options options;
  options.rpc_timeout = absl::Seconds(5);
  options.watch_reconnect_budget = budget;
  options.initial_backoff = absl::Milliseconds(10);
  options.max_backoff = absl::Milliseconds(50);
  return options;
}

TEST_CASE("every call carries the token as a Bearer authorization") {
  FakeCoordinatorServer server("s3cret");
  server.service().SetJob(MakeJob(kernelseek::v1::JOB_STATE_QUEUED));
  CoordinatorClient client(CoordinatorClient::MakeChannel(server.address()), "s3cret");

  kernelseek::v1::JobSpec spec;
  spec.set_source_name("k.cu");
  absl::StatusOr<std::string> id = client.SubmitJob(spec);
  REQUIRE(id.ok());
  CHECK(*id == "7");
  CHECK(server.service().last_submitted().source_name() == "k.cu");
  REQUIRE(client.GetJob("7").ok());
  REQUIRE(client.ListJobs(10).ok());
  CHECK(server.service().authorizations() ==
        std::vector<std::string>{"Bearer s3cret", "Bearer s3cret", "Bearer s3cret"});
}

TEST_CASE("a rejected token reads as such and exits 3") {
  FakeCoordinatorServer server("s3cret");
  server.service().SetJob(MakeJob(kernelseek::v1::JOB_STATE_QUEUED));
  CoordinatorClient client(CoordinatorClient::MakeChannel(server.address()), "wrong");
  absl::Status status = client.GetJob("7").status();
  CHECK(status.code() == absl::StatusCode::kUnauthenticated);
  CHECK(DescribeRpcError(status, server.address()) == "token rejected by server");
  CHECK(ExitCodeForRpcError(status) == kExitServer);
}

TEST_CASE("an unknown job id is a usage error with the server's message") {
  FakeCoordinatorServer server("t");
  server.service().SetJob(MakeJob(kernelseek::v1::JOB_STATE_QUEUED));
  CoordinatorClient client(CoordinatorClient::MakeChannel(server.address()), "t");
  absl::Status status = client.GetJob("99").status();
  CHECK(DescribeRpcError(status, server.address()) == "no job 99");
  CHECK(ExitCodeForRpcError(status) == kExitUsage);
}

TEST_CASE("an unreachable server fails fast as UNAVAILABLE naming the address") {
  std::string address = absl::StrCat("127.0.0.1:", ClosedPort());
  CoordinatorClient client(CoordinatorClient::MakeChannel(address), "t");
  absl::Time start = absl::Now();
  absl::Status status = client.ListWorkers().status();
  CHECK(absl::Now() - start < absl::Seconds(5));
  CHECK(status.code() == absl::StatusCode::kUnavailable);
  CHECK(absl::StartsWith(DescribeRpcError(status, address),
                         absl::StrCat("cannot reach server at ", address)));
  CHECK(ExitCodeForRpcError(status) == kExitServer);
}

TEST_CASE("WatchJob re-opens a broken stream and follows the job to the end") {
  FakeCoordinatorServer server("t");
  server.service().SetJob(MakeJob(kernelseek::v1::JOB_STATE_QUEUED));
  server.service().SetWatchScripts({
      {.updates = {MakeJob(kernelseek::v1::JOB_STATE_QUEUED)},
       .end = grpc::Status(grpc::StatusCode::UNAVAILABLE, "server restarting")},
      {.updates = {}, .end = grpc::Status(grpc::StatusCode::CANCELLED, "shutting down")},
      {.updates = {MakeJob(kernelseek::v1::JOB_STATE_LEASED, "compiling"),
                   MakeJob(kernelseek::v1::JOB_STATE_SUCCEEDED)},
       .end = grpc::Status::OK},
  });
  CoordinatorClient client(CoordinatorClient::MakeChannel(server.address()), "t",
                           FastRetries(absl::Seconds(10)));
  std::vector<std::string> seen;
  int lost = 0;
  absl::StatusOr<Job> job = client.WatchJob(
      "7", [&](const Job& j) { seen.push_back(FormatProgress(j)); },
      [&](const absl::Status&) { ++lost; });
  REQUIRE(job.ok());
  CHECK(job->state() == kernelseek::v1::JOB_STATE_SUCCEEDED);
  CHECK(seen == std::vector<std::string>{"queued", "compiling on worker-a", "finished"});
  CHECK(lost == 2);
  CHECK(server.service().watch_calls() == 3);
}

TEST_CASE("WatchJob treats a stream that ends before the job finished as broken") {
  FakeCoordinatorServer server("t");
  server.service().SetJob(MakeJob(kernelseek::v1::JOB_STATE_QUEUED));
  server.service().SetWatchScripts({
      {.updates = {MakeJob(kernelseek::v1::JOB_STATE_QUEUED)}, .end = grpc::Status::OK},
      {.updates = {MakeJob(kernelseek::v1::JOB_STATE_FAILED)}, .end = grpc::Status::OK},
  });
  CoordinatorClient client(CoordinatorClient::MakeChannel(server.address()), "t",
                           FastRetries(absl::Seconds(10)));
  absl::StatusOr<Job> job = client.WatchJob("7", nullptr, nullptr);
  REQUIRE(job.ok());
  CHECK(job->state() == kernelseek::v1::JOB_STATE_FAILED);
}

TEST_CASE("WatchJob gives up once the stream stays broken past its budget") {
  FakeCoordinatorServer server("t");
  server.service().SetJob(MakeJob(kernelseek::v1::JOB_STATE_QUEUED));
  server.service().SetWatchScripts(
      {{.updates = {}, .end = grpc::Status(grpc::StatusCode::UNAVAILABLE, "down")}});
  CoordinatorClient client(CoordinatorClient::MakeChannel(server.address()), "t",
                           FastRetries(absl::Milliseconds(300)));
  absl::Time start = absl::Now();
  absl::StatusOr<Job> job = client.WatchJob("7", nullptr, nullptr);
  absl::Duration took = absl::Now() - start;
  CHECK(job.status().code() == absl::StatusCode::kUnavailable);
  CHECK(took >= absl::Milliseconds(300));
  CHECK(took < absl::Seconds(5));
  CHECK(server.service().watch_calls() > 2);
}

TEST_CASE("WatchJob does not retry what a retry cannot fix") {
  FakeCoordinatorServer server("t");
  server.service().SetJob(MakeJob(kernelseek::v1::JOB_STATE_QUEUED));
  server.service().SetWatchScripts(
      {{.updates = {MakeJob(kernelseek::v1::JOB_STATE_QUEUED)}, .end = grpc::Status::OK}});
  CoordinatorClient client(CoordinatorClient::MakeChannel(server.address()), "t",
                           FastRetries(absl::Seconds(10)));
  CHECK(client.WatchJob("99", nullptr, nullptr).status().code() == absl::StatusCode::kNotFound);
  CoordinatorClient bad_token(CoordinatorClient::MakeChannel(server.address()), "x",
                              FastRetries(absl::Seconds(10)));
  CHECK(bad_token.WatchJob("7", nullptr, nullptr).status().code() ==
        absl::StatusCode::kUnauthenticated);
  CHECK(server.service().watch_calls() == 0);
}

}  // namespace
}  // namespace kseek
