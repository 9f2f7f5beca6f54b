#include "worker/run_executor.h"

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "problem/problem.h"
#include "problem/problem_digest.h"
#include "tests/testing/temp_dir.h"
#include "tests/worker/ncu_samples.h"

namespace kseek {
namespace {

constexpr char kNvccPath[] = "/usr/local/cuda/bin/nvcc";
constexpr char kScenario[] = "perf-bf16-d128-full-s512";

constexpr char kKernel[] = R"(
__global__ void AttentionFwdKernel(float* o) { o[threadIdx.x] = 1.f; }
extern "C" int attention_fwd(const void*, void*) { return 0; }
)";

// A stand-in for ncu that replays the H200 captures: the details CSV for the
// first run, the source page for a run with `--page source` (or fails that
// one with `source_exit`), each into the --log-file it was given. Every
// command line goes to argv.log, one per line.
std::string WriteFakeNcu(const testing::TempDir& dir, int source_exit) {
  std::ofstream(dir.File("details.csv")) << kNcuCsvH200;
  std::ofstream(dir.File("source.csv")) << kNcuSourceCsvH200;
  const std::string path = dir.File("ncu");
  std::ofstream script(path);
  script << "#!/bin/sh\n"
         << "echo \"$*\" >> " << dir.File("argv.log") << "\n"
         << "cat >> " << dir.File("stdin.log") << "\n"
         << "log=; page=; prev=\n"
         << "for a in \"$@\"; do\n"
         << "  [ \"$prev\" = --log-file ] && log=$a\n"
         << "  [ \"$prev\" = --page ] && page=$a\n"
         << "  prev=$a\n"
         << "done\n"
         << "if [ \"$page\" = source ]; then\n";
  if (source_exit == 0) {
    script << "  cat " << dir.File("source.csv") << " > \"$log\"\n";
  } else {
    script << "  echo '==ERROR== Failed to profile the source page' >&2\n"
           << "  exit " << source_exit << "\n";
  }
  script << "else\n"
         << "  cat " << dir.File("details.csv") << " > \"$log\"\n"
         << "fi\n";
  script.close();
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct ProfileFixture {
  explicit ProfileFixture(int source_exit, std::string hidden_seed_key = "") {
    CompilerConfig compiler_config;
    compiler_config.nvcc_path = kNvccPath;
    compiler_config.supported_archs = {"sm_90a"};
    compiler_config.temp_dir = dir.path();
    compiler_config.time_limit = absl::Seconds(120);
    compiler = std::make_unique<Compiler>(compiler_config);

    RunExecutorConfig config;
    config.runner_path = "/bin/true";  // never started: the fake ncu does not run it
    config.scenarios_dir = std::string(KSEEK_SOURCE_DIR) + "/scenarios";
    config.temp_dir = dir.path();
    config.ncu_path = WriteFakeNcu(dir, source_exit);
    config.ncu_version = "2025.3.1";
    config.hidden_seed_key = hidden_seed_key;
    executor = std::make_unique<RunExecutor>(compiler.get(), config);
  }

  absl::StatusOr<kernelseek::v1::ProfileResult> Profile(int hotspots) {
    kernelseek::v1::JobSpec spec;
    spec.set_kind(kernelseek::v1::JOB_KIND_PROFILE);
    spec.set_source_name("sm90.cu");
    spec.set_source(kKernel);
    spec.mutable_compile()->set_arch("sm_90a");
    spec.mutable_run()->set_problem("attention_fwd");
    spec.mutable_run()->set_scenarios(kScenario);
    spec.mutable_run()->set_hotspots(hotspots);
    return executor->Profile(spec, [&](const std::string& stage, const kernelseek::v1::Progress&) {
      stages.push_back(stage);
    });
  }

  std::vector<std::string> NcuCommands() const { return Lines(dir.File("argv.log")); }

  testing::TempDir dir;
  std::unique_ptr<Compiler> compiler;
  std::unique_ptr<RunExecutor> executor;
  std::vector<std::string> stages;
};

bool HaveNvcc() { return access(kNvccPath, X_OK) == 0; }

kernelseek::v1::ScenarioResult Round(bool passed, double ms, double baseline_ms) {
  kernelseek::v1::ScenarioResult r;
  r.set_id(kScenario);
  r.set_passed(passed);
  if (!passed) r.set_reason("max error 0.5 > bar 0.02 in o");
  r.set_median_ms(ms);
  r.set_tflops(ms > 0 ? 69.0 / ms : 0);
  r.set_repetitions(100);
  r.set_baseline_median_ms(baseline_ms);
  r.set_baseline_tflops(baseline_ms > 0 ? 69.0 / baseline_ms : 0);
  return r;
}

TEST_CASE("bench rounds keep each side's fastest round, separately") {
  kernelseek::v1::ScenarioResult kept = Round(true, 0.150, 0.130);
  KeepBestRound(Round(true, 0.140, 0.190), &kept);  // a faster candidate, a slow baseline spell
  CHECK(kept.passed());
  CHECK(kept.median_ms() == 0.140);
  CHECK(kept.tflops() == 69.0 / 0.140);
  CHECK(kept.baseline_median_ms() == 0.130);
  CHECK(kept.baseline_tflops() == 69.0 / 0.130);
  KeepBestRound(Round(true, 0.145, 0.125), &kept);
  CHECK(kept.median_ms() == 0.140);
  CHECK(kept.baseline_median_ms() == 0.125);
}

TEST_CASE("a scenario that fails in any round fails, whatever its timings") {
  kernelseek::v1::ScenarioResult kept = Round(true, 0.150, 0.130);
  KeepBestRound(Round(false, 0.100, 0.130), &kept);
  CHECK_FALSE(kept.passed());
  CHECK(kept.reason() == "max error 0.5 > bar 0.02 in o");
  KeepBestRound(Round(true, 0.090, 0.130), &kept);
  CHECK_FALSE(kept.passed());
}

TEST_CASE("a baseline error stays only while no round has a baseline timing") {
  kernelseek::v1::ScenarioResult kept = Round(true, 0.150, 0);
  kept.set_baseline_error("baseline program timed out");
  KeepBestRound(Round(true, 0.150, 0), &kept);
  CHECK(kept.baseline_error() == "baseline program timed out");
  KeepBestRound(Round(true, 0.150, 0.130), &kept);
  CHECK(kept.baseline_error().empty());
  CHECK(kept.baseline_median_ms() == 0.130);
}

TEST_CASE("each baseline keeps its own fastest round, and its error only while it has no timing") {
  auto with_figures = [](double ms, double cudnn_ms, double fa3_ms, const std::string& fa3_error) {
    kernelseek::v1::ScenarioResult r = Round(true, ms, cudnn_ms);
    kernelseek::v1::BaselineFigure* cudnn = r.add_baselines();
    cudnn->set_name("cudnn");
    cudnn->set_median_ms(cudnn_ms);
    kernelseek::v1::BaselineFigure* fa3 = r.add_baselines();
    fa3->set_name("fa3");
    fa3->set_median_ms(fa3_ms);
    fa3->set_error(fa3_error);
    return r;
  };
  kernelseek::v1::ScenarioResult kept = with_figures(0.150, 0.130, 0, "RuntimeError: out of memory");
  KeepBestRound(with_figures(0.140, 0.190, 0.120, ""), &kept);
  REQUIRE(kept.baselines_size() == 2);
  CHECK(kept.baselines(0).median_ms() == 0.130);  // cuDNN's slow second round is not kept
  CHECK(kept.baselines(1).median_ms() == 0.120);
  CHECK(kept.baselines(1).error().empty());
  KeepBestRound(with_figures(0.145, 0.125, 0.110, ""), &kept);
  CHECK(kept.baselines(0).median_ms() == 0.125);
  CHECK(kept.baselines(1).median_ms() == 0.110);
}

// A stand-in for kseek-runner: passes every scenario it is given at 1 ms.
// Each start appends "runner" to calls.log.
constexpr char kFakeRunner[] = R"py(#!/usr/bin/env python3
import json, os, sys
ids = sys.argv[sys.argv.index("--scenarios") + 1].split(",")
with open(os.path.join(os.path.dirname(__file__), "calls.log"), "a") as f:
    f.write("runner\n")
print(json.dumps({"device": {"name": "NVIDIA H200", "cuda_driver_version": 13000},
                  "scenarios": [{"id": i, "pass": True, "timing": {"median_ms": 1.0, "reps": 10}, "tflops": 100.0}
                                for i in ids]}))
)py";

// A stand-in for the baseline program: cudnn at 2 ms, fa3 at 0.5 ms and
// "no kernel" for fp16, as fa3-fwd says. Each start appends its backend.
constexpr char kFakeBaselines[] = R"py(
import json, os, sys
request = json.load(open(sys.argv[2]))
backend = request["backend"]
with open(os.path.join(os.path.dirname(__file__), "calls.log"), "a") as f:
    f.write(backend + "\n")
results = []
for s in request["scenarios"]:
    if backend == "fa3" and s["dtype"] == "fp16":
        results.append({"id": s["id"], "ok": False, "error": "no kernel: fa3-fwd was built without fp16"})
    else:
        results.append({"id": s["id"], "ok": True, "median_ms": 2.0 if backend == "cudnn" else 0.5})
print(json.dumps({"baseline": backend, "version": backend + " 1", "results": results}))
)py";

