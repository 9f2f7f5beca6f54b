#include "client/scenario_table.h"

#include <catch2/catch.hpp>
#include <string>

namespace kseek {
namespace {

using kernelseek::v1::ListScenariosResponse;
using kernelseek::v1::ScenarioSpec;

void AddSymbols(ScenarioSpec* s, std::initializer_list<std::pair<const char*, int64_t>> values) {
  for (const auto& [name, value] : values) {
    auto* v = s->add_symbol();
    v->set_name(name);
    v->set_value(value);
  }
}

void AddScalar(ScenarioSpec* s, const char* name, double value) {
  auto* v = s->add_scalar();
  v->set_name(name);
  v->set_value(value);
}

// attention_fwd's manifest (symbols and scalars only) with three scenarios:
// a perf one, a hidden-seed GQA one, and one that overrides the scale.
ListScenariosResponse AttentionScenarios() {
  ListScenariosResponse response;
  auto* manifest = response.mutable_problem();
  manifest->set_name("attention_fwd");
  for (const char* name : {"b", "s_q", "s_k", "h", "h_kv", "d"}) {
    manifest->add_symbol()->set_name(name);
  }
  manifest->add_scalar()->set_name("scale");
  manifest->add_scalar()->set_name("causal");

  ScenarioSpec* perf = response.add_scenarios();
  perf->set_id("perf-bf16-d64-causal-s512");
  perf->set_set("perf");
  perf->set_dtype(kernelseek::v1::DTYPE_BF16);
  // Out of manifest order on purpose: columns follow the manifest.
  AddSymbols(perf, {{"d", 64}, {"b", 32}, {"s_q", 512}, {"s_k", 512}, {"h", 32}, {"h_kv", 32}});
  AddScalar(perf, "causal", 1);
  perf->set_seed(5389819952912262125ULL);

  ScenarioSpec* gqa = response.add_scenarios();
  gqa->set_id("corr-fp16-d128-gqa4");
  gqa->set_set("correctness");
  gqa->set_dtype(kernelseek::v1::DTYPE_F16);
  AddSymbols(gqa, {{"b", 2}, {"s_q", 113}, {"s_k", 4097}, {"h", 8}, {"h_kv", 2}, {"d", 128}});
  AddScalar(gqa, "causal", 0);
  gqa->set_hidden_seed(true);

  ScenarioSpec* scaled = response.add_scenarios();
  scaled->set_id("corr-bf16-d96-scale");
  scaled->set_set("correctness");
  scaled->set_dtype(kernelseek::v1::DTYPE_BF16);
  AddSymbols(scaled, {{"b", 1}, {"s_q", 1}, {"s_k", 3}, {"h", 4}, {"h_kv", 1}, {"d", 96}});
  AddScalar(scaled, "causal", 0);
  AddScalar(scaled, "scale", 0.125);
  scaled->set_seed(7);
  return response;
}

TEST_CASE("scenario table: manifest symbols in order, overridden scalars, seed or hidden") {
  CHECK(FormatScenarioTable(AttentionScenarios()) ==
        "ID                         SET          DTYPE   b  s_q   s_k   h  h_kv    d  scale  causal"
        "                 SEED\n"
        "perf-bf16-d64-causal-s512  perf         bf16   32  512   512  32    32   64      -       1"
        "  5389819952912262125\n"
        "corr-fp16-d128-gqa4        correctness  fp16    2  113  4097   8     2  128      -       0"
        "               hidden\n"
        "corr-bf16-d96-scale        correctness  bf16    1    1     3   4     1   96  0.125       0"
        "                    7\n"
        "\n"
        "3 scenarios: perf 1, correctness 2\n");
}

TEST_CASE("scalars no listed scenario sets get no column") {
  ListScenariosResponse response = AttentionScenarios();
  response.mutable_scenarios()->RemoveLast();
  std::string table = FormatScenarioTable(response);
  CHECK(table.find("scale") == std::string::npos);
  CHECK(table.find("causal") != std::string::npos);
  CHECK(table.substr(table.find("\n\n")) == "\n\n2 scenarios: perf 1, correctness 1\n");
}

TEST_CASE("a manifest's defaults and baselines end the listing") {
  ListScenariosResponse response = AttentionScenarios();
  response.mutable_problem()->add_baseline()->set_name("cublas");
  response.mutable_problem()->set_default_bench_scenarios("square,llm");
  response.mutable_problem()->set_default_baseline("cublas");
  std::string table = FormatScenarioTable(response);
  CHECK(table.substr(table.find("\n\n")) ==
        "\n\n3 scenarios: perf 1, correctness 2\n"
        "defaults: verify all; bench square,llm against cublas (baselines: cublas)\n");
}

TEST_CASE("input fills get an INPUTS column, normal inputs say so") {
  ListScenariosResponse response = AttentionScenarios();
  ScenarioSpec* rise = response.add_scenarios();
  rise->set_id("rise-bf16-d128-full");
  rise->set_set("rising");
  rise->set_dtype(kernelseek::v1::DTYPE_BF16);
  AddSymbols(rise, {{"b", 1}, {"s_q", 300}, {"s_k", 300}, {"h", 4}, {"h_kv", 2}, {"d", 128}});
  rise->set_seed(9);
  auto* q = rise->add_fill();
  q->set_tensor("q");
  q->set_mean(1);
  q->set_std(0.1);
  auto* k = rise->add_fill();
  k->set_tensor("k");
  k->set_std(0.1);
  k->mutable_ramp()->set_axis(1);
  k->mutable_ramp()->set_from(24.5);
  k->mutable_ramp()->set_to(0);
  CHECK(FillLabel(*rise) == "q mean 1 sd 0.1; k sd 0.1 ramp[1] 24.5..0");
  CHECK(FillLabel(response.scenarios(0)) == "normal");
  std::string table = FormatScenarioTable(response);
  const std::string header = table.substr(0, table.find('\n'));
  CHECK(header.substr(header.size() - std::string("SEED  INPUTS").size()) == "SEED  INPUTS");
  CHECK(table.find("9  q mean 1 sd 0.1; k sd 0.1 ramp[1] 24.5..0\n") != std::string::npos);
  CHECK(table.find("5389819952912262125  normal") != std::string::npos);
  CHECK(table.substr(table.find("\n\n")) == "\n\n4 scenarios: perf 1, correctness 2, rising 1\n");
  // Without fills the column is not there.
  response.mutable_scenarios()->RemoveLast();
  CHECK(FormatScenarioTable(response).find("INPUTS") == std::string::npos);
}

TEST_CASE("an empty listing still prints the header and a zero count") {
  ListScenariosResponse response = AttentionScenarios();
  response.clear_scenarios();
  CHECK(FormatScenarioTable(response) ==
        "ID  SET  DTYPE  b  s_q  s_k  h  h_kv  d  SEED\n\n0 scenarios\n");
}

}  // namespace
}  // namespace kseek
