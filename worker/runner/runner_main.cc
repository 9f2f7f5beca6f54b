// kseek-runner: verifies or benchmarks one compiled candidate kernel on the
// scenarios of one problem and prints one JSON document on stdout; progress
// lines ("progress i/n id") go to stderr.
//
// Exit codes: 0 every scenario passed; 1 the run finished and some scenario
// did not pass; 2 the run could not start (usage, manifest, no GPU, kernel not
// loadable); 3 a kernel hung or left the GPU unusable (the JSON still lists
// every scenario).
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/version.h"
#include "problem/problem.h"
#include "worker/runner/reference.h"
#include "worker/runner/run_log.h"
#include "worker/runner/scenario_layout.h"
#include "worker/runner/scenario_runner.h"
#include "worker/runner/seeds.h"
#include "worker/runner/watchdog.h"

namespace {

using kseek::runner::RunnerOptions;
using kseek::runner::ScenarioResult;

constexpr char kUsage[] =
    "usage: kseek-runner --problem DIR/problem.textproto --kernel KERNEL.so\n"
    "                    --mode verify|bench [--scenarios all|SET|ID,ID,...]\n"
    "                    [--hidden-seed-key -] [--max-seconds-per-scenario N]\n"
    "                    [--gpu-mem-cap-gb N] [--bench-seconds N]\n"
    "       kseek-runner --version\n"
    "--hidden-seed-key -: read the hex key of the hidden scenarios' seeds from the\n"
    "first line of stdin (never the command line, which other processes can\n"
    "read); without it a random key is drawn.\n";

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "kseek-runner: %s\n", message.c_str());
  std::exit(2);
}

std::map<std::string, std::string> ParseFlags(int argc, char** argv) {
  static const char* kKnown[] = {"problem",         "kernel",
                                 "mode",            "scenarios",
                                 "hidden-seed-key", "max-seconds-per-scenario",
                                 "gpu-mem-cap-gb",  "bench-seconds"};
  std::map<std::string, std::string> flags;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (arg.rfind("--", 0) != 0) Die(absl::StrCat("unexpected argument '", arg, "'\n", kUsage));
    std::string name = arg.substr(2), value;
    size_t eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      Die(absl::StrCat("--", name, " needs a value"));
    }
    bool known = false;
    for (const char* k : kKnown) known |= name == k;
    if (!known) Die(absl::StrCat("unknown flag --", name, "\n", kUsage));
    flags[name] = value;
  }
  return flags;
}

double NumberFlag(const std::map<std::string, std::string>& flags, const std::string& name,
                  double fallback) {
  auto it = flags.find(name);
  if (it == flags.end()) return fallback;
  double value = 0;
  if (!absl::SimpleAtod(it->second, &value) || !(value >= 0)) {
    Die(absl::StrCat("--", name, " '", it->second, "' is not a non-negative number"));
  }
  return value;
}

std::string RandomKey() {
  std::random_device device;
  std::string key;
  for (int i = 0; i < 4; ++i) key += absl::StrFormat("%08x", device());
  return key;
}

