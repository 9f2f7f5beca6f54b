#include "worker/baseline_timer.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

// A stand-in for the real baseline program (which needs PyTorch and a GPU):
// answers every scenario with a fixed time and counts its invocations.
constexpr const char* kFakeBaseline = R"py(
import json, sys, os
request = json.load(open(sys.argv[2]))
with open(os.path.join(os.path.dirname(__file__), "calls"), "a") as f:
    f.write("x")
version = open(os.path.join(os.path.dirname(__file__), "version")).read().strip()
results = []
for s in request["scenarios"]:
    if s["id"].startswith("perf-f16"):
        results.append({"id": s["id"], "ok": False, "error": "ValueError: not offered"})
    else:
        results.append({"id": s["id"], "ok": True, "median_ms": 2.5, "min_ms": 2.4})
print(json.dumps({"baseline": request["backend"], "version": version, "results": results}))
)py";

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Fixture {
  testing::TempDir dir;
  Problem problem = *Problem::Load(KSEEK_SOURCE_DIR "/scenarios/attention_fwd/problem.textproto");
  std::vector<const kernelseek::v1::ScenarioSpec*> scenarios;
  BaselineTimer timer{{.python = "python3",
                       .baselines_dir = dir.path(),
                       .cache_dir = dir.File("cache"),
                       .work_dir = dir.path()}};

  Fixture() {
    std::ofstream(dir.File("attention_fwd_baseline.py")) << kFakeBaseline;
    SetVersion("torch 1");
    scenarios = *problem.Select("perf-bf16-d64-full-s512,perf-f16-d64-full-s512");
  }
  void SetVersion(const std::string& v) { std::ofstream(dir.File("version")) << v; }
  size_t Calls() { return Read(dir.File("calls")).size(); }
  BaselineTimings Time(bool reuse) { return timer.Time(problem, scenarios, "cudnn", 1.0, "NVIDIA H200", "13.0", reuse); }
};

TEST_CASE("baseline timings are measured, reported per scenario, and cached") {
  Fixture f;
  BaselineTimings first = f.Time(/*reuse=*/false);
  REQUIRE(f.Calls() == 1);
  REQUIRE(first.baseline == "cudnn (torch 1)");
  REQUIRE(first.by_id.at("perf-bf16-d64-full-s512").ok);
  REQUIRE(first.by_id.at("perf-bf16-d64-full-s512").median_ms == 2.5);
  REQUIRE_FALSE(first.by_id.at("perf-bf16-d64-full-s512").cached);
  REQUIRE_FALSE(first.by_id.at("perf-f16-d64-full-s512").ok);
  REQUIRE(first.by_id.at("perf-f16-d64-full-s512").error == "ValueError: not offered");

  SECTION("by default every bench measures afresh") {
    f.Time(false);
    REQUIRE(f.Calls() == 2);
  }
  SECTION("reuse serves cached timings and measures only what the cache lacks") {
    BaselineTimings again = f.Time(true);
    REQUIRE(f.Calls() == 2);  // the failed scenario is not cached, so it was timed again
    REQUIRE(again.by_id.at("perf-bf16-d64-full-s512").cached);
    REQUIRE(again.by_id.at("perf-bf16-d64-full-s512").median_ms == 2.5);
    REQUIRE_FALSE(again.by_id.at("perf-f16-d64-full-s512").cached);
  }
  SECTION("a new baseline version drops what was cached for the old one") {
    f.SetVersion("torch 2");
    f.Time(false);
    BaselineTimings reused = f.Time(true);
    REQUIRE(reused.by_id.at("perf-bf16-d64-full-s512").cached);
    REQUIRE(reused.baseline == "cudnn (torch 2), 1 of 2 cached");
  }
}

TEST_CASE("a baseline program that fails gives every scenario the reason") {
  Fixture f;
  std::ofstream(f.dir.File("attention_fwd_baseline.py")) << "import sys\nsys.exit('no torch here')\n";
  BaselineTimings t = f.Time(false);
  for (const auto* s : f.scenarios) {
    REQUIRE_FALSE(t.by_id.at(s->id()).ok);
    REQUIRE_THAT(t.by_id.at(s->id()).error, Catch::Contains("no torch here"));
  }
}

TEST_CASE("a problem without a baseline program says so") {
  Fixture f;
  std::remove(f.dir.File("attention_fwd_baseline.py").c_str());
  BaselineTimings t = f.Time(false);
  REQUIRE_THAT(t.by_id.at("perf-bf16-d64-full-s512").error, Catch::Contains("no baseline program"));
}

TEST_CASE("the baseline program gets the wheel site on its PYTHONPATH") {
  testing::TempDir dir;
  std::ofstream(dir.File("attention_fwd_baseline.py")) << R"py(
import json, os, sys
request = json.load(open(sys.argv[2]))
print(json.dumps({"baseline": request["backend"], "version": os.environ.get("PYTHONPATH", "").split(":")[0],
                  "results": [{"id": s["id"], "ok": True, "median_ms": 1.0} for s in request["scenarios"]]}))
)py";
  Problem problem = *Problem::Load(KSEEK_SOURCE_DIR "/scenarios/attention_fwd/problem.textproto");
  std::vector<const kernelseek::v1::ScenarioSpec*> scenarios = *problem.Select("perf-bf16-d64-full-s512");
  BaselineTimer timer{{.python = "python3",
                       .python_path = dir.File("site-0123"),
                       .baselines_dir = dir.path(),
                       .work_dir = dir.path()}};
  BaselineTimings timings = timer.Time(problem, scenarios, "fa3", 1.0, "NVIDIA H200", "13.0", false);
  CHECK(timings.baseline == "fa3 (" + dir.File("site-0123") + ")");
}

}  // namespace
}  // namespace kseek
