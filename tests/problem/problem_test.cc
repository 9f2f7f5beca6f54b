#include <catch2/catch.hpp>

#include <string>

#include "problem/problem.h"

namespace kseek {
namespace {

// A small valid manifest; tests break one thing at a time.
const char kManifest[] = R"pb(name: "toy"
entry_point: "toy"
symbol { name: "n" min: 1 }
symbol { name: "h" }
symbol { name: "h_kv" }
symbol { name: "d" allowed: [64, 128] }
constraint { expr: "h % h_kv == 0" message: "h must be a multiple of h_kv" }
dtypes: [DTYPE_BF16]
tensor { name: "x" role: TENSOR_ROLE_INPUT dtype: DTYPE_SCENARIO shape: ["n", "h", "d"] }
tensor { name: "y" role: TENSOR_ROLE_OUTPUT dtype: DTYPE_F32 shape: ["n", "h_kv"] }
scalar { name: "scale" default_value: "1 / sqrt(d)" }
flops: "2 * n * h * d"
tolerance { output: "y" rtol_factor: 2 atol: 0 }
reference: "toy"
scenarios_file: "s.textproto"
)pb";

const char kScenarios[] = R"pb(problem: "toy"
scenario {
  id: "a" set: "small" dtype: DTYPE_BF16 seed: 7
  symbol { name: "n" value: 3 } symbol { name: "h" value: 8 }
  symbol { name: "h_kv" value: 2 } symbol { name: "d" value: 64 }
}
scenario {
  id: "b" set: "small" dtype: DTYPE_BF16 hidden_seed: true
  symbol { name: "n" value: 1 } symbol { name: "h" value: 4 }
  symbol { name: "h_kv" value: 4 } symbol { name: "d" value: 128 }
}
)pb";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string ErrorOf(const std::string& manifest, const std::string& scenarios) {
  auto problem = Problem::Parse(manifest, "m.textproto", scenarios, "s.textproto");
  REQUIRE_FALSE(problem.ok());
  CHECK(problem.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(problem.status().message());
}

TEST_CASE("A valid manifest parses with its scenarios", "[problem]") {
  auto problem = Problem::Parse(kManifest, "m.textproto", kScenarios, "s.textproto");
  REQUIRE(problem.ok());
  CHECK(problem->scenarios().size() == 2);
  CHECK(*problem->Flops(problem->scenarios()[0]) == 2.0 * 3 * 8 * 64);
  auto bindings = problem->BindingsFor(problem->scenarios()[1]);
  REQUIRE(bindings.ok());
  CHECK(bindings->at("scale") == Approx(1 / std::sqrt(128.0)));
  auto selected = problem->Select("b,a");
  REQUIRE(selected.ok());
  CHECK((*selected)[0]->id() == "b");
  CHECK(problem->Select("small")->size() == 2);
  CHECK(problem->Select("all")->size() == 2);
  // Sets and ids mix in one list, each scenario once, in the list's order.
  auto mixed = problem->Select("b,small");
  REQUIRE(mixed.ok());
  REQUIRE(mixed->size() == 2);
  CHECK((*mixed)[0]->id() == "b");
  CHECK((*mixed)[1]->id() == "a");
  auto unknown = problem->Select("a,zzz");
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(std::string(unknown.status().message()), Catch::Contains("'zzz'"));
}

TEST_CASE("The manifest says a job's default scenarios and baseline", "[problem]") {
  auto bare = Problem::Parse(kManifest, "m.textproto", kScenarios, "s.textproto");
  REQUIRE(bare.ok());
  CHECK(bare->DefaultScenarios(false) == "all");
  CHECK(bare->DefaultScenarios(true) == "all");
  CHECK(bare->DefaultBaseline() == "none");
  CHECK(bare->FindBaseline("cudnn") == nullptr);

  const std::string with_defaults = std::string(kManifest) +
                                    "baseline { name: \"ref\" program: \"toy_baseline.py\" }\n"
                                    "default_verify_scenarios: \"a\"\n"
                                    "default_bench_scenarios: \"small\"\n"
                                    "default_baseline: \"ref\"\n";
  auto problem = Problem::Parse(with_defaults, "m.textproto", kScenarios, "s.textproto");
  REQUIRE(problem.ok());
  CHECK(problem->DefaultScenarios(false) == "a");
  CHECK(problem->DefaultScenarios(true) == "small");
  CHECK(problem->DefaultBaseline() == "ref");
  REQUIRE(problem->FindBaseline("ref") != nullptr);
  CHECK(problem->FindBaseline("ref")->program() == "toy_baseline.py");
}