TEST_CASE("a job whose problem digest differs from this worker's files fails before anything runs") {
  testing::TempDir dir;
  CompilerConfig compiler_config;
  compiler_config.nvcc_path = kNvccPath;
  compiler_config.supported_archs = {"sm_90a"};
  compiler_config.temp_dir = dir.path();
  compiler_config.time_limit = absl::Seconds(120);
  Compiler compiler(compiler_config);
  RunExecutorConfig config;
  config.runner_path = dir.File("no-runner");  // the check after the digest's fails
  config.scenarios_dir = std::string(KSEEK_SOURCE_DIR) + "/scenarios";
  config.temp_dir = dir.path();
  RunExecutor executor(&compiler, config);

  kernelseek::v1::JobSpec spec;
  spec.set_kind(kernelseek::v1::JOB_KIND_VERIFY);
  spec.set_source_name("k.cu");
  spec.set_source(kKernel);
  spec.mutable_compile()->set_arch("sm_90a");
  spec.mutable_run()->set_problem("attention_fwd");
  spec.mutable_run()->set_scenarios(kScenario);
  // The server's copy: the same manifest, a scenario file with other shapes.
  absl::StatusOr<Problem> mine = Problem::Load(config.scenarios_dir + "/attention_fwd/problem.textproto");
  REQUIRE(mine.ok());
  kernelseek::v1::ProblemDigest server = mine->digest();
  server.set_scenarios_file("/srv/kseek/scenarios/attention_fwd/scenarios.textproto");
  server.set_scenarios_sha256(Sha256Hex("other shapes"));
  *spec.mutable_run()->mutable_problem_digest() = server;
  std::vector<std::string> stages;
  absl::StatusOr<kernelseek::v1::RunResult> result =
      executor.Run(spec, [&](const std::string& stage, const kernelseek::v1::Progress&) { stages.push_back(stage); });
  CHECK(result.status().code() == absl::StatusCode::kFailedPrecondition);
  const std::string message(result.status().message());
  CHECK(message.find("problem \"attention_fwd\" differs between the server and this worker") != std::string::npos);
  CHECK(message.find("/srv/kseek/scenarios/attention_fwd/scenarios.textproto has sha256 " +
                     server.scenarios_sha256()) != std::string::npos);
  CHECK(message.find(mine->digest().scenarios_file() + " " + mine->digest().scenarios_sha256()) != std::string::npos);
  CHECK(stages.empty());  // not even built

  // The same files: past the digest, to the next check.
  *spec.mutable_run()->mutable_problem_digest() = mine->digest();
  result = executor.Run(spec, [](const std::string&, const kernelseek::v1::Progress&) {});
  CHECK(result.status().message() == "kseek-runner not found at " + dir.File("no-runner"));
}

