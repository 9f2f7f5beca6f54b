// Expression: a formula from a problem manifest (a shape dimension, a scalar
// default, the FLOP count or a constraint), parsed once, evaluated per
// scenario. The language (numbers, names, + - * / %, comparisons, && || !,
// parentheses, sqrt/min/max/floor/ceil) has no loops or side effects, so a
// manifest can only make the runner do arithmetic. Immutable after Parse;
// copies share the tree; safe to use from several threads.
#ifndef KERNELSEEK_PROBLEM_EXPRESSION_H_
#define KERNELSEEK_PROBLEM_EXPRESSION_H_

#include <map>
#include <memory>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"

namespace kseek {

// Values of symbols and scalars by name.
using Bindings = std::map<std::string, double, std::less<>>;

class Expression {
 public:
  // INVALID_ARGUMENT naming the column of the first syntax error.
  static absl::StatusOr<Expression> Parse(absl::string_view text);

  // INVALID_ARGUMENT for a name missing from `bindings`, a division by zero,
  // `%` on non-integers, or a non-finite result.
  absl::StatusOr<double> Evaluate(const Bindings& bindings) const;

  // Every name the expression reads (not function names), sorted, unique.
  std::vector<std::string> Names() const;

  const std::string& text() const { return text_; }

  struct Node;

 private:
  Expression(std::string text, std::shared_ptr<const Node> root)
      : text_(std::move(text)), root_(std::move(root)) {}

  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace kseek

#endif  // KERNELSEEK_PROBLEM_EXPRESSION_H_
