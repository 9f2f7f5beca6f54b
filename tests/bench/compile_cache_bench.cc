// Compile cache benchmark: the wall time of the builds one kernel version's
// jobs make — a compile job (cubin), then the verify, bench and profile jobs
// (each builds the shared object kseek-runner loads) — with the real nvcc and
// cuobjdump on this machine, three ways:
//   no cache        every job compiles (what each job did before the cache)
//   worker cache    one worker with an empty --compile-cache-dir
//   from server     a second worker with an empty disk whose server holds
//                   the first worker's uploads (real gRPC on loopback, real
//                   SQLite, WorkerHub's Get/PutCompiledArtifact)
// Only the builds are timed: the runner and ncu need a GPU, and they take as
// long with or without the cache. Prints a table (docs/compile_cache.md).
//
//   kseek-compile-cache-bench [--source kernels/attention_fwd/sm90.cu] [--arch sm_90a]
//                             [--nvcc /usr/local/cuda/bin/nvcc] [--cuobjdump /usr/local/cuda/bin/cuobjdump]
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/clock.h"
#include "common/flags.h"
#include "common/protocol.h"
#include "common/version.h"
#include "problem/problem_digest.h"
#include "server/auth.h"
#include "server/compile_artifact_cache.h"
#include "server/job_queue.h"
#include "server/compile_artifact_store.h"
#include "server/job_store.h"
#include "server/store_file.h"
#include "server/token_store.h"
#include "server/worker_hub_service.h"
#include "tests/testing/temp_dir.h"
#include "worker/compile_cache.h"
#include "worker/compiler.h"
#include "worker/hub_compile_cache.h"

