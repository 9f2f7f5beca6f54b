// The committed gemm problem: its manifest and scenarios load and say what
// docs/problems.md and scenarios/generate_gemm.py promise.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "problem/problem.h"
#include "problem/problem_catalog.h"

namespace kseek {
namespace {

using kernelseek::v1::ScenarioSpec;

const std::string kDir = std::string(KSEEK_SOURCE_DIR) + "/scenarios/gemm";

std::map<std::string, int64_t> Symbols(const ScenarioSpec& s) {
  std::map<std::string, int64_t> v;
  for (const auto& b : s.symbol()) v[b.name()] = b.value();
  return v;
}

TEST_CASE("gemm has 74 valid scenarios: 10 square, 24 llm, 40 ragged", "[gemm]") {
  auto problem = Problem::Load(kDir + "/problem.textproto");
  INFO(problem.status().message());
  REQUIRE(problem.ok());
  CHECK(problem->manifest().entry_point() == "gemm");
  CHECK(problem->manifest().reference() == "gemm");
  CHECK(problem->scenarios().size() == 74);
  CHECK(problem->Select("square")->size() == 10);
  CHECK(problem->Select("llm")->size() == 24);
  CHECK(problem->Select("ragged")->size() == 40);
  // Three tensors, C in the scenario's dtype, and 2 m n k FLOPs.
  REQUIRE(problem->manifest().tensor_size() == 3);
  CHECK(problem->manifest().tensor(2).name() == "c");
  CHECK(problem->manifest().tensor(2).dtype() == kernelseek::v1::DTYPE_SCENARIO);
  CHECK(*problem->Flops(*problem->FindScenario("sq-bf16-4096")) == 2.0 * 4096 * 4096 * 4096);
  CHECK(*problem->Flops(*problem->FindScenario("rag-f16-m113-n799-k203")) == 2.0 * 113 * 799 * 203);
  auto shape = problem->TensorShape(1, *problem->BindingsFor(*problem->FindScenario("rag-bf16-m113-n799-k203")));
  REQUIRE(shape.ok());
  CHECK(*shape == std::vector<int64_t>{203, 799});
}

TEST_CASE("gemm's defaults: verify all, bench the square and llm sets against cuBLAS", "[gemm]") {
  auto problem = Problem::Load(kDir + "/problem.textproto");
  REQUIRE(problem.ok());
  CHECK(problem->DefaultScenarios(false) == "all");
  CHECK(problem->DefaultScenarios(true) == "square,llm");
  auto bench = problem->Select(problem->DefaultScenarios(true));
  REQUIRE(bench.ok());
  REQUIRE(bench->size() == 34);
  CHECK(bench->front()->set() == "square");
  CHECK(bench->back()->set() == "llm");
  CHECK(problem->DefaultBaseline() == "cublas");
  CHECK(problem->BaselineNames() == std::vector<std::string>{"cublas"});
  REQUIRE(problem->FindBaseline("cublas") != nullptr);
  CHECK(problem->FindBaseline("cublas")->program() == "gemm_baseline.py");
  CHECK(std::filesystem::exists(std::string(KSEEK_SOURCE_DIR) + "/worker/baselines/gemm_baseline.py"));
  CHECK(problem->FindBaseline("cudnn") == nullptr);
}

TEST_CASE("gemm's square and llm sets are the sizes and models its generator names", "[gemm]") {
  auto problem = Problem::Load(kDir + "/problem.textproto");
  REQUIRE(problem.ok());
  std::set<std::tuple<int, int64_t>> squares;
  auto square = problem->Select("square");
  REQUIRE(square.ok());
  for (const ScenarioSpec* s : *square) {
    auto v = Symbols(*s);
    CHECK(v["m"] == v["n"]);
    CHECK(v["n"] == v["k"]);
    CHECK_FALSE(s->hidden_seed());
    squares.insert({s->dtype(), v["m"]});
  }
  CHECK(squares.size() == 10);
  for (auto [dtype, size] : squares) CHECK((size >= 512 && size <= 8192 && (size & (size - 1)) == 0));

  // (k, n) of each projection: Llama-3 8B and 70B, fused QKV, O, gate+up, down.
  std::set<std::pair<int64_t, int64_t>> want = {{4096, 6144}, {4096, 4096}, {4096, 28672}, {14336, 4096},
                                                {8192, 10240}, {8192, 8192}, {8192, 57344}, {28672, 8192}};
  std::set<std::pair<int64_t, int64_t>> layers;
  std::set<int64_t> tokens;
  auto llm = problem->Select("llm");
  REQUIRE(llm.ok());
  for (const ScenarioSpec* s : *llm) {
    auto v = Symbols(*s);
    layers.insert({v["k"], v["n"]});
    tokens.insert(v["m"]);
    CHECK(s->dtype() == kernelseek::v1::DTYPE_BF16);
  }
  CHECK(layers == want);
  CHECK(tokens == std::set<int64_t>{16, 1024, 4096});
}

TEST_CASE("gemm's ragged set has the shapes tiled kernels get wrong, half with hidden seeds", "[gemm]") {
  auto problem = Problem::Load(kDir + "/problem.textproto");
  REQUIRE(problem.ok());
  int hidden = 0, m1 = 0, n1 = 0, k1 = 0, one_element = 0;
  std::map<std::tuple<int64_t, int64_t, int64_t>, int> dtypes_per_shape;
  auto ragged = problem->Select("ragged");
  REQUIRE(ragged.ok());
  for (const ScenarioSpec* s : *ragged) {
    auto v = Symbols(*s);
    INFO(s->id());
    // Every shape is off some common tile size in at least one dimension.
    CHECK((v["m"] % 128 != 0 || v["n"] % 128 != 0 || v["k"] % 128 != 0));
    // Small enough for a quick fp32 reference.
    CHECK(double(v["m"]) * v["n"] * v["k"] <= 1.1e10);
    hidden += s->hidden_seed();
    m1 += v["m"] == 1;
    n1 += v["n"] == 1;
    k1 += v["k"] == 1;
    if (v["m"] * v["n"] == 1) {
      ++one_element;
      // One element: the bar is one rounding; a short k keeps fp32 order effects under atol.
      CHECK(v["k"] <= 32);
    }
    ++dtypes_per_shape[{v["m"], v["n"], v["k"]}];
  }
  CHECK(hidden == 20);
  CHECK(m1 >= 4);
  CHECK(n1 >= 4);
  CHECK(k1 >= 4);
  CHECK(one_element >= 2);
  CHECK(dtypes_per_shape.size() == 20);
  for (const auto& [shape, count] : dtypes_per_shape) CHECK(count == 2);
  // A tail in only one dimension at a time, each of m, n and k.
  CHECK(dtypes_per_shape.count({129, 256, 256}) == 1);
  CHECK(dtypes_per_shape.count({256, 257, 256}) == 1);
  CHECK(dtypes_per_shape.count({256, 256, 130}) == 1);
}

TEST_CASE("the catalog lists gemm beside attention_fwd, each with its own sets and baselines", "[gemm]") {
  absl::StatusOr<ProblemCatalog> catalog = ProblemCatalog::Load(std::string(KSEEK_SOURCE_DIR) + "/scenarios");
  REQUIRE(catalog.ok());
  CHECK(catalog->Names() == std::vector<std::string>{"attention_fwd", "gemm"});
  absl::StatusOr<const Problem*> gemm = catalog->Find("gemm");
  REQUIRE(gemm.ok());
  std::set<std::string> sets;
  for (const ScenarioSpec& s : (*gemm)->scenarios()) sets.insert(s.set());
  CHECK(sets == std::set<std::string>{"square", "llm", "ragged"});
  CHECK((*gemm)->DefaultBaseline() == "cublas");
  absl::StatusOr<const Problem*> attention = catalog->Find("attention_fwd");
  REQUIRE(attention.ok());
  CHECK((*attention)->DefaultBaseline() == "cudnn");
  CHECK((*attention)->DefaultScenarios(true) == "perf");
}

}  // namespace
}  // namespace kseek
