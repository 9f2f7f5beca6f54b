// End to end, on a CPU machine: the real kseek, kseek-server and kseek-worker
// processes, with workers that believe they have a GPU (a fake nvidia-smi
// on their PATH), a fake kseek-runner and a fake baseline program, so that a
// verify, and a bench sharded over several workers, are scheduled, run chunk
// by chunk and merged exactly as on a GPU node; only the verdicts and timings
// are made up. Builds use the real nvcc.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "tests/e2e/local_stack.h"

namespace kseek::testing {
namespace {

using nlohmann::json;

// The worker runs its tools with a clean environment, so each worker gets
// tools of its own with its name (@NAME@), GPU (@GPU@), driver (@DRIVER@)
// and the log (@LOG@) written in.

// Answers the worker's two probes: the GPU's name and compute capability,
// and the header with the driver's CUDA version.
constexpr char kFakeNvidiaSmi[] = R"sh(#!/bin/sh
case "$*" in
  *--query-gpu*) echo "@GPU@, 9.0" ;;
  *) echo "| NVIDIA-SMI 580.00   Driver Version: 580.00   CUDA Version: @DRIVER@ |" ;;
esac
)sh";

// kseek-runner's stand-in: every scenario it is given passes, at a time that
// depends on the scenario alone; it notes which worker ran what.
constexpr char kFakeRunner[] = R"py(#!/usr/bin/env python3
import hashlib, json, os, sys
ids = sys.argv[sys.argv.index("--scenarios") + 1].split(",")
with open("@LOG@", "a") as f:
    f.write("runner @NAME@ %d\n" % len(ids))
def ms(i):
    return 1.0 + int(hashlib.sha256(i.encode()).hexdigest()[:4], 16) / 65536.0
# With @LOG@.fail present, the scenarios whose id starts with cor- fail.
fail = os.path.exists("@LOG@.fail")
def row(i):
    if fail and i.startswith("cor-"):
        return {"id": i, "pass": False, "reason": "o: max abs error 9.9 exceeds the bar 0.01"}
    return {"id": i, "pass": True, "timing": {"median_ms": ms(i), "reps": 10}, "tflops": 100.0 / ms(i)}
print(json.dumps({"device": {"name": "@GPU@", "cuda_driver_version": 13000},
                  "scenarios": [row(i) for i in ids]}))
)py";

// The baseline program's stand-in: cuDNN at 1.5 times the candidate's fake time.
constexpr char kFakeBaselines[] = R"py(
import hashlib, json, os, sys
if sys.argv[1] == "--probe":
    print(json.dumps({"available": {"cudnn": "fake cudnn 1"}, "missing": {}}))
    sys.exit(0)
request = json.load(open(sys.argv[2]))
with open("@LOG@", "a") as f:
    f.write("baseline @NAME@ %d\n" % len(request["scenarios"]))
def ms(i):
    return 1.5 * (1.0 + int(hashlib.sha256(i.encode()).hexdigest()[:4], 16) / 65536.0)
print(json.dumps({"baseline": request["backend"], "version": "fake cudnn 1",
                  "results": [{"id": s["id"], "ok": True, "median_ms": ms(s["id"])} for s in request["scenarios"]]}))
)py";

constexpr char kKernel[] = "extern \"C\" __global__ void attention_fwd_kernel() {}\n";

// Starts a worker that believes it has GPU `gpu` with driver `driver`, with
// the fake runner and baseline program; all of them log to DIR/fake.log.
ChildProcess* StartFakeGpuWorker(LocalStack& stack, const std::string& name, const std::string& driver,
                                 const std::string& gpu = "NVIDIA H200") {
  const std::string dir = stack.dir().File("fake-" + name);
  std::filesystem::create_directories(dir + "/bin");
  std::filesystem::create_directories(dir + "/baselines");
  const std::vector<std::pair<std::string, std::string>> fill = {
      {"@NAME@", name}, {"@GPU@", gpu}, {"@DRIVER@", driver}, {"@LOG@", stack.dir().File("fake.log")}};
  WriteFile(dir + "/bin/nvidia-smi", absl::StrReplaceAll(kFakeNvidiaSmi, fill));
  WriteFile(dir + "/runner", absl::StrReplaceAll(kFakeRunner, fill));
  WriteFile(dir + "/baselines/attention_fwd_baseline.py", absl::StrReplaceAll(kFakeBaselines, fill));
  REQUIRE(chmod((dir + "/bin/nvidia-smi").c_str(), 0755) == 0);
  REQUIRE(chmod((dir + "/runner").c_str(), 0755) == 0);
  const char* path = std::getenv("PATH");
  return stack.StartWorker(name, "",
                           {"--no-sandbox", "--runner", dir + "/runner", "--baselines", dir + "/baselines",
                            "--baseline-cache", "", "--bench-chunk", "8"},
                           /*wait_until_listed=*/true,
                           {{"PATH", absl::StrCat(dir, "/bin:", path != nullptr ? path : "/usr/bin:/bin")}});
}

json Bench(LocalStack& stack, const std::string& kernel, const std::string& shards) {
  std::vector<std::string> args = {"bench", kernel, "--problem", "attention_fwd", "--arch", "sm_90a",
                                   "--scenarios", "perf", "--baseline", "cudnn", "--json"};
  if (!shards.empty()) args.insert(args.end(), {"--shards", shards});
  SubprocessResult r = stack.Kseek(args);
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.stdout_text);
}

