// Dispatch benchmark: prints how long the server takes to hand a trivial job
// to a worker and get its result back, and how many jobs a second it
// schedules with many workers. Everything runs in this process over real gRPC
// on loopback, with a real SQLite file; the worker's executor returns at once,
// so what is measured is the system's overhead, not a job.
//
//   kseek-dispatch-bench [--latency-jobs N] [--workers N] [--jobs N]
#include <google/protobuf/util/time_util.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/clock.h"
#include "common/flags.h"
#include "common/protocol.h"
#include "common/version.h"
#include "problem/problem_digest.h"
#include "server/auth.h"
#include "server/coordinator_service.h"
#include "server/job_queue.h"
#include "server/job_store.h"
#include "server/store_file.h"
#include "server/token_store.h"
#include "server/worker_hub_service.h"
#include "tests/testing/temp_dir.h"
#include "worker/worker_loop.h"

namespace kseek {
namespace {

using kernelseek::v1::JobResult;
using kernelseek::v1::JobSpec;

// Returns a result at once and counts how often each job (by its source) ran.
class TrivialExecutor final : public JobExecutor {
 public:
  absl::StatusOr<JobResult> Execute(const JobSpec& spec, const StageReporter&) override {
    absl::MutexLock lock(&mu_);
    ++runs_[spec.source()];
    JobResult result;
    result.mutable_compile()->set_success(true);
    return result;
  }
  std::map<std::string, int> runs() {
    absl::MutexLock lock(&mu_);
    return runs_;
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, int> runs_ ABSL_GUARDED_BY(mu_);
};

JobSpec TrivialSpec(int n) {
  JobSpec spec;
  spec.set_kind(kernelseek::v1::JOB_KIND_COMPILE);
  spec.set_source_name("trivial.cu");
  spec.set_source(absl::StrCat("// job ", n, "\n__global__ void k() {}\n"));
  spec.mutable_compile()->set_arch("sm_90a");
  return spec;
}

struct Stack {
  testing::TempDir dir;
  RealClock clock;
  std::unique_ptr<StoreFile> file = *StoreFile::Open(dir.File("bench.db"));
  std::unique_ptr<JobStore> job_store = *JobStore::Open(*file);
  std::unique_ptr<TokenStore> token_store = *TokenStore::Open(*file);
  ProblemCatalog problems;  // trivial compile jobs need none
  JobQueue queue{job_store.get(), &clock, &problems, JobQueueOptions{}};
  Authenticator auth{token_store.get(), &clock};
  CoordinatorService coordinator{&queue, &auth, &problems};
  WorkerHubService hub{&queue, &auth};
  std::unique_ptr<grpc::Server> server;
  std::string address;
  std::string user_token = *NewToken(TokenKind::kUser);
  std::string worker_token = *NewToken(TokenKind::kWorker);

  Stack() {
    token_store
        ->AddToken({.kind = TokenKind::kUser, .name = "bench", .team = kDefaultTeam, .role = Role::kMember,
                    .created_at = absl::Now()},
                   Sha256Hex(user_token))
        .IgnoreError();
    token_store
        ->AddToken({.kind = TokenKind::kWorker, .name = "bench", .created_at = absl::Now()}, Sha256Hex(worker_token))
        .IgnoreError();
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&coordinator);
    builder.RegisterService(&hub);
    AddServerProtocolInterceptor(&builder, kProtocolVersion);
    server = builder.BuildAndStart();
    address = absl::StrCat("127.0.0.1:", port);
  }
  ~Stack() {
    queue.Shutdown();
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  }
};

struct Workers {
  std::vector<std::unique_ptr<kernelseek::v1::WorkerHub::Stub>> stubs;
  std::vector<std::unique_ptr<WorkerLoop>> loops;
  std::vector<std::thread> threads;

