// kseek-worker: the daemon on a GPU or compile node. Dials the server,
// advertises what it can do, and runs the jobs it is given.
//
//   kseek-worker --server HOST:PORT [--token T | $KSEEK_WORKER_TOKEN]
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <iostream>
#include <string>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "common/config_file.h"
#include "common/flags.h"
#include "common/log.h"
#include "common/protocol.h"
#include "common/tls.h"
#include "common/version.h"
#include "proto/config.pb.h"
#include "worker/capabilities.h"
#include "worker/compile_cache.h"
#include "worker/compiler.h"
#include "worker/hub_compile_cache.h"
#include "worker/job_executor.h"
#include "worker/run_executor.h"
#include "worker/sandbox.h"
#include "worker/supervisor.h"
#include "worker/wheel_site.h"
#include "worker/worker_loop.h"

namespace kseek {
namespace {

std::string HostName() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return host;
}

std::string DefaultName() { return absl::StrCat(HostName(), "-", getpid()); }

std::string ExecutableDir() {
  std::error_code error;
  return std::filesystem::read_symlink("/proc/self/exe", error).parent_path().string();
}

// The first of `candidates` that is a directory (canonical), else the first.
std::string FirstDir(const std::vector<std::string>& candidates) {
  std::error_code error;
  for (const std::string& dir : candidates) {
    if (std::filesystem::is_directory(dir, error)) return std::filesystem::weakly_canonical(dir).string();
  }
  return candidates.front();
}

// $XDG_CACHE_HOME/kseek/baselines, or ~/.cache/kseek/baselines.
std::string DefaultCacheDir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg) return absl::StrCat(xdg, "/kseek/baselines");
  if (const char* home = std::getenv("HOME"); home != nullptr && *home) return absl::StrCat(home, "/.cache/kseek/baselines");
  return "/tmp/kseek-baselines";
}

// A fresh key for hidden scenario seeds: only this worker process knows it,
// so every run draws new hidden inputs.
std::string RandomHexKey() {
  unsigned char bytes[32] = {};
  FILE* random = fopen("/dev/urandom", "rb");
  size_t got = random != nullptr ? fread(bytes, 1, sizeof(bytes), random) : 0;
  if (random != nullptr) fclose(random);
  // Without /dev/urandom the key falls back to time and pid: still unknown
  // to a kernel's author ahead of the run.
  if (got != sizeof(bytes)) {
    uint64_t mix = static_cast<uint64_t>(absl::ToUnixNanos(absl::Now())) ^ (static_cast<uint64_t>(getpid()) << 32);
    for (size_t i = 0; i < sizeof(bytes); ++i) bytes[i] = static_cast<unsigned char>(mix >> ((i % 8) * 8)) ^ i;
  }
  std::string hex;
  for (unsigned char b : bytes) absl::StrAppend(&hex, absl::Hex(b, absl::kZeroPad2));
  return hex;
}

// TEMP/kseek-worker-NAME, made (0711: the sandbox's user must pass through
// to its job folder) or emptied of what an earlier run of this worker left.
// The folder is this process's alone: it holds an flock on FOLDER.lock for
// as long as it lives (its supervised children share it), so a second
// worker of the same name and temp folder on this host, which would empty
// the folder under the first one's running jobs, is refused instead.
absl::StatusOr<std::string> PrepareJobsDir(const std::string& temp_dir, const std::string& name) {
  std::string safe;
  for (char c : name) safe.push_back(absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' ? c : '_');
  const std::filesystem::path dir = std::filesystem::path(temp_dir) / absl::StrCat("kseek-worker-", safe);
  const std::string lock_path = absl::StrCat(dir.string(), ".lock");
  const int lock = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock < 0) {
    return absl::FailedPreconditionError(absl::StrCat("cannot open ", lock_path, ": ", std::strerror(errno)));
  }
  if (flock(lock, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    close(lock);
    if (error == EWOULDBLOCK) {
      return absl::AlreadyExistsError(absl::StrCat(
          "another kseek-worker named ", name, " runs on this host (it holds ", lock_path,
          "); start this one with another --name, or another --temp-dir"));
    }
    return absl::FailedPreconditionError(absl::StrCat("cannot lock ", lock_path, ": ", std::strerror(error)));
  }
  // `lock` stays open, and so locked, until this process ends.
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return absl::FailedPreconditionError(absl::StrCat("cannot make ", dir.string(), ": ", error.message()));
  int stale = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    std::filesystem::remove_all(entry.path(), error);
    if (error) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot clear stale job folder ", entry.path().string(), ": ", error.message()));
    }
    ++stale;
  }
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all | std::filesystem::perms::group_exec |
                                        std::filesystem::perms::others_exec, error);
  if (stale > 0) Log(absl::StrCat("removed ", stale, " job folder(s) left by an earlier run in ", dir.string()));
  return dir.string();
}