TEST_CASE("a bench with two baselines times each after every chunk of the candidate, every second round backwards") {
  if (!HaveNvcc()) {
    WARN("skipped: no nvcc at " << kNvccPath << " to build the candidate with");
    return;
  }
  const int rounds = GENERATE(1, 2);
  testing::TempDir dir;
  std::ofstream(dir.File("runner")) << kFakeRunner;
  std::filesystem::permissions(dir.File("runner"), std::filesystem::perms::owner_all);
  std::ofstream(dir.File("attention_fwd_baseline.py")) << kFakeBaselines;
  CompilerConfig compiler_config;
  compiler_config.nvcc_path = kNvccPath;
  compiler_config.supported_archs = {"sm_90a"};
  compiler_config.temp_dir = dir.path();
  compiler_config.time_limit = absl::Seconds(120);
  Compiler compiler(compiler_config);
  RunExecutorConfig config;
  config.runner_path = dir.File("runner");
  config.scenarios_dir = std::string(KSEEK_SOURCE_DIR) + "/scenarios";
  config.baselines_dir = dir.path();
  config.temp_dir = dir.path();
  config.bench_chunk = 1;
  RunExecutor executor(&compiler, config);

  kernelseek::v1::JobSpec spec;
  spec.set_kind(kernelseek::v1::JOB_KIND_BENCH);
  spec.set_source_name("k.cu");
  spec.set_source(kKernel);
  spec.mutable_compile()->set_arch("sm_90a");
  spec.mutable_run()->set_problem("attention_fwd");
  spec.mutable_run()->set_scenarios("perf-bf16-d64-full-s512,perf-f16-d64-full-s512");
  spec.mutable_run()->set_baseline("fa3,cudnn");
  spec.mutable_run()->set_max_seconds_per_scenario(1);
  spec.mutable_run()->set_rounds(rounds);
  absl::StatusOr<kernelseek::v1::RunResult> result =
      executor.Run(spec, [](const std::string&, const kernelseek::v1::Progress&) {});
  REQUIRE(result.ok());
  REQUIRE(result->compile().success());
  std::vector<std::string> calls = {"runner", "fa3", "cudnn", "runner", "fa3", "cudnn"};
  // The second round: each chunk's baselines last to first, then the candidate.
  if (rounds == 2) calls.insert(calls.end(), {"cudnn", "fa3", "runner", "cudnn", "fa3", "runner"});
  CHECK(Lines(dir.File("calls.log")) == calls);

  REQUIRE(result->scenarios_size() == 2);
  const kernelseek::v1::ScenarioResult& bf16 = result->scenarios(0);
  REQUIRE(bf16.baselines_size() == 2);
  CHECK(bf16.baselines(0).name() == "fa3");
  CHECK(bf16.baselines(0).speedup() == 0.5);
  CHECK(bf16.baselines(1).name() == "cudnn");
  CHECK(bf16.baselines(1).speedup() == 2.0);
  CHECK(bf16.speedup() == 0.5);  // the first baseline is the primary one
  const kernelseek::v1::ScenarioResult& f16 = result->scenarios(1);
  CHECK(f16.baselines(0).error() == "no kernel: fa3-fwd was built without fp16");
  CHECK(f16.baseline_error() == "no kernel: fa3-fwd was built without fp16");
  CHECK(f16.baselines(1).speedup() == 2.0);

  REQUIRE(result->baselines_size() == 2);
  CHECK(result->baselines(0).name() == "fa3");
  CHECK(result->baselines(0).version() == "fa3 (fa3 1)");
  CHECK(result->baselines(0).timed() == 1);
  CHECK(result->baselines(0).geomean_speedup() == Approx(0.5));
  CHECK(result->baselines(1).timed() == 2);
  CHECK(result->baselines(1).geomean_speedup() == Approx(2.0));
  CHECK(result->geomean_speedup() == Approx(0.5));
  CHECK(result->baseline() == "fa3 (fa3 1)");
}