  Workers(const Stack& stack, JobExecutor* executor, int count) {
    for (int i = 0; i < count; ++i) {
      grpc::ChannelArguments args;
      args.SetInt("grpc.use_local_subchannel_pool", 1);  // one connection per simulated worker
      stubs.push_back(kernelseek::v1::WorkerHub::NewStub(
          CreateProtocolChannel(stack.address, grpc::InsecureChannelCredentials(), args, kProtocolVersion,
                                "kseek-worker")));
      WorkerLoopOptions options;
      options.name = absl::StrCat("sim-", i);
      options.token = stack.worker_token;
      kernelseek::v1::Property compile;
      compile.set_key("compile");
      compile.set_value("sm_90a");
      options.capabilities = {compile};
      loops.push_back(std::make_unique<WorkerLoop>(stubs.back().get(), executor, options));
    }
    for (auto& loop : loops) threads.emplace_back([l = loop.get()] { l->Run().IgnoreError(); });
  }
  ~Workers() {
    for (auto& loop : loops) loop->Stop();
    for (auto& t : threads) t.join();
  }
};

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

void Latency(int jobs) {
  Stack stack;
  TrivialExecutor executor;
  Workers workers(stack, &executor, 1);
  auto client = kernelseek::v1::Coordinator::NewStub(
      CreateProtocolChannel(stack.address, grpc::InsecureChannelCredentials(), grpc::ChannelArguments(),
                            kProtocolVersion, "kseek"));
  std::vector<double> ms;
  for (int i = 0; i < jobs + 10; ++i) {
    absl::Time start = absl::Now();
    grpc::ClientContext submit_context;
    submit_context.AddMetadata("authorization", "Bearer " + stack.user_token);
    kernelseek::v1::SubmitJobRequest request;
    *request.mutable_spec() = TrivialSpec(i);
    // The worker's first call may come after the first submit.
    request.set_wait_for_worker(true);
    kernelseek::v1::SubmitJobResponse response;
    if (!client->SubmitJob(&submit_context, request, &response).ok()) {
      std::cerr << "submit failed\n";
      return;
    }
    grpc::ClientContext watch_context;
    watch_context.AddMetadata("authorization", "Bearer " + stack.user_token);
    kernelseek::v1::WatchJobRequest watch;
    watch.set_job_id(response.job_id());
    auto reader = client->WatchJob(&watch_context, watch);
    kernelseek::v1::Job job;
    while (reader->Read(&job)) {
    }
    reader->Finish().IgnoreError();
    if (job.state() != kernelseek::v1::JOB_STATE_SUCCEEDED) {
      std::cerr << "job " << response.job_id() << " ended in state " << job.state() << "\n";
      return;
    }
    if (i >= 10) ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));  // first 10 warm up
  }
  std::printf("dispatch overhead, submit -> worker -> result streamed back (%d sequential trivial jobs, 1 worker)\n",
              jobs);
  std::printf("  p50 %.2f ms   p90 %.2f ms   p99 %.2f ms   max %.2f ms\n", Percentile(ms, 0.5), Percentile(ms, 0.9),
              Percentile(ms, 0.99), Percentile(ms, 1.0));
}

void Throughput(int worker_count, int jobs) {
  Stack stack;
  TrivialExecutor executor;
  absl::Time submit_start = absl::Now();
  for (int i = 0; i < jobs; ++i) {
    // Queued before the workers start, as a burst of submits finds them.
    if (!stack.queue.Submit("bench", kDefaultTeam, TrivialSpec(i), SubmitOptions{.wait_for_worker = true}).ok()) {
      std::cerr << "submit failed\n";
      return;
    }
  }
  double submit_s = absl::ToDoubleSeconds(absl::Now() - submit_start);
  absl::Time start = absl::Now();
  {
    Workers workers(stack, &executor, worker_count);
    while (true) {
      auto unfinished = stack.job_store->LoadUnfinishedJobs();
      if (unfinished.ok() && unfinished->empty()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  double drain_s = absl::ToDoubleSeconds(absl::Now() - start);
  auto runs = executor.runs();
  int duplicated = 0;
  for (const auto& [source, count] : runs) duplicated += count > 1;
  auto listed = stack.job_store->ListJobs({.team = kDefaultTeam, .limit = jobs + 1});
  int succeeded = 0;
  if (listed.ok()) {
    for (const auto& job : *listed) succeeded += job.state() == kernelseek::v1::JOB_STATE_SUCCEEDED;
  }
  std::printf("scheduling throughput: %d workers (own gRPC channel each) draining %d queued jobs\n", worker_count,
              jobs);
  std::printf("  submitted (stored) in %.2f s = %.0f jobs/s\n", submit_s, jobs / submit_s);
  std::printf("  drained in %.2f s = %.0f jobs/s\n", drain_s, jobs / drain_s);
  std::printf("  jobs succeeded %d of %d; ran once %zu; ran more than once %d; never ran %d\n", succeeded, jobs,
              runs.size() - duplicated, duplicated, jobs - static_cast<int>(runs.size()));
}

int Main(int argc, char** argv) {
  int64_t latency_jobs = 1000;
  int64_t workers = 64;
  int64_t jobs = 10000;
  FlagSet flags("kseek-dispatch-bench", "[flags]",
                "Measures dispatch overhead and scheduling throughput of kseek-server\n"
                "in one process over loopback gRPC and a real SQLite file.");
  flags.Int("latency-jobs", &latency_jobs, "sequential trivial jobs for the overhead measurement");
  flags.Int("workers", &workers, "simulated workers for the throughput measurement");
  flags.Int("jobs", &jobs, "queued jobs for the throughput measurement");
  if (std::optional<int> done =
          ParseCommandFlags(flags, std::vector<std::string>(argv + 1, argv + argc), "kseek-dispatch-bench")) {
    return *done;
  }
  Latency(static_cast<int>(latency_jobs));
  Throughput(static_cast<int>(workers), static_cast<int>(jobs));
  return 0;
}

}  // namespace
}  // namespace kseek

int main(int argc, char** argv) { return kseek::Main(argc, argv); }