// The first of `candidates` that is an executable file, or "".
std::string FindTool(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) dirs = absl::StrSplit(path, ':');
  dirs.push_back("/usr/local/cuda/bin");
  for (const std::string& dir : dirs) {
    std::string candidate = absl::StrCat(dir, "/", name);
    if (!dir.empty() && access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// Serves `server` until a signal of `signals` or a permanent rejection.
// The credentials are made here, in the supervised child: no gRPC object
// exists before the supervisor forks.
int RunLoop(const std::string& server, const ClientTlsConfig& tls, int protocol_version, sigset_t signals,
            JobExecutor* executor, HubCompileCache* shared_builds, const WorkerLoopOptions& options) {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials = MakeChannelCredentials(tls, server);
  if (!credentials.ok()) {
    std::cerr << "kseek-worker: " << credentials.status().message() << "\n";
    return 2;
  }
  grpc::ChannelArguments channel_args;
  channel_args.SetMaxReceiveMessageSize(16 << 20);
  auto channel = CreateProtocolChannel(server, *credentials, channel_args, protocol_version, "kseek-worker");
  auto stub = kernelseek::v1::WorkerHub::NewStub(channel);
  shared_builds->Connect(stub.get());
  WorkerLoop loop(stub.get(), executor, options);
  std::thread signal_thread([&loop, signals] {
    int signal_number = 0;
    sigwait(&signals, &signal_number);
    Log(absl::StrCat("signal ", signal_number, ": stopping after the current sync"));
    loop.Stop();
  });
  signal_thread.detach();
  absl::Status status = loop.Run();
  shared_builds->Disconnect();
  if (!status.ok()) {
    std::cerr << "kseek-worker: " << status.message() << "\n";
    return 1;
  }
  return 0;
}

int Main(int argc, char** argv) {
  std::string server = "127.0.0.1:7070";
  std::string token;
  std::string name = DefaultName();
  std::string nvcc = FindTool("nvcc");
  std::string cuobjdump = FindTool("cuobjdump");
  const char* path_env = std::getenv("PATH");
  std::string ncu = FindNcu(path_env != nullptr ? path_env : "");
  std::string temp_dir = "/tmp";
  int64_t compile_timeout_s = 120;
  const std::string exe_dir = ExecutableDir();
  std::string runner = absl::StrCat(exe_dir, "/kseek-runner");
  std::string scenarios_dir = FirstDir({exe_dir + "/../share/scenarios", exe_dir + "/../../scenarios"});
  std::string baselines_dir =
      FirstDir({exe_dir + "/../share/baselines", exe_dir + "/../../worker/baselines"});
  std::string python = "python3";
  // A bundle's wheels (deploy/make_bundle.sh copies them to share/wheels).
  std::string python_wheels = std::filesystem::is_directory(exe_dir + "/../share/wheels")
                                  ? FirstDir({exe_dir + "/../share/wheels"})
                                  : "";
  double gpu_mem_cap_gb = 0;
  std::string baseline_cache = DefaultCacheDir();
  std::string compile_cache_dir = (std::filesystem::path(DefaultCacheDir()).parent_path() / "compile").string();
  int64_t compile_cache_max_bytes = int64_t{2} << 30;
  int64_t bench_chunk = 12;
  std::string bwrap = FindTool("bwrap");
  int64_t gpu_index = -1;
  bool require_gpu = false;
  std::string nvidia_smi = "nvidia-smi";
  std::string config_path;
  bool no_sandbox = false;
  int64_t sandbox_uid = -1;
  ClientTlsConfig tls;
  int64_t protocol_version = kProtocolVersion;
  bool version = false;
  FlagSet flags("kseek-worker", "--server HOST:PORT [--tls-ca FILE [--tls-cert FILE --tls-key FILE]] [flags]\n"
                "       kseek-worker --config FILE [flags]\n"
                "       kseek-worker --version",
                "Runs KernelSeek jobs for a server. Dials out (so it works behind NAT),\n"
                "advertises nvcc's architectures and any visible GPU, and survives every\n"
                "failure of a job. Stops on SIGTERM or SIGINT.\n"
                "\n"
                "Talks TLS to the server, verified against --tls-ca; plaintext only to a\n"
                "loopback server, or with --insecure-plaintext. A server started with\n"
                "--worker-client-ca wants this worker's certificate: --tls-cert and --tls-key.\n"
                "Every call carries this worker's protocol version; a server that speaks\n"
                "another refuses it, saying which side to upgrade (--version prints both).\n"
                "\n"
                "--config FILE sets these flags from a protobuf text file (schema WorkerConfig\n"
                "in proto/config.proto, fields named like the flags: gpu: 0); the environment\n"
                "and flags on the command line override it. The token stays out of the file.\n"
                "See deploy/config/worker.textproto.\n"
                "\n"
                "A worker of a GPU pool (--require-gpu, or --gpu N) that finds no GPU at start\n"
                "exits with an error instead of serving compile jobs only.");
  flags.Bool("version", &version, "print the version and protocol version, and exit");
  flags.String("config", &config_path, "config file (protobuf text format, schema WorkerConfig in proto/config.proto)");
  flags.String("server", &server, "address of kseek-server");
  flags.String("tls-ca", &tls.ca_file, "CA certificate (PEM) that signed the server's certificate");
  flags.String("tls-cert", &tls.cert_file, "this worker's client certificate (PEM), for --worker-client-ca servers");
  flags.String("tls-key", &tls.key_file, "the private key (PEM) of --tls-cert");
  flags.Bool("insecure-plaintext", &tls.insecure_plaintext,
             "talk plaintext to a server that is not on loopback (the token and users' kernels are readable "
             "on the network)");
  // Test-only: the protocol version this worker claims, so that an e2e test
  // can show the server refusing a worker of another version.
  flags.Int("protocol-version-for-test", &protocol_version, "test only: protocol version to claim");
  flags.Hide("protocol-version-for-test");
  flags.String("token", &token, "worker token from `kseek-server token create --worker NAME`", "KSEEK_WORKER_TOKEN");
  flags.String("name", &name, "name shown in `kseek workers`; unique per worker process");
  flags.String("nvcc", &nvcc, "nvcc to compile with (empty: no compile capability)");
  flags.String("cuobjdump", &cuobjdump, "cuobjdump for SASS summaries (empty: none)");
  flags.String("ncu", &ncu,
               "Nsight Compute CLI for profile jobs (default: PATH, /usr/local/cuda/bin, "
               "/opt/nvidia/nsight-compute/*; empty: no profiling)");
  flags.String("temp-dir", &temp_dir, "where per-job private directories are made");
  flags.Int("compile-timeout", &compile_timeout_s, "seconds one nvcc run may take");
  flags.String("runner", &runner, "kseek-runner for verify and bench jobs");
  flags.String("scenarios", &scenarios_dir, "folder of problems (PROBLEM/problem.textproto)");
  flags.String("baselines", &baselines_dir, "folder of baseline programs (PROBLEM_baseline.py)");
  flags.String("python", &python, "Python with PyTorch, for the baseline programs");
  flags.String("baseline-cache", &baseline_cache, "where measured baseline timings are kept (empty: nowhere)");
  flags.String("compile-cache-dir", &compile_cache_dir,
               "where builds are kept by the key of source, flags, nvcc version and arch, so that the verify, "
               "bench and profile of one kernel compile it once (empty: no cache)");
  flags.Int("compile-cache-max-bytes", &compile_cache_max_bytes,
            "size of --compile-cache-dir; the least recently used builds go first (0: no cache)");
  flags.String("python-wheels", &python_wheels,
               "folder of Python wheels (fa3-fwd, flash-attn-4, ...) installed once into a site folder "
               "beside the baseline cache and put on the baseline programs' PYTHONPATH (default: the "
               "bundle's share/wheels; empty: none)");
  flags.Double("gpu-mem-cap-gb", &gpu_mem_cap_gb, "GPU memory a runner may allocate (0: no cap)");
  flags.Int("bench-chunk", &bench_chunk, "scenarios per runner process in a bench, alternating with the baseline");
  flags.Int("gpu", &gpu_index,
            "on a node of several GPUs, the one GPU this worker serves (run one worker per GPU):\n"
            "sets CUDA_VISIBLE_DEVICES for its jobs, gives them only /dev/nvidiaN, and names\n"
            "the worker HOST-gpuN unless --name says otherwise");
  flags.Bool("require-gpu", &require_gpu,
             "this worker is for GPU jobs: exit with an error at start when nvidia-smi shows no GPU\n"
             "(implied by --gpu)");
  flags.String("nvidia-smi", &nvidia_smi, "nvidia-smi, which finds the GPU (empty: no GPU detection)");
  flags.String("bwrap", &bwrap,
               "bubblewrap, which every nvcc, cuobjdump, kseek-runner and ncu run of a job is\n"
               "sandboxed in (job folder, toolchain and GPU only; no network)");
  flags.Int("sandbox-uid", &sandbox_uid,
            "the user (and group) jobs' programs run as under a root worker (default: nobody,\n"
            "65534). The process limit counts all of a user's processes, so on a node of several\n"
            "workers give each its own, e.g. 61184+N for --gpu N (systemd's dynamic-user range)");
  flags.Bool("no-sandbox", &no_sandbox,
             "run jobs' programs without bubblewrap (limits and a clean environment\n"
             "only): for a developer's machine, never for a shared worker");
  kernelseek::v1::WorkerConfig config;
  if (std::optional<int> done = ParseCommandFlagsWithConfig(flags, std::vector<std::string>(argv + 1, argv + argc),
                                                            "kseek-worker", &config)) {
    return *done;
  }
  if (version) {
    std::cout << VersionLine("kseek-worker") << "\n";
    return 0;
  }
  if (token.empty()) {
    std::cerr << "kseek-worker: no token: pass --token or set KSEEK_WORKER_TOKEN "
                 "(create one with `kseek-server token create --db PATH --worker NAME`)\n";
    return 2;
  }

  if (sandbox_uid != -1 && (sandbox_uid < 1 || sandbox_uid > 4294967294)) {
    std::cerr << "kseek-worker: --sandbox-uid " << sandbox_uid
              << " is not an unprivileged user id (1 to 4294967294)\n";
    return 2;
  }
  if (sandbox_uid > 0 && geteuid() != 0) {
    std::cerr << "kseek-worker: --sandbox-uid needs a root worker (jobs run as this worker's own user otherwise)\n";
    return 2;
  }
  if (gpu_index >= 0) {
    setenv("CUDA_VISIBLE_DEVICES", absl::StrCat(gpu_index).c_str(), 1);
    if (name == DefaultName()) name = absl::StrCat(HostName(), "-gpu", gpu_index);
  }
  if (absl::StatusOr<HostPort> address = ParseHostPort("server", server, /*allow_port_zero=*/false); !address.ok()) {
    std::cerr << "kseek-worker: " << address.status().message() << "\n";
    return 2;
  }
  // Read once; no child (the baseline program is not sandboxed) inherits it.
  unsetenv("KSEEK_WORKER_TOKEN");
  if (!no_sandbox && bwrap.empty()) {
    std::cerr << "kseek-worker: no bubblewrap (bwrap) found: jobs run users' code and must be sandboxed. "
                 "Install it (apt-get install bubblewrap) or pass --bwrap PATH; --no-sandbox only on a "
                 "developer's machine\n";
    return 2;
  }
  // This worker's own folder for job folders, emptied at start: what a
  // killed worker left there (users' sources among it) goes.
  absl::StatusOr<std::string> jobs_dir = PrepareJobsDir(temp_dir, name);
  if (!jobs_dir.ok()) {
    std::cerr << "kseek-worker: " << jobs_dir.status().message() << "\n";
    return 1;
  }

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  std::string python_path;
  if (!python_wheels.empty()) {
    absl::StatusOr<std::string> site = PrepareWheelSite(
        {.python = python,
         .wheels_dir = python_wheels,
         .cache_dir = (std::filesystem::path(DefaultCacheDir()).parent_path() / "python").string()});
    if (site.ok()) {
      python_path = *site;
      Log(absl::StrCat("baseline wheels from ", python_wheels, " in ", python_path));
    } else {
      Log(absl::StrCat("baseline wheels not used: ", site.status().message()));
    }
  }

  CapabilityProbeConfig probe;
  probe.nvcc_path = nvcc;
  probe.ncu_path = ncu;
  probe.gpu_index = static_cast<int>(gpu_index);
  probe.nvidia_smi_path = nvidia_smi;
  probe.baseline_probes = BaselineProbeArgvs(python, baselines_dir);
  if (!python_path.empty()) probe.baseline_probe_env = {PythonPathEnv(python_path)};
  DetectedCapabilities detected = DetectCapabilities(probe);
  if (!detected.nvcc_note.empty()) Log(detected.nvcc_note);
  if (!detected.gpu_note.empty()) Log(detected.gpu_note);
  if (!detected.ncu_note.empty()) Log(detected.ncu_note);
  if (!detected.baselines_note.empty()) Log(detected.baselines_note);
  if (cuobjdump.empty()) Log("no cuobjdump found: compile results will carry no SASS summary");
  // A worker meant for a GPU pool that came up without its GPU (driver not
  // loaded, device not passed into the container, wrong index) would
  // otherwise serve compile jobs only and leave the pool a GPU short
  // without anyone noticing.
  if ((require_gpu || gpu_index >= 0) && !detected.gpu_note.empty()) {
    std::cerr << "kseek-worker: " << (gpu_index >= 0 ? absl::StrCat("--gpu ", gpu_index) : "--require-gpu")
              << " but this worker sees no usable GPU (" << detected.gpu_note
              << "); check the driver (nvidia-smi), that /dev/nvidia* is passed to the worker, "
                 "CUDA_VISIBLE_DEVICES and the GPU index, or leave out --require-gpu for a compile-only worker\n";
    return 2;
  }
  if (absl::StatusOr<std::string> note = AddProblemsCapability(scenarios_dir, &detected); !note.ok()) {
    std::cerr << "kseek-worker: " << note.status().message() << "\n";
    return 1;
  } else if (!note->empty()) {
    Log(*note);
  }

  Sandbox sandbox = Sandbox::Disabled();
  if (no_sandbox) {
    Log("WARNING: --no-sandbox: jobs' programs run with this worker's view of the host");
  } else {
    SandboxConfig config = Sandbox::DefaultConfig(bwrap, {nvcc, cuobjdump, ncu, runner}, static_cast<int>(gpu_index));
    if (sandbox_uid >= 0 && config.uid >= 0) config.uid = config.gid = sandbox_uid;
    absl::StatusOr<Sandbox> made = Sandbox::Create(std::move(config));
    if (!made.ok()) {
      std::cerr << "kseek-worker: " << made.status().message() << "\n";
      return 1;
    }
    sandbox = *std::move(made);
    Log(absl::StrCat("sandbox: ", bwrap, sandbox.uid() >= 0 ? absl::StrCat(", as uid ", sandbox.uid()) : ""));
  }

  // Builds are shared through the server as well: this worker fetches a
  // build another made for the same key rather than compile it again.
  HubCompileCache shared_builds(name, token);
  std::unique_ptr<CompileCache> compile_cache;
  if (compile_cache_max_bytes < 0) {
    std::cerr << "kseek-worker: --compile-cache-max-bytes must be 0 or more\n";
    return 2;
  }
  if (!compile_cache_dir.empty() && compile_cache_max_bytes > 0) {
    absl::StatusOr<std::unique_ptr<CompileCache>> opened =
        CompileCache::Open({.dir = compile_cache_dir,
                            .max_bytes = static_cast<uint64_t>(compile_cache_max_bytes),
                            .remote = &shared_builds});
    if (!opened.ok()) {
      std::cerr << "kseek-worker: --compile-cache-dir: " << opened.status().message() << "\n";
      return 1;
    }
    compile_cache = *std::move(opened);
    Log(absl::StrCat("compile cache: ", compile_cache_dir, ", at most ", compile_cache_max_bytes, " bytes"));
  }

  CompilerConfig compiler_config;
  compiler_config.nvcc_path = nvcc;
  compiler_config.cuobjdump_path = cuobjdump;
  compiler_config.supported_archs = detected.compile_archs;
  compiler_config.temp_dir = *jobs_dir;
  compiler_config.sandbox = &sandbox;
  compiler_config.time_limit = absl::Seconds(compile_timeout_s);
  compiler_config.cache = compile_cache.get();
  Compiler compiler(compiler_config);
  RunExecutorConfig run_config;
  run_config.runner_path = runner;
  run_config.scenarios_dir = scenarios_dir;
  run_config.baselines_dir = baselines_dir;
  run_config.python = python;
  run_config.python_path = python_path;
  run_config.baseline_cache_dir = baseline_cache;
  run_config.temp_dir = *jobs_dir;
  run_config.sandbox = &sandbox;
  run_config.hidden_seed_key = RandomHexKey();
  run_config.gpu_mem_cap_gb = gpu_mem_cap_gb;
  run_config.bench_chunk = static_cast<int>(bench_chunk);
  // Only an ncu that answered `--version` is used, the one advertised.
  for (const auto& p : detected.properties) {
    if (p.key() != "ncu") continue;
    run_config.ncu_path = ncu;
    run_config.ncu_version = p.value();
  }
  RunExecutor runs(&compiler, run_config);
  // Verify and bench jobs need a GPU: without one the worker advertises no
  // `arch` and the server never leases it such a job.
  const bool has_gpu = detected.gpu_note.empty();
  KindDispatcher executor(&compiler, has_gpu ? &runs : nullptr);
  if (has_gpu) Log(absl::StrCat("verify/bench: runner ", runner, ", problems in ", scenarios_dir));

  WorkerLoopOptions options;
  options.name = name;
  options.token = token;
  options.instance_id = RandomHexKey().substr(0, 16);
  for (const auto& p : detected.properties) options.capabilities.push_back(p);
  std::vector<std::string> shown;
  for (const auto& p : options.capabilities) shown.push_back(absl::StrCat(p.key(), "=", p.value()));
  Log(absl::StrCat("kseek-worker ", name, " serving ", server, " with ", absl::StrJoin(shown, " ")));

  // The loop runs in a child process that is started again if it dies by a
  // signal, its lease reported so that the job fails instead of crashing
  // the next worker too.
  SupervisorOptions supervisor;
  supervisor.lease_marker_path = absl::StrCat(*jobs_dir, ".lease");
  options.lease_marker_path = supervisor.lease_marker_path;
  return Supervise(supervisor, [&](const kernelseek::v1::CrashReport& crash) {
    WorkerLoopOptions loop_options = options;
    loop_options.crash = crash;
    return RunLoop(server, tls, static_cast<int>(protocol_version), signals, &executor, &shared_builds,
                   loop_options);
  });
}

}  // namespace
}  // namespace kseek

int main(int argc, char** argv) { return kseek::Main(argc, argv); }
