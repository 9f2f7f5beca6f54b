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
#include "tests/client/session_test_data.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;
using testing::FakeCoordinatorServer;
using testing::SessionWatchScript;
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
  kernelseek::v1::ListJobsRequest list;
  list.set_limit(10);
  REQUIRE(client.ListJobs(list).ok());
  CHECK(server.service().authorizations() ==
        std::vector<std::string>{"Bearer s3cret", "Bearer s3cret", "Bearer s3cret"});
}

TEST_CASE("a server that sends no protocol version is refused by the client: upgrade kseek-server") {
  FakeCoordinatorServer server("t", /*protocol_version=*/std::nullopt);
  server.service().SetJob(MakeJob(kernelseek::v1::JOB_STATE_QUEUED));
  CoordinatorClient client(CoordinatorClient::MakeChannel(server.address()), "t");
  absl::Status status = client.GetJob("7").status();
  CHECK(status.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(status.message()),
             Catch::Contains("sends no protocol version") && Catch::EndsWith("upgrade kseek-server"));
  CHECK(ExitCodeForRpcError(status) == kExitServer);
}

TEST_CASE("a server of a newer protocol that answers anyway is refused: upgrade kseek") {
  FakeCoordinatorServer server("t", kProtocolVersion + 1);
  server.service().SetJob(MakeJob(kernelseek::v1::JOB_STATE_QUEUED));
  CoordinatorClient client(CoordinatorClient::MakeChannel(server.address()), "t");
  absl::Status status = client.GetJob("7").status();
  CHECK(status.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(status.message() == absl::StrCat("kseek-server speaks protocol ", kProtocolVersion + 1,
                                         ", this kseek speaks protocol ", kProtocolVersion, ": upgrade kseek"));
}

TEST_CASE("a rejected token reads as such and exits 3") {
  FakeCoordinatorServer server("s3cret");
  server.service().SetJob(MakeJob(kernelseek::v1::JOB_STATE_QUEUED));
  CoordinatorClient client(CoordinatorClient::MakeChannel(server.address()), "wrong");
  absl::Status status = client.GetJob("7").status();
  CHECK(status.code() == absl::StatusCode::kUnauthenticated);
  CHECK(DescribeRpcError(status, server.address()) == "token rejected by server: unknown token");
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

// A fake serving session s1 in `state` with the nine-event test trace.
void ServeSession(FakeCoordinatorServer& server, kernelseek::v1::SessionState state) {
  server.service().SetSession(testing::MakeSessionDetails(state));
  server.service().SetSessionEvents(testing::MakeTrace());
}

std::vector<int64_t> Seqs(const std::vector<kernelseek::v1::SessionEvent>& events) {
  std::vector<int64_t> seqs;
  for (const auto& event : events) seqs.push_back(event.seq());
  return seqs;
}

TEST_CASE("WatchSession resumes a broken stream after the last event it handed over") {
  FakeCoordinatorServer server("t");
  ServeSession(server, kernelseek::v1::SESSION_STATE_SUCCEEDED);
  server.service().SetSessionWatchScripts({
      {.max_events = 4, .end = grpc::Status(grpc::StatusCode::UNAVAILABLE, "server restarting")},
      {.max_events = 0, .end = grpc::Status(grpc::StatusCode::CANCELLED, "shutting down")},
      {.max_events = -1, .end = grpc::Status::OK},
  });
  CoordinatorClient client(CoordinatorClient::MakeChannel(server.address()), "t",
                           FastRetries(absl::Seconds(10)));
  std::vector<kernelseek::v1::SessionEvent> seen;
  std::vector<int64_t> lost_after;
  absl::StatusOr<kernelseek::v1::Session> session = client.WatchSession(
      "s1", 0, /*follow=*/true, [&](const auto& event) { seen.push_back(event); },
      [&](const absl::Status&, int64_t last_seq) { lost_after.push_back(last_seq); });
  REQUIRE(session.ok());
  CHECK(session->state() == kernelseek::v1::SESSION_STATE_SUCCEEDED);
  CHECK(Seqs(seen) == std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(lost_after == std::vector<int64_t>{4, 4});
  std::vector<kernelseek::v1::WatchSessionRequest> requests =
      server.service().session_watch_requests();
  REQUIRE(requests.size() == 3);
  CHECK(requests[0].from_seq() == 0);
  CHECK(requests[1].from_seq() == 4);
  CHECK(requests[2].from_seq() == 4);
  CHECK(requests[2].follow());
  CHECK(server.service().authorizations().back() == "Bearer t");
}

TEST_CASE("WatchSession without follow stops after the stored events") {
  FakeCoordinatorServer server("t");
  ServeSession(server, kernelseek::v1::SESSION_STATE_RUNNING);
  CoordinatorClient client(CoordinatorClient::MakeChannel(server.address()), "t",
                           FastRetries(absl::Seconds(10)));
  std::vector<kernelseek::v1::SessionEvent> seen;
  absl::StatusOr<kernelseek::v1::Session> session = client.WatchSession(
      "s1", 6, /*follow=*/false, [&](const auto& event) { seen.push_back(event); }, nullptr);
  REQUIRE(session.ok());
  CHECK(session->state() == kernelseek::v1::SESSION_STATE_RUNNING);
  CHECK(Seqs(seen) == std::vector<int64_t>{7, 8, 9});
  REQUIRE(server.service().session_watch_requests().size() == 1);
  CHECK(!server.service().session_watch_requests()[0].follow());
}

TEST_CASE("WatchSession does not take a stream closed while the session runs as its end") {
  FakeCoordinatorServer server("t");
  ServeSession(server, kernelseek::v1::SESSION_STATE_RUNNING);
  CoordinatorClient client(CoordinatorClient::MakeChannel(server.address()), "t",
                           FastRetries(absl::Milliseconds(300)));
  std::vector<kernelseek::v1::SessionEvent> seen;
  absl::StatusOr<kernelseek::v1::Session> session = client.WatchSession(
      "s1", 0, /*follow=*/true, [&](const auto& event) { seen.push_back(event); }, nullptr);
  CHECK(session.status().code() == absl::StatusCode::kUnavailable);
  CHECK(absl::StrContains(session.status().message(), "ended while the session is running"));
  CHECK(Seqs(seen) == std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9});
  std::vector<kernelseek::v1::WatchSessionRequest> requests =
      server.service().session_watch_requests();
  REQUIRE(requests.size() > 2);
  CHECK(requests.back().from_seq() == 9);
}

TEST_CASE("session RPCs map an unknown session to NOT_FOUND without retrying") {
  FakeCoordinatorServer server("t");
  ServeSession(server, kernelseek::v1::SESSION_STATE_RUNNING);
  CoordinatorClient client(CoordinatorClient::MakeChannel(server.address()), "t",
                           FastRetries(absl::Seconds(10)));
  absl::Status watch = client.WatchSession("s9", 0, true, nullptr, nullptr).status();
  CHECK(watch.code() == absl::StatusCode::kNotFound);
  CHECK(ExitCodeForRpcError(watch) == kExitUsage);
  CHECK(server.service().session_watch_requests().empty());
  CHECK(client.GetSession("s9").status().code() == absl::StatusCode::kNotFound);
  CHECK(client.PostMessage("s9", "hi").status().code() == absl::StatusCode::kNotFound);
  CHECK(client.StopSession("s9").status().code() == absl::StatusCode::kNotFound);
  CHECK(client.GetBestKernel("s9").status().code() == absl::StatusCode::kNotFound);
  absl::StatusOr<int64_t> seq = client.PostMessage("s1", "What bounds the inner loop?");
  REQUIRE(seq.ok());
  CHECK(*seq == 10);
  CHECK(server.service().posted_messages().at(0).text() == "What bounds the inner loop?");
}

}  // namespace
}  // namespace kseek