TEST_CASE("Manifest defaults must name a declared baseline and a selection that exists", "[problem]") {
  const std::string baseline = "baseline { name: \"ref\" program: \"toy_baseline.py\" }\n";
  CHECK_THAT(ErrorOf(std::string(kManifest) + baseline + "default_baseline: \"cudnn\"\n", kScenarios),
             Catch::Contains("default_baseline 'cudnn' is not one of the manifest's baselines (ref)"));
  CHECK_THAT(ErrorOf(std::string(kManifest) + "default_bench_scenarios: \"perf\"\n", kScenarios),
             Catch::Contains("default_bench_scenarios: --scenarios: 'perf' is neither"));
  CHECK_THAT(ErrorOf(std::string(kManifest) + baseline + baseline, kScenarios),
             Catch::Contains("baseline 'ref' is declared twice"));
  CHECK_THAT(ErrorOf(std::string(kManifest) + "baseline { name: \"x\" program: \"../x.py\" }\n", kScenarios),
             Catch::Contains("program '../x.py' must be a plain file name"));
  CHECK_THAT(ErrorOf(std::string(kManifest) + "baseline { name: \"none\" program: \"n.py\" }\n", kScenarios),
             Catch::Contains("baseline 'none': a name must be"));
}

TEST_CASE("Manifest syntax errors carry file, line and column", "[problem]") {
  std::string typo = Replace(kManifest, "flops:", "flop:");
  CHECK_THAT(ErrorOf(typo, kScenarios), Catch::Contains("m.textproto:12:"));
  std::string bad_enum = Replace(kManifest, "dtype: DTYPE_F32", "dtype: DTYPE_F33");
  CHECK_THAT(ErrorOf(bad_enum, kScenarios), Catch::Contains("m.textproto:10:"));
}

TEST_CASE("Manifest validation names the line of the bad field", "[problem]") {
  std::string unknown_symbol = Replace(kManifest, "shape: [\"n\", \"h_kv\"]", "shape: [\"n\", \"hkv\"]");
  std::string message = ErrorOf(unknown_symbol, kScenarios);
  CHECK_THAT(message, Catch::Contains("m.textproto:10:"));
  CHECK_THAT(message, Catch::Contains("unknown name 'hkv'"));

  std::string no_rule = Replace(kManifest, "tolerance { output: \"y\" rtol_factor: 2 atol: 0 }", "");
  CHECK_THAT(ErrorOf(no_rule, kScenarios), Catch::Contains("output 'y' has no tolerance rule"));

  std::string rule_on_input = Replace(kManifest, "output: \"y\"", "output: \"x\"");
  CHECK_THAT(ErrorOf(rule_on_input, kScenarios), Catch::Contains("m.textproto:13:"));

  std::string bad_formula = Replace(kManifest, "2 * n * h * d", "2 * n * * d");
  CHECK_THAT(ErrorOf(bad_formula, kScenarios), Catch::Contains("m.textproto:12: flops"));

  std::string bad_entry = Replace(kManifest, "entry_point: \"toy\"", "entry_point: \"my-kernel\"");
  CHECK_THAT(ErrorOf(bad_entry, kScenarios), Catch::Contains("m.textproto:2:"));
}

