#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "problem/problem.h"

namespace kseek {
namespace {

using kernelseek::v1::ScenarioSpec;

const std::string kDir = std::string(KSEEK_SOURCE_DIR) + "/scenarios/attention_fwd";

std::map<std::string, int64_t> Symbols(const ScenarioSpec& s) {
  std::map<std::string, int64_t> v;
  for (const auto& b : s.symbol()) v[b.name()] = b.value();
  return v;
}

bool Causal(const ScenarioSpec& s) {
  for (const auto& v : s.scalar()) {
    if (v.name() == "causal") return v.value() != 0;
  }
  return false;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("attention_fwd has 202 valid scenarios: 72 perf, 110 correctness, 20 rising", "[scenarios]") {
  auto problem = Problem::Load(kDir + "/problem.textproto");
  REQUIRE(problem.ok());
  CHECK(problem->scenarios().size() == 202);
  CHECK(problem->Select("perf")->size() == 72);
  CHECK(problem->Select("correctness")->size() == 110);
  CHECK(problem->Select("rising")->size() == 20);
}

TEST_CASE("rising: every dtype x d x causal, K ramped along its keys both ways, to overflow", "[scenarios]") {
  auto problem = Problem::Load(kDir + "/problem.textproto");
  REQUIRE(problem.ok());
  auto rising = problem->Select("rising");
  REQUIRE(rising.ok());
  std::set<std::tuple<int, int64_t, bool>> combos;
  std::set<std::tuple<bool, bool, int>> kinds;  // causal, toward the first key, range
  int shorter_q = 0, longer_q_causal = 0;
  for (const ScenarioSpec* s : *rising) {
    auto v = Symbols(*s);
    combos.insert({s->dtype(), v["d"], Causal(*s)});
    shorter_q += v["s_q"] < v["s_k"];
    longer_q_causal += v["s_q"] > v["s_k"] && Causal(*s);
    CHECK(double(v["b"]) * v["h"] * v["s_q"] * v["s_k"] <= 7.0e7);
    REQUIRE(s->fill_size() == 2);
    CHECK((s->fill(0).tensor() == "q" && s->fill(0).mean() == 1 && !s->fill(0).has_ramp()));
    const auto& k = s->fill(1);
    REQUIRE(k.tensor() == "k");
    REQUIRE(k.has_ramp());
    CHECK(k.ramp().axis() == 1);  // the key axis of [b, s_k, h_kv, d]
    const double top = std::max(k.ramp().from(), k.ramp().to());
    CHECK(std::min(k.ramp().from(), k.ramp().to()) == 0);
    // Q near 1 and scale 1 / sqrt(d): the scores span sqrt(d) * top, in log2 units:
    const int range = static_cast<int>(std::lround(top * std::sqrt(double(v["d"])) / std::log(2.0)));
    CHECK((range == 40 || range == 400));
    kinds.insert({Causal(*s), k.ramp().from() > 0, range});
  }
  CHECK(combos.size() == 2 * 5 * 2);
  CHECK(kinds.size() == 8);  // causal or not x either direction x both ranges
  CHECK(shorter_q >= 4);
  CHECK(longer_q_causal >= 2);
}

TEST_CASE("perf is the FA3 paper's forward grid", "[scenarios]") {
  auto problem = Problem::Load(kDir + "/problem.textproto");
  REQUIRE(problem.ok());
  std::set<std::tuple<int, int64_t, int64_t, bool>> grid;  // dtype, d, seqlen, causal
  auto perf = problem->Select("perf");
  REQUIRE(perf.ok());
  for (const ScenarioSpec* s : *perf) {
    auto v = Symbols(*s);
    CHECK(v["b"] * v["s_q"] == 16384);
    CHECK(v["s_q"] == v["s_k"]);
    CHECK(v["h"] * v["d"] == 2048);
    CHECK(v["h"] == v["h_kv"]);
    CHECK_FALSE(s->hidden_seed());
    grid.insert({s->dtype(), v["d"], v["s_q"], Causal(*s)});
  }
  CHECK(grid.size() == 72);  // 2 dtypes x 3 d x 6 seqlens x 2, all distinct
  for (auto [dtype, d, s, causal] : grid) {
    CHECK((d == 64 || d == 128 || d == 256));
    CHECK((s >= 512 && s <= 16384 && (s & (s - 1)) == 0));
  }
}

TEST_CASE("correctness covers every dtype x d x causal and the hard shapes", "[scenarios]") {
  auto problem = Problem::Load(kDir + "/problem.textproto");
  REQUIRE(problem.ok());
  std::set<std::tuple<int, int64_t, bool>> combos;
  std::set<int64_t> lengths;
  int shorter_q = 0, longer_q = 0, longer_q_causal = 0, decode = 0, gqa4 = 0, gqa8 = 0, mqa = 0,
      batched = 0, hidden = 0;
  double largest_scores = 0;
  auto correctness = problem->Select("correctness");
  REQUIRE(correctness.ok());
  for (const ScenarioSpec* s : *correctness) {
    auto v = Symbols(*s);
    combos.insert({s->dtype(), v["d"], Causal(*s)});
    lengths.insert(v["s_q"]);
    lengths.insert(v["s_k"]);
    shorter_q += v["s_q"] < v["s_k"];
    longer_q += v["s_q"] > v["s_k"];
    longer_q_causal += v["s_q"] > v["s_k"] && Causal(*s);
    decode += v["s_q"] == 1;
    gqa4 += v["h"] == 4 * v["h_kv"];
    gqa8 += v["h"] == 8 * v["h_kv"];
    mqa += v["h_kv"] == 1 && v["h"] > 1;
    batched += v["b"] > 1;
    hidden += s->hidden_seed();
    largest_scores = std::max(largest_scores, double(v["b"]) * v["h"] * v["s_q"] * v["s_k"]);
  }
  CHECK(combos.size() == 2 * 5 * 2);
  for (int64_t len : {1, 3, 113, 203, 799, 1023, 4097}) CHECK(lengths.count(len) == 1);
  CHECK(shorter_q >= 10);
  CHECK(longer_q >= 10);
  CHECK(longer_q_causal >= 5);
  CHECK(decode >= 20);
  CHECK(gqa4 >= 5);
  CHECK(gqa8 >= 5);
  CHECK(mqa >= 5);
  CHECK(batched >= 50);
  CHECK(hidden >= 20);
  // Small enough that the fp32 reference is quick: at most ~7e7 scores.
  CHECK(largest_scores <= 7.0e7);
}

TEST_CASE("every problem's committed scenario file is what its generator writes", "[scenarios]") {
#ifndef KSEEK_PYTHON3
  WARN("python3 not found at configure time; skipped");
#else
  // scenarios/generate_NAME.py writes scenarios/NAME/scenarios.textproto.
  const std::filesystem::path root = std::string(KSEEK_SOURCE_DIR) + "/scenarios";
  std::set<std::string> checked;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind("generate_", 0) != 0 || entry.path().extension() != ".py") continue;
    const std::string name = entry.path().stem().string().substr(std::string("generate_").size());
    INFO(file);
    auto out = std::filesystem::temp_directory_path() /
               ("kseek_scenarios_" + name + "_" + std::to_string(::getpid()) + ".textproto");
    std::string command = std::string(KSEEK_PYTHON3) + " " + entry.path().string() + " --output " + out.string();
    REQUIRE(std::system(command.c_str()) == 0);
    CHECK(ReadAll(out.string()) == ReadAll((root / name / "scenarios.textproto").string()));
    std::filesystem::remove(out);
    checked.insert(name);
  }
  CHECK(checked == std::set<std::string>{"attention_fwd", "gemm"});
#endif
}

}  // namespace
}  // namespace kseek