namespace kseek {
namespace {

using kernelseek::v1::JobSpec;

// A server with only what the compile cache needs: the stores, worker auth,
// WorkerHub with the artifact cache.
struct Server {
  testing::TempDir dir;
  RealClock clock;
  std::unique_ptr<StoreFile> file = *StoreFile::Open(dir.File("bench.db"));
  std::unique_ptr<JobStore> job_store = *JobStore::Open(*file);
  std::unique_ptr<TokenStore> token_store = *TokenStore::Open(*file);
  std::unique_ptr<CompileArtifactStore> artifact_store = *CompileArtifactStore::Open(*file);
  ProblemCatalog problems;
  JobQueue queue{job_store.get(), &clock, &problems, JobQueueOptions{}};
  Authenticator auth{token_store.get(), &clock};
  CompileArtifactCache artifacts{artifact_store.get(), &clock, {}};
  WorkerHubService hub{&queue, &auth, &artifacts};
  std::unique_ptr<grpc::Server> server;
  std::string worker_token = *NewToken(TokenKind::kWorker);
  std::unique_ptr<kernelseek::v1::WorkerHub::Stub> stub;
  Server() {
    token_store
        ->AddToken({.kind = TokenKind::kWorker, .name = "bench", .created_at = absl::Now()}, Sha256Hex(worker_token))
        .IgnoreError();
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&hub);
    builder.SetMaxReceiveMessageSize(16 << 20);
    AddServerProtocolInterceptor(&builder, kProtocolVersion);
    server = builder.BuildAndStart();
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(16 << 20);
    stub = kernelseek::v1::WorkerHub::NewStub(CreateProtocolChannel(
        absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials(), args, kProtocolVersion, "kseek-worker"));
  }
  ~Server() {
    queue.Shutdown();
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  }
};

struct Step {
  std::string job;
  double seconds = 0;
  std::string cache;
};

// The builds of one kernel version's compile, verify, bench and profile
// jobs, in that order; empty on a failure (printed).
std::vector<Step> RunSequence(const CompilerConfig& config, const JobSpec& source, const std::string& out_dir) {
  Compiler compiler(config);
  std::vector<Step> steps;
  for (const char* job : {"compile", "verify", "bench", "profile"}) {
    JobSpec spec = source;
    const bool compile = std::string(job) == "compile";
    spec.set_kind(compile ? kernelseek::v1::JOB_KIND_COMPILE : kernelseek::v1::JOB_KIND_VERIFY);
    const absl::Time start = absl::Now();
    absl::StatusOr<kernelseek::v1::CompileResult> r =
        compile ? compiler.Compile(spec) : compiler.BuildSharedObject(spec, absl::StrCat(out_dir, "/", job, ".so"));
    const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
    if (!r.ok() || !r->success()) {
      std::cerr << job << " build failed: " << (r.ok() ? r->log() : std::string(r.status().message())) << "\n";
      return {};
    }
    steps.push_back({job, seconds, r->cache().empty() ? "-" : r->cache()});
  }
  return steps;
}

double Total(const std::vector<Step>& steps) {
  double total = 0;
  for (const Step& s : steps) total += s.seconds;
  return total;
}

int Main(int argc, char** argv) {
  std::string source_path = "kernels/attention_fwd/sm90.cu";
  std::string arch = "sm_90a";
  std::string nvcc = "/usr/local/cuda/bin/nvcc";
  std::string cuobjdump = "/usr/local/cuda/bin/cuobjdump";
  FlagSet flags("kseek-compile-cache-bench", "[--source FILE.cu] [--arch ARCH] [--nvcc PATH] [--cuobjdump PATH]",
                "Times the builds of one kernel's compile, verify, bench and profile jobs with the real\n"
                "nvcc: without the compile cache, with one worker's cache, and on a second worker that\n"
                "fetches the first one's builds from a server (in this process, gRPC on loopback).");
  flags.String("source", &source_path, "kernel source to build");
  flags.String("arch", &arch, "architecture to build for");
  flags.String("nvcc", &nvcc, "nvcc to build with");
  flags.String("cuobjdump", &cuobjdump, "cuobjdump for the SASS summary (empty: none)");
  if (std::optional<int> exit_code =
          ParseCommandFlags(flags, std::vector<std::string>(argv + 1, argv + argc), "kseek-compile-cache-bench")) {
    return *exit_code;
  }
  std::ifstream in(source_path, std::ios::binary);
  if (!in) {
    std::cerr << "cannot read " << source_path << "\n";
    return 1;
  }
  std::ostringstream text;
  text << in.rdbuf();
  JobSpec spec;
  spec.set_source_name(source_path.substr(source_path.find_last_of('/') + 1));
  spec.set_source(text.str());
  spec.mutable_compile()->set_arch(arch);

  testing::TempDir dir;
  CompilerConfig config;
  config.nvcc_path = nvcc;
  config.cuobjdump_path = cuobjdump;
  config.supported_archs = {"sm_90", "sm_90a", "sm_100", "sm_100a"};
  config.temp_dir = dir.path();
  config.time_limit = absl::Seconds(600);

  Server server;
  HubCompileCache remote_a("bench-a", server.worker_token);
  HubCompileCache remote_b("bench-b", server.worker_token);
  remote_a.Connect(server.stub.get());
  remote_b.Connect(server.stub.get());
  auto cache_a = CompileCache::Open({.dir = dir.File("cache-a"), .max_bytes = 1 << 30, .remote = &remote_a});
  auto cache_b = CompileCache::Open({.dir = dir.File("cache-b"), .max_bytes = 1 << 30, .remote = &remote_b});
  if (!cache_a.ok() || !cache_b.ok()) {
    std::cerr << "cannot make the cache folders\n";
    return 1;
  }

  // Each job's shared object in a folder of its own, as each job's folder is.
  std::vector<std::pair<std::string, std::vector<Step>>> runs;
  for (const char* name : {"no cache", "worker cache", "from server"}) {
    config.cache = std::string(name) == "no cache" ? nullptr : std::string(name) == "worker cache" ? cache_a->get()
                                                                                                  : cache_b->get();
    const std::string out = dir.File(absl::StrCat("out-", runs.size()));
    std::filesystem::create_directories(out);
    runs.emplace_back(name, RunSequence(config, spec, out));
  }
  for (const auto& [name, steps] : runs) {
    if (steps.empty()) return 1;
  }

  std::printf("builds of %s for %s, one kernel version's jobs in order (seconds; %ld CPU cores)\n",
              spec.source_name().c_str(), arch.c_str(), sysconf(_SC_NPROCESSORS_ONLN));
  std::printf("| job     | no cache | worker cache                  | from server                               |\n");
  std::printf("| ------- | -------- | ----------------------------- | ----------------------------------------- |\n");
  for (size_t i = 0; i < runs[0].second.size(); ++i) {
    std::printf("| %-7s | %8.2f |", runs[0].second[i].job.c_str(), runs[0].second[i].seconds);
    std::printf(" %8.2f %-20s |", runs[1].second[i].seconds, runs[1].second[i].cache.c_str());
    std::printf(" %8.2f %-32s |\n", runs[2].second[i].seconds, runs[2].second[i].cache.c_str());
  }
  std::printf("| total   | %8.2f | %8.2f %-20s | %8.2f %-32s |\n", Total(runs[0].second), Total(runs[1].second), "",
              Total(runs[2].second), "");
  std::printf("speedup of the sequence: worker cache %.2fx, from server %.2fx\n",
              Total(runs[0].second) / Total(runs[1].second), Total(runs[0].second) / Total(runs[2].second));
  return 0;
}

}  // namespace
}  // namespace kseek

int main(int argc, char** argv) { return kseek::Main(argc, argv); }
