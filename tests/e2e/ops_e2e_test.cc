// End to end: what operators and deployment tools rely on, through the real
// binaries on loopback: gRPC health and reflection, the Prometheus endpoint
// moving with the queue, config files (and their errors) for server and
// worker, and a GPU-pool worker that finds no GPU refusing to start.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <regex>
#include <set>

#include <google/protobuf/descriptor.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "proto/config.pb.h"
#include "tests/e2e/local_stack.h"
#include "tests/testing/http_get.h"

namespace kseek::testing {
namespace {

constexpr const char* kKernel = "__global__ void k(float* x) { x[threadIdx.x] *= 2.f; }\n";

std::string Bytes(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  if (!buffer.Dump(&slices).ok()) return "";
  std::string out;
  for (const grpc::Slice& s : slices) out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return out;
}

grpc::ByteBuffer Buffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

// Calls grpc.health.v1.Health/Check for the whole server (service ""), as
// grpc_health_probe and Kubernetes' gRPC probes do, with no project proto.
// Returns the raw HealthCheckResponse, or the call's error.
absl::StatusOr<std::string> HealthCheck(const std::string& address) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::CompletionQueue cq;
  auto call = stub.PrepareUnaryCall(&context, "/grpc.health.v1.Health/Check", Buffer(""), &cq);
  call->StartCall();
  grpc::ByteBuffer response;
  grpc::Status status;
  call->Finish(&response, &status, reinterpret_cast<void*>(1));
  void* tag = nullptr;
  bool ok = false;
  if (!cq.Next(&tag, &ok) || !ok) return absl::UnavailableError("no answer");
  if (!status.ok()) return absl::UnavailableError(status.error_message());
  return Bytes(response);
}

// One list_services request on the reflection stream; the raw response.
std::string ReflectionListServices(const std::string& address) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::CompletionQueue cq;
  auto stream =
      stub.PrepareCall(&context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &cq);
  void* tag = nullptr;
  bool ok = false;
  auto step = [&] { return cq.Next(&tag, &ok) && ok; };
  stream->StartCall(reinterpret_cast<void*>(1));
  if (!step()) return "";
  // ServerReflectionRequest { list_services: "" } (field 7, a string).
  stream->Write(Buffer(std::string("\x3a\x00", 2)), reinterpret_cast<void*>(2));
  if (!step()) return "";
  grpc::ByteBuffer response;
  stream->Read(&response, reinterpret_cast<void*>(3));
  if (!step()) return "";
  stream->WritesDone(reinterpret_cast<void*>(4));
  step();
  grpc::Status status;
  stream->Finish(&status, reinterpret_cast<void*>(5));
  step();
  return Bytes(response);
}

// The port of "metrics on http://127.0.0.1:PORT/metrics" in the server's log.
int MetricsPort(LocalStack& stack) {
  std::regex line("metrics on http://127\\.0\\.0\\.1:([0-9]+)/metrics");
  std::smatch match;
  std::string log = ReadFile(stack.server()->log_path());
  INFO(log);
  REQUIRE(std::regex_search(log, match, line));
  return std::stoi(match[1]);
}

std::string Scrape(int port) {
  absl::StatusOr<HttpGetResult> got = HttpGet(port, "/metrics");
  REQUIRE(got.ok());
  REQUIRE(got->status_code == 200);
  return got->body;
}

bool Has(const std::string& text, const std::string& line) { return text.find(line + "\n") != std::string::npos; }

TEST_CASE("the server answers gRPC health checks SERVING and lists its services by reflection", "[e2e][ops]") {
  LocalStack stack;
  stack.StartServer();
  absl::StatusOr<std::string> health = HealthCheck(stack.address());
  REQUIRE(health.ok());
  // HealthCheckResponse { status: SERVING (1) }
  CHECK(*health == std::string("\x08\x01", 2));

  const std::string services = ReflectionListServices(stack.address());
  CHECK(services.find("kernelseek.v1.Coordinator") != std::string::npos);
  CHECK(services.find("kernelseek.v1.WorkerHub") != std::string::npos);
  CHECK(services.find("grpc.health.v1.Health") != std::string::npos);
}