TEST_CASE("Scenario validation names the scenario and its line", "[problem]") {
  std::string bad_ratio = Replace(kScenarios, "name: \"h_kv\" value: 2", "name: \"h_kv\" value: 3");
  std::string message = ErrorOf(kManifest, bad_ratio);
  CHECK_THAT(message, Catch::Contains("s.textproto:2: scenario 'a'"));
  CHECK_THAT(message, Catch::Contains("h must be a multiple of h_kv"));

  std::string bad_d = Replace(kScenarios, "name: \"d\" value: 128", "name: \"d\" value: 96");
  message = ErrorOf(kManifest, bad_d);
  CHECK_THAT(message, Catch::Contains("s.textproto:7: scenario 'b': d = 96"));

  std::string unknown = Replace(kScenarios, "name: \"n\" value: 3", "name: \"m\" value: 3");
  message = ErrorOf(kManifest, unknown);
  CHECK_THAT(message, Catch::Contains("s.textproto:4: scenario 'a': unknown symbol 'm'"));
  CHECK_THAT(message, Catch::Contains("symbol 'n' is not set"));

  std::string both_seeds = Replace(kScenarios, "hidden_seed: true", "hidden_seed: true seed: 4");
  CHECK_THAT(ErrorOf(kManifest, both_seeds), Catch::Contains("exactly one of"));

  std::string duplicate = Replace(kScenarios, "id: \"b\"", "id: \"a\"");
  CHECK_THAT(ErrorOf(kManifest, duplicate), Catch::Contains("s.textproto:7: scenario id 'a' is used twice"));

  std::string wrong_dtype = Replace(kScenarios, "id: \"b\" set: \"small\" dtype: DTYPE_BF16",
                                    "id: \"b\" set: \"small\" dtype: DTYPE_F16");
  CHECK_THAT(ErrorOf(kManifest, wrong_dtype), Catch::Contains("s.textproto:8:"));
}

TEST_CASE("A scenario's input fills must name input tensors, once, with finite values", "[problem]") {
  const std::string with_fill = Replace(
      kScenarios, "symbol { name: \"h_kv\" value: 2 } symbol { name: \"d\" value: 64 }",
      "symbol { name: \"h_kv\" value: 2 } symbol { name: \"d\" value: 64 }\n"
      "  fill { tensor: \"x\" mean: 1 std: 0.5 ramp { axis: 1 from: 3 to: 0 } }");
  auto problem = Problem::Parse(kManifest, "m.textproto", with_fill, "s.textproto");
  REQUIRE(problem.ok());
  const auto& fill = problem->FindScenario("a")->fill(0);
  CHECK(fill.mean() == 1);
  CHECK(fill.ramp().from() == 3);

  auto broken = [&](const std::string& from, const std::string& to) {
    return ErrorOf(kManifest, Replace(with_fill, from, to));
  };
  CHECK_THAT(broken("tensor: \"x\"", "tensor: \"y\""),
             Catch::Contains("s.textproto:6: scenario 'a': fill of 'y': not an input tensor"));
  CHECK_THAT(broken("tensor: \"x\"", "tensor: \"z\""), Catch::Contains("fill of 'z': not an input"));
  CHECK_THAT(broken("axis: 1", "axis: 3"), Catch::Contains("ramp axis 3 is outside the tensor's 3 axes"));
  CHECK_THAT(broken("axis: 1", "axis: -1"), Catch::Contains("ramp axis -1 is outside the tensor's 3 axes"));
  CHECK_THAT(broken("std: 0.5", "std: -1"), Catch::Contains("std finite and >= 0"));
  CHECK_THAT(broken("mean: 1", "mean: inf"), Catch::Contains("mean must be finite"));
  CHECK_THAT(broken("from: 3", "from: nan"), Catch::Contains("ramp ends must be finite"));
  CHECK_THAT(broken("fill { tensor: \"x\" mean: 1",
                    "fill { tensor: \"x\" } fill { tensor: \"x\" mean: 1"),
             Catch::Contains("fill of 'x': set twice"));
}

TEST_CASE("Load reports a missing scenario file", "[problem]") {
  auto problem = Problem::Load(std::string(KSEEK_SOURCE_DIR) + "/no/such/problem.textproto");
  REQUIRE_FALSE(problem.ok());
  CHECK(problem.status().code() == absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace kseek
