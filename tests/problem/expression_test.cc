#include <catch2/catch.hpp>

#include "problem/expression.h"

namespace kseek {
namespace {

TEST_CASE("Expression evaluates the attention FLOP formula", "[expression]") {
  auto expr = Expression::Parse("4 * b * h * s_q * s_k * d / (1 + causal)");
  REQUIRE(expr.ok());
  Bindings v{{"b", 2}, {"h", 16}, {"s_q", 512}, {"s_k", 512}, {"d", 128}, {"causal", 0}};
  CHECK(*expr->Evaluate(v) == 4.0 * 2 * 16 * 512 * 512 * 128);
  v["causal"] = 1;
  CHECK(*expr->Evaluate(v) == 2.0 * 2 * 16 * 512 * 512 * 128);
  CHECK(expr->Names() == std::vector<std::string>{"b", "causal", "d", "h", "s_k", "s_q"});
}

TEST_CASE("Expression supports functions, comparisons and precedence", "[expression]") {
  Bindings v{{"d", 64}, {"h", 8}, {"h_kv", 2}};
  CHECK(*Expression::Parse("1 / sqrt(d)")->Evaluate(v) == Approx(0.125));
  CHECK(*Expression::Parse("h % h_kv == 0 && d >= 64")->Evaluate(v) == 1);
  CHECK(*Expression::Parse("h % 3 == 0 || !(d != 64)")->Evaluate(v) == 1);
  CHECK(*Expression::Parse("2 + 3 * 4 - -1")->Evaluate(v) == 15);
  CHECK(*Expression::Parse("max(h, d) - min(h, d) + floor(2.5) + ceil(0.5)")->Evaluate(v) == 59);
}

TEST_CASE("Expression reports syntax errors with the column", "[expression]") {
  auto bad = Expression::Parse("4 * b *");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(std::string(bad.status().message()), Catch::Contains("column 8"));
  auto call = Expression::Parse("exp(d)");
  REQUIRE_FALSE(call.ok());
  CHECK_THAT(std::string(call.status().message()), Catch::Contains("unknown function 'exp'"));
  CHECK_FALSE(Expression::Parse("(1 + 2").ok());
  CHECK_FALSE(Expression::Parse("   ").ok());
  CHECK_FALSE(Expression::Parse(std::string(200, '(') + "1" + std::string(200, ')')).ok());
}

TEST_CASE("Expression evaluation errors name the problem", "[expression]") {
  auto expr = Expression::Parse("b / (h - 8)");
  REQUIRE(expr.ok());
  auto zero = expr->Evaluate({{"b", 1}, {"h", 8}});
  REQUIRE_FALSE(zero.ok());
  CHECK_THAT(std::string(zero.status().message()), Catch::Contains("division by zero"));
  auto missing = expr->Evaluate({{"b", 1}});
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(std::string(missing.status().message()), Catch::Contains("unknown name 'h'"));
  CHECK_FALSE(Expression::Parse("1.5 % 1")->Evaluate({}).ok());
  CHECK_FALSE(Expression::Parse("sqrt(0 - 1)")->Evaluate({}).ok());
}

}  // namespace
}  // namespace kseek