TEST_CASE("the metrics endpoint shows the queue gauge, the finished-jobs counter and the workers moving",
          "[e2e][ops]") {
  LocalStack stack;
  stack.StartServer({"--metrics-listen", "127.0.0.1:0"});
  const int port = MetricsPort(stack);
  std::string before = Scrape(port);
  INFO(before);
  CHECK(Has(before, "kseek_jobs{state=\"queued\"} 0"));
  CHECK(Has(before, "kseek_workers_connected 0"));
  CHECK(Has(before, "kseek_sessions_running 0"));
  CHECK(Has(before, "kseek_lease_expiries_total 0"));
  CHECK(before.find("kseek_jobs_finished_total{") == std::string::npos);

  const std::string kernel = stack.dir().File("k.cu");
  WriteFile(kernel, kKernel);
  SubprocessResult queued = stack.Kseek({"compile", kernel, "--arch", "sm_90a", "--no-wait", "--wait-for-worker"});
  INFO(queued.stderr_text);
  REQUIRE(queued.exit_code == 0);
  const std::string id(absl::StripAsciiWhitespace(queued.stdout_text));
  std::string waiting = Scrape(port);
  INFO(waiting);
  CHECK(Has(waiting, "kseek_jobs{state=\"queued\"} 1"));

  stack.StartWorker("cpu-1");
  REQUIRE(WaitFor([&] { return JobJson(stack, id)["state"] == "JOB_STATE_SUCCEEDED"; }, absl::Seconds(90)));
  std::string after = Scrape(port);
  INFO(after);
  CHECK(Has(after, "kseek_jobs{state=\"queued\"} 0"));
  CHECK(Has(after, "kseek_jobs{state=\"leased\"} 0"));
  CHECK(Has(after, "kseek_workers_connected 1"));
  CHECK(Has(after, "kseek_jobs_finished_total{kind=\"compile\",state=\"succeeded\"} 1"));
  CHECK(Has(after, "kseek_job_latency_seconds_count{kind=\"compile\"} 1"));
  CHECK(Has(after, "kseek_job_run_seconds_count{kind=\"compile\"} 1"));
}

TEST_CASE("a server config file is used, flags override it, and a malformed one names FILE:LINE:COL",
          "[e2e][ops][config]") {
  LocalStack stack;
  const std::string config = stack.dir().File("server.textproto");
  // The file's listen is overridden by LocalStack's --listen 127.0.0.1:0;
  // its metrics_listen is used.
  WriteFile(config, "listen: \"127.0.0.1:1\"\nmetrics_listen: \"127.0.0.1:0\"\nlease_timeout: 45\n");
  stack.StartServer({"--config", config});
  const int port = MetricsPort(stack);
  CHECK(Has(Scrape(port), "kseek_jobs{state=\"queued\"} 0"));

  WriteFile(config, "listen: \"127.0.0.1:0\"\nlease_timeout: 45s\n");
  SubprocessResult bad = stack.KseekServer({"--config", config, "--db", stack.dir().File("other.db")});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.stderr_text, Catch::StartsWith("kseek-server: --config: " + config + ":2:"));

  WriteFile(config, "listen: \"127.0.0.1:0\"\nmetrics_port: 9090\n");
  SubprocessResult unknown = stack.KseekServer({"--config", config, "--db", stack.dir().File("other.db")});
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.stderr_text, Catch::Contains(config + ":2:13: ") &&
                                      Catch::Contains("no field named \"metrics_port\""));
  // Nothing was started or created.
  CHECK_FALSE(std::filesystem::exists(stack.dir().File("other.db")));
}

// Each field of `descriptor` (a config schema) must be a flag in `help`:
// the config file sets flags by name.
void CheckEveryFieldIsAFlag(const google::protobuf::Descriptor* descriptor, const std::string& help) {
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const std::string flag = absl::StrCat("--", absl::StrReplaceAll(descriptor->field(i)->name(), {{"_", "-"}}), " ");
    INFO(descriptor->full_name() << " field " << descriptor->field(i)->name());
    CHECK(help.find(flag) != std::string::npos);
  }
}