TEST_CASE("a profile job with hot spots runs ncu twice and joins the source page to the kernel") {
  if (!HaveNvcc()) {
    WARN("skipped: no nvcc at " << kNvccPath);
    return;
  }
  ProfileFixture f(/*source_exit=*/0);
  absl::StatusOr<kernelseek::v1::ProfileResult> result = f.Profile(5);
  REQUIRE(result.ok());
  INFO(result->error());
  CHECK(result->compile().success());
  CHECK(result->scenario() == kScenario);
  CHECK(result->error().empty());

  std::vector<std::string> commands = f.NcuCommands();
  REQUIRE(commands.size() == 2);
  CHECK(commands[0].find("--page details") != std::string::npos);
  CHECK(commands[1].find("--page source --print-source sass") != std::string::npos);
  CHECK(commands[1].find("--launch-count 1") != std::string::npos);
  for (const std::string& c : commands) {
    // Both runs profile only the candidate's kernels, on the job's one scenario.
    CHECK(c.find("AttentionFwdKernel") != std::string::npos);
    CHECK(c.find(std::string("--scenarios ") + kScenario) != std::string::npos);
  }

  // One kernel: the first run's numbers, and the second run's hot spots
  // joined to it by name (plain there, demangled in the source page).
  REQUIRE(result->kernels_size() == 1);
  const kernelseek::v1::KernelProfile& k = result->kernels(0);
  CHECK(k.kernel() == "AttentionFwdKernel");
  CHECK(k.duration_us() == Approx(160.96));
  REQUIRE(k.has_hot_spots());
  CHECK(k.hot_spots().hot_spots_size() == 5);
  CHECK(k.hot_spots().total_samples() > 0);
  CHECK(std::find(f.stages.begin(), f.stages.end(), "sampling warp stalls of " + std::string(kScenario) +
                                                         " under ncu") != f.stages.end());
}

