#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "worker/runner/scenario_layout.h"
#include "worker/runner/seeds.h"

namespace kseek::runner {
namespace {

const std::string kManifest =
    std::string(KSEEK_SOURCE_DIR) + "/scenarios/attention_fwd/problem.textproto";

TEST_CASE("KseekArgs for a GQA causal scenario", "[abi]") {
  auto problem = Problem::Load(kManifest);
  REQUIRE(problem.ok());
  const kernelseek::v1::ScenarioSpec* scenario = nullptr;
  for (const auto& s : problem->scenarios()) {
    bool causal = false;
    for (const auto& v : s.scalar()) causal |= v.name() == "causal" && v.value() == 1;
    std::map<std::string, int64_t> sym;
    for (const auto& v : s.symbol()) sym[v.name()] = v.value();
    if (causal && sym["h"] == 4 * sym["h_kv"] && sym["s_q"] != sym["s_k"] &&
        s.dtype() == kernelseek::v1::DTYPE_F16) {
      scenario = &s;
      break;
    }
  }
  REQUIRE(scenario != nullptr);
  auto layout = BuildScenarioLayout(*problem, *scenario);
  REQUIRE(layout.ok());
  const Bindings& v = layout->bindings;
  const int64_t b = v.at("b"), s_q = v.at("s_q"), s_k = v.at("s_k"), h = v.at("h"),
                h_kv = v.at("h_kv"), d = v.at("d");

  std::vector<void*> data;
  for (size_t i = 0; i < layout->tensors.size(); ++i) {
    data.push_back(reinterpret_cast<void*>(0x1000 * (i + 1)));
  }
  auto args = PackKseekArgs(*layout, data);
  REQUIRE(args.ok());
  CHECK(args->abi_version == KSEEK_ABI_VERSION);
  REQUIRE(args->num_tensors == 5);
  const KseekTensor& q = args->tensors[0];
  CHECK(q.data == data[0]);
  CHECK(q.dtype == KSEEK_F16);
  CHECK(q.rank == 4);
  CHECK((q.shape[0] == b && q.shape[1] == s_q && q.shape[2] == h && q.shape[3] == d));
  CHECK((q.stride[0] == s_q * h * d && q.stride[1] == h * d && q.stride[2] == d &&
         q.stride[3] == 1));
  const KseekTensor& k = args->tensors[1];
  CHECK((k.shape[1] == s_k && k.shape[2] == h_kv && k.stride[1] == h_kv * d));
  const KseekTensor& lse = args->tensors[4];
  CHECK(lse.dtype == KSEEK_F32);
  CHECK(lse.rank == 3);
  CHECK((lse.shape[0] == b && lse.shape[1] == h && lse.shape[2] == s_q));
  CHECK((lse.stride[0] == h * s_q && lse.stride[1] == s_q && lse.stride[2] == 1));
  CHECK(layout->tensors[3].bytes == static_cast<size_t>(b * s_q * h * d * 2));

  REQUIRE(args->num_scalars == 2);
  CHECK(std::strcmp(args->scalars[0].name, "scale") == 0);
  CHECK(args->scalars[0].value == Approx(1.0 / std::sqrt(double(d))));
  CHECK(std::strcmp(args->scalars[1].name, "causal") == 0);
  CHECK(args->scalars[1].value == 1.0);
  CHECK(layout->flops == Approx(4.0 * b * h * s_q * s_k * d / 2));
}

TEST_CASE("A rising scenario's fills resolve to K's key axis, other inputs standard normal", "[abi]") {
  auto problem = Problem::Load(kManifest);
  REQUIRE(problem.ok());
  const kernelseek::v1::ScenarioSpec* scenario =
      problem->FindScenario("rise-bf16-d96-causal-first-r400-b1-q300-k1000");
  REQUIRE(scenario != nullptr);
  auto layout = BuildScenarioLayout(*problem, *scenario);
  REQUIRE(layout.ok());
  const TensorLayout& q = layout->tensors[0];
  const TensorLayout& k = layout->tensors[1];
  const TensorLayout& v = layout->tensors[2];
  CHECK((q.fill.mean == 1 && q.fill.std == 0.1 && q.fill.ramp_stride == 0));
  CHECK((k.fill.mean == 0 && k.fill.std == 0.1));
  // K is [b, s_k, h_kv, d]: one ramp step per key, over all 1000 keys.
  CHECK(k.fill.ramp_stride == 2 * 96);
  CHECK(k.fill.ramp_extent == 1000);
  CHECK(k.fill.ramp_to == 0);
  // 400 log2 units of score across the keys: sqrt(d) * from = 400 ln 2.
  CHECK(std::abs(k.fill.ramp_from * std::sqrt(96.0) - 400 * std::log(2.0)) < 1e-2);
  CHECK((v.fill.mean == 0 && v.fill.std == 1 && v.fill.ramp_stride == 0));
}

TEST_CASE("PackKseekArgs rejects a pointer count that does not match", "[abi]") {
  auto problem = Problem::Load(kManifest);
  REQUIRE(problem.ok());
  auto layout = BuildScenarioLayout(*problem, problem->scenarios()[0]);
  REQUIRE(layout.ok());
  CHECK_FALSE(PackKseekArgs(*layout, {nullptr, nullptr}).ok());
}

TEST_CASE("Hidden seeds depend on the key and the scenario, and need a real key", "[seeds]") {
  const std::string key(32, 'a');
  const std::string other = std::string(31, 'a') + "b";
  CHECK(*HiddenSeed(key, "x") == *HiddenSeed(key, "x"));
  CHECK(*HiddenSeed(key, "x") != *HiddenSeed(key, "y"));
  CHECK(*HiddenSeed(key, "x") != *HiddenSeed(other, "x"));
  CHECK_FALSE(HiddenSeed("abcd", "x").ok());
  CHECK_FALSE(HiddenSeed(std::string(32, 'g'), "x").ok());
  CHECK(InputSetSeed(42, 0) == 42);
  CHECK(InputSetSeed(42, 1) != 42);
}

}  // namespace
}  // namespace kseek::runner