nlohmann::json DeviceInfo(int device) {
  cudaDeviceProp prop{};
  int driver = 0, runtime = 0;
  nlohmann::json info;
  if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
    info["name"] = prop.name;
    info["compute_capability"] = absl::StrCat(prop.major, ".", prop.minor);
    info["sm_count"] = prop.multiProcessorCount;
    info["memory_bytes"] = prop.totalGlobalMem;
    info["l2_bytes"] = prop.l2CacheSize;
  }
  if (cudaDriverGetVersion(&driver) == cudaSuccess) info["cuda_driver_version"] = driver;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) info["cuda_runtime_version"] = runtime;
  return info;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--version") {
    std::cout << "kseek-runner " << kseek::kProjectVersion << " (protocol " << kseek::kProtocolVersion << ")\n";
    return 0;
  }
  std::map<std::string, std::string> flags = ParseFlags(argc, argv);
  for (const char* required : {"problem", "kernel", "mode"}) {
    if (!flags.count(required)) Die(absl::StrCat("--", required, " is required\n", kUsage));
  }
  const std::string mode = flags["mode"];
  if (mode != "verify" && mode != "bench") Die("--mode must be verify or bench, not '" + mode + "'");

  absl::StatusOr<kseek::Problem> problem = kseek::Problem::Load(flags["problem"]);
  if (!problem.ok()) Die(std::string(problem.status().message()));
  const std::string selection = flags.count("scenarios") ? flags["scenarios"] : "all";
  auto selected = problem->Select(selection);
  if (!selected.ok()) Die(std::string(selected.status().message()));
  kseek::runner::ReferenceFn reference =
      kseek::runner::FindReference(problem->manifest().reference());
  if (reference == nullptr) {
    Die(absl::StrCat("this runner has no reference named '", problem->manifest().reference(),
                     "' (it has: ", absl::StrJoin(kseek::runner::ReferenceNames(), ", "), ")"));
  }
  std::string key = RandomKey();
  if (flags.count("hidden-seed-key")) {
    if (flags["hidden-seed-key"] != "-") {
      Die("--hidden-seed-key takes only \"-\": the key is read from stdin, never from the command line");
    }
    if (!std::getline(std::cin, key)) Die("--hidden-seed-key -: no key on stdin");
  }
  if (auto check = kseek::runner::HiddenSeed(key, "check"); !check.ok()) {
    Die(std::string(check.status().message()));
  }
  // The seeds are drawn before the kernel's library is loaded, and the key
  // is wiped, so no code of the user's runs while the key is in memory.
  std::vector<ScenarioResult> planned;
  std::vector<uint64_t> seeds;
  for (const auto* s : *selected) {
    ScenarioResult r;
    r.id = s->id();
    r.set = s->set();
    r.dtype = kseek::runner::DtypeName(s->dtype());
    r.hidden_seed = s->hidden_seed();
    r.seed = s->hidden_seed() ? *kseek::runner::HiddenSeed(key, s->id()) : s->seed();
    if (auto b = problem->BindingsFor(*s); b.ok()) r.bindings = *b;
    r.reason = "not reached";
    seeds.push_back(r.seed);
    planned.push_back(std::move(r));
  }
  std::fill(key.begin(), key.end(), '0');
  key.clear();
  RunnerOptions options;
  options.bench = mode == "bench";
  options.bench_seconds = NumberFlag(flags, "bench-seconds", 10);
  options.gpu_mem_cap_bytes = NumberFlag(flags, "gpu-mem-cap-gb", 0) * double(1 << 30);
  const double max_seconds = NumberFlag(flags, "max-seconds-per-scenario", 300);

  int devices = 0;
  cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    Die(absl::StrCat("no CUDA device visible (cudaGetDeviceCount: ",
                     err == cudaSuccess ? "0 devices" : cudaGetErrorName(err),
                     err == cudaSuccess ? "" : absl::StrCat(": ", cudaGetErrorString(err)), ")"));
  }
  if ((err = cudaSetDevice(0)) != cudaSuccess || (err = cudaFree(nullptr)) != cudaSuccess) {
    Die(absl::StrCat("cannot initialise CUDA device 0: ", cudaGetErrorString(err)));
  }

  void* library = dlopen(flags["kernel"].c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) Die(absl::StrCat("cannot load kernel: ", dlerror()));
  const std::string& entry = problem->manifest().entry_point();
  auto launch = reinterpret_cast<kseek::runner::LaunchFn>(dlsym(library, entry.c_str()));
  if (launch == nullptr) {
    Die(absl::StrCat(flags["kernel"], " does not export extern \"C\" ", entry));
  }

  auto runner = kseek::runner::ScenarioRunner::Create(&*problem, launch, reference, options);
  if (!runner.ok()) Die(std::string(runner.status().message()));

  kseek::runner::RunInfo info;
  info.problem = problem->manifest().name();
  info.mode = mode;
  info.kernel = flags["kernel"];
  info.entry_point = entry;
  info.device = DeviceInfo(0);
  kseek::runner::RunLog log(info, planned);
  kseek::runner::Watchdog watchdog;

  int exit_code = 0;
  const size_t n = selected->size();
  for (size_t i = 0; i < n; ++i) {
    std::fprintf(stderr, "progress %zu/%zu %s\n", i + 1, n, planned[i].id.c_str());
    std::fflush(stderr);
    log.Begin(i);
    watchdog.Arm(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                     std::chrono::duration<double>(max_seconds)),
                 [&log, max_seconds] {
                   log.FailCurrentPrintAndExit(
                       absl::StrFormat("timed out after %.0f s: the kernel never returned "
                                       "(or the scenario is too slow for the limit)",
                                       max_seconds),
                       3);
                 });
    ScenarioResult result = planned[i];
    result.reason.clear();
    absl::Status status = (*runner)->Run(*(*selected)[i], seeds[i], &result);
    watchdog.Disarm();
    log.Finish(i, std::move(result));
    if (!status.ok()) {
      log.AbandonRemaining(absl::StrCat("not run: ", status.message()));
      std::fprintf(stderr, "kseek-runner: %s\n", std::string(status.message()).c_str());
      exit_code = 3;
      break;
    }
  }
  std::cout << log.Document() << std::endl;
  if (exit_code == 0 && !log.AllPassed()) exit_code = 1;
  // The candidate's library stays loaded until exit: its CUDA module may be
  // referenced by the runtime until then. _exit skips static destructors that
  // would tear CUDA down after a lost context.
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(exit_code);
}