TEST_CASE("the hidden-seed key reaches the runner on stdin, never on its command line") {
  if (!HaveNvcc()) {
    WARN("skipped: no nvcc at " << kNvccPath);
    return;
  }
  const std::string key = "0123456789abcdef0123456789abcdef";
  ProfileFixture f(/*source_exit=*/0, key);
  absl::StatusOr<kernelseek::v1::ProfileResult> result = f.Profile(0);
  REQUIRE(result.ok());
  std::vector<std::string> commands = f.NcuCommands();
  REQUIRE(commands.size() == 1);
  CHECK(commands[0].find("--hidden-seed-key -") != std::string::npos);
  CHECK(commands[0].find(key) == std::string::npos);
  CHECK(result->command().find(key) == std::string::npos);
  std::vector<std::string> stdin_lines = Lines(f.dir.File("stdin.log"));
  REQUIRE(stdin_lines.size() == 1);
  CHECK(stdin_lines[0] == key);
}

TEST_CASE("a profile job without hot spots runs ncu once") {
  if (!HaveNvcc()) {
    WARN("skipped: no nvcc at " << kNvccPath);
    return;
  }
  ProfileFixture f(/*source_exit=*/0);
  absl::StatusOr<kernelseek::v1::ProfileResult> result = f.Profile(0);
  REQUIRE(result.ok());
  CHECK(f.NcuCommands().size() == 1);
  REQUIRE(result->kernels_size() == 1);
  CHECK_FALSE(result->kernels(0).has_hot_spots());
  CHECK(result->error().empty());
}

TEST_CASE("a failed source-page run keeps the first run's profile and says why") {
  if (!HaveNvcc()) {
    WARN("skipped: no nvcc at " << kNvccPath);
    return;
  }
  ProfileFixture f(/*source_exit=*/2);
  absl::StatusOr<kernelseek::v1::ProfileResult> result = f.Profile(5);
  REQUIRE(result.ok());
  CHECK(f.NcuCommands().size() == 2);
  REQUIRE(result->kernels_size() == 1);
  CHECK(result->kernels(0).duration_us() == Approx(160.96));
  CHECK_FALSE(result->kernels(0).has_hot_spots());
  CHECK(result->error().find("hot spots: ncu") != std::string::npos);
  CHECK(result->error().find("Failed to profile the source page") != std::string::npos);
}

}  // namespace
}  // namespace kseek