TEST_CASE("a bench sharded over idle workers of one GPU model and driver reads as the one-GPU bench", "[e2e][fleet]") {
  LocalStack stack;
  stack.StartServer();
  // Which worker takes the first shard is a race, so only workers of one GPU
  // model and driver are up here; the pinning of the other shards to the
  // first one's is tested in tests/server/bench_shards_test.cc.
  StartFakeGpuWorker(stack, "gpu-a", "13.0");
  StartFakeGpuWorker(stack, "gpu-b", "13.0");
  StartFakeGpuWorker(stack, "gpu-c", "13.0");
  const std::string kernel = stack.dir().File("k.cu");
  WriteFile(kernel, kKernel);

  const json sharded = Bench(stack, kernel, "auto");
  REQUIRE(sharded["state"] == "JOB_STATE_SUCCEEDED");
  const json& merged = sharded["result"]["run"];
  // Three idle workers: three shards, one each.
  const json& shards = merged["shards"];
  REQUIRE(shards.size() == 3);
  std::set<std::string> workers;
  size_t scenarios = 0;
  for (const json& s : shards) {
    workers.insert(s["worker"].get<std::string>());
    scenarios += s["scenarios"].size();
  }
  CHECK(workers == std::set<std::string>{"gpu-a", "gpu-b", "gpu-c"});
  CHECK(scenarios == merged["scenarios"].size());

  const json single = Bench(stack, kernel, "");
  REQUIRE(single["state"] == "JOB_STATE_SUCCEEDED");
  const json& one = single["result"]["run"];
  REQUIRE(one["shards"].size() == 1);
  // The same rows in the same order, the same counts and geometric means.
  REQUIRE(merged["scenarios"].size() == one["scenarios"].size());
  for (size_t i = 0; i < one["scenarios"].size(); ++i) {
    INFO(i);
    CHECK(merged["scenarios"][i]["id"] == one["scenarios"][i]["id"]);
    CHECK(merged["scenarios"][i]["median_ms"] == one["scenarios"][i]["median_ms"]);
    CHECK(merged["scenarios"][i]["speedup"] == one["scenarios"][i]["speedup"]);
  }
  CHECK(merged["passed"] == one["passed"]);
  CHECK(merged["geomean_speedup"].get<double>() == Approx(one["geomean_speedup"].get<double>()).epsilon(1e-12));
  CHECK(merged["geomean_tflops"].get<double>() == Approx(one["geomean_tflops"].get<double>()).epsilon(1e-12));
  CHECK(merged["baselines"][0]["timed"] == one["baselines"][0]["timed"]);
  CHECK(merged["baselines"][0]["version"] == one["baselines"][0]["version"]);
  CHECK(merged["baselines"][0]["version"] == "cudnn (fake cudnn 1)");

  // Each shard alternated its chunks with the baseline on its own worker.
  const std::string log = ReadFile(stack.dir().File("fake.log"));
  for (const std::string& w : workers) {
    INFO(log);
    CHECK(log.find("runner " + w) != std::string::npos);
    CHECK(log.find("baseline " + w) != std::string::npos);
  }

  // The text report is the one-GPU report plus the shard line.
  SubprocessResult text = stack.Kseek({"job", sharded["id"].get<std::string>()});
  INFO(text.stdout_text);
  CHECK_THAT(text.stdout_text, Catch::Contains(absl::StrCat(shards.size(), " shards: 1 on ")));
}

TEST_CASE("a verify goes through server, worker and runner, and a failing scenario fails it by name", "[e2e][fleet]") {
  LocalStack stack;
  stack.StartServer();
  StartFakeGpuWorker(stack, "gpu-v", "13.0");
  const std::string kernel = stack.dir().File("k.cu");
  WriteFile(kernel, kKernel);
  const std::vector<std::string> verify = {"verify", kernel, "--problem", "attention_fwd", "--arch", "sm_90a"};

  // The problem's default set (all 202 scenarios), every one reported.
  SubprocessResult passed = stack.Kseek(verify);
  INFO(passed.stdout_text << passed.stderr_text);
  REQUIRE(passed.exit_code == 0);
  CHECK_THAT(passed.stdout_text, Catch::Contains("passed 202/202 on NVIDIA H200"));
  CHECK(ReadFile(stack.dir().File("fake.log")).find("runner gpu-v") != std::string::npos);

  // The runner fails the cor- scenarios: kseek exits 1 and names them.
  WriteFile(stack.dir().File("fake.log.fail"), "");
  std::vector<std::string> as_json = verify;
  as_json.push_back("--json");
  SubprocessResult failed = stack.Kseek(as_json);
  INFO(failed.stdout_text << failed.stderr_text);
  CHECK(failed.exit_code == 1);
  const json job = json::parse(failed.stdout_text);
  const json& rows = job["result"]["run"]["scenarios"];
  REQUIRE(rows.size() == 202);
  size_t failing = 0;
  for (const json& r : rows) {
    const bool cor = r["id"].get<std::string>().rfind("cor-", 0) == 0;
    CHECK(r.value("passed", false) == !cor);
    if (cor) {
      ++failing;
      CHECK_THAT(r["reason"].get<std::string>(), Catch::Contains("exceeds the bar"));
    }
  }
  CHECK(failing > 0);
}

}  // namespace
}  // namespace kseek::testing