TEST_CASE("every config field of server and worker is one of their flags", "[e2e][ops][config]") {
  LocalStack stack;
  SubprocessResult server_help = stack.KseekServer({"--help"});
  REQUIRE(server_help.exit_code == 0);
  CheckEveryFieldIsAFlag(kernelseek::v1::ServerConfig::descriptor(), server_help.stdout_text);
  SubprocessSpec spec;
  spec.argv = {BinDir() + "/kseek-worker", "--help"};
  spec.time_limit = absl::Seconds(30);
  absl::StatusOr<SubprocessResult> worker_help = RunSubprocess(spec);
  REQUIRE(worker_help.ok());
  REQUIRE(worker_help->exit_code == 0);
  CheckEveryFieldIsAFlag(kernelseek::v1::WorkerConfig::descriptor(), worker_help->stdout_text);
}

// Runs kseek-worker with `args` and a token, to its exit.
SubprocessResult RunWorker(LocalStack& stack, std::vector<std::string> args) {
  SubprocessSpec spec;
  spec.argv = {BinDir() + "/kseek-worker", "--temp-dir", stack.WorkerTempDir()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.extra_env = {{"KSEEK_WORKER_TOKEN", stack.worker_token()}};
  spec.time_limit = absl::Seconds(60);
  absl::StatusOr<SubprocessResult> result = RunSubprocess(spec);
  REQUIRE(result.ok());
  return *std::move(result);
}

TEST_CASE("a GPU-pool worker that sees no GPU refuses to start, saying why", "[e2e][ops]") {
  LocalStack stack;
  stack.StartServer();
  // An nvidia-smi that finds no device, as on a node whose driver is not
  // loaded or a container without /dev/nvidia*.
  const std::string smi = stack.dir().File("nvidia-smi");
  WriteFile(smi, "#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.' >&2\n"
                 "exit 9\n");
  REQUIRE(chmod(smi.c_str(), 0755) == 0);

  SubprocessResult required = RunWorker(stack, {"--server", stack.address(), "--name", "gpu-pool-1", "--nvidia-smi",
                                                smi, "--require-gpu"});
  CHECK(required.exit_code == 2);
  CHECK_THAT(required.stderr_text, Catch::Contains("--require-gpu but this worker sees no usable GPU") &&
                                       Catch::Contains("no GPU: "));

  SubprocessResult indexed =
      RunWorker(stack, {"--server", stack.address(), "--name", "gpu-pool-2", "--nvidia-smi", smi, "--gpu", "3"});
  CHECK(indexed.exit_code == 2);
  CHECK_THAT(indexed.stderr_text, Catch::Contains("--gpu 3 but this worker sees no usable GPU"));

  // The same from a config file.
  const std::string config = stack.dir().File("worker.textproto");
  WriteFile(config, absl::StrCat("server: \"", stack.address(), "\"\nname: \"gpu-pool-3\"\nnvidia_smi: \"", smi,
                                 "\"\nrequire_gpu: true\n"));
  SubprocessResult from_file = RunWorker(stack, {"--config", config});
  CHECK(from_file.exit_code == 2);
  CHECK_THAT(from_file.stderr_text, Catch::Contains("--require-gpu but this worker sees no usable GPU"));
}

TEST_CASE("a worker config file with a typo names FILE:LINE:COL and the worker does not start", "[e2e][ops][config]") {
  LocalStack stack;
  const std::string config = stack.dir().File("worker.textproto");
  WriteFile(config, "server: \"127.0.0.1:7070\"\nrequire_gpu: yes please\n");
  SubprocessResult bad = RunWorker(stack, {"--config", config});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.stderr_text, Catch::StartsWith("kseek-worker: --config: " + config + ":2:"));
}

}  // namespace
}  // namespace kseek::testing
