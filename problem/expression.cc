#include "problem/expression.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kseek {

struct Expression::Node {
  enum class Kind { kNumber, kName, kUnary, kBinary, kCall };
  Kind kind = Kind::kNumber;
  double number = 0;
  std::string name;  // kName, kCall (function), kUnary/kBinary (operator)
  std::vector<std::shared_ptr<const Node>> args;
};

namespace {

using Node = Expression::Node;
using NodePtr = std::shared_ptr<const Node>;

// Deep enough for any formula a person writes, shallow enough that a
// malicious manifest cannot exhaust the stack.
constexpr int kMaxDepth = 64;
constexpr size_t kMaxLength = 4096;

// Recursive-descent parser; one instance per Parse call.
class Parser {
 public:
  explicit Parser(absl::string_view text) : text_(text) {}

  absl::StatusOr<NodePtr> ParseAll() {
    absl::StatusOr<NodePtr> root = ParseOr(0);
    if (!root.ok()) return root;
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected '" + std::string(1, text_[pos_]) + "'");
    return root;
  }

 private:
  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("expression '", text_, "': column ", pos_ + 1, ": ", what));
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  // Consumes `op` if it is next (and, for one-character operators that prefix
  // a two-character one, not followed by '=' / the same character).
  bool Accept(absl::string_view op) {
    SkipSpace();
    if (text_.substr(pos_, op.size()) != op) return false;
    if (op.size() == 1 && pos_ + 1 < text_.size()) {
      char next = text_[pos_ + 1];
      if ((op == "<" || op == ">" || op == "!" || op == "=") && next == '=') return false;
      if ((op == "&" || op == "|") && next == op[0]) return false;
    }
    pos_ += op.size();
    return true;
  }

  static NodePtr MakeBinary(std::string op, NodePtr lhs, NodePtr rhs) {
    auto node = std::make_shared<Node>();
    node->kind = Node::Kind::kBinary;
    node->name = std::move(op);
    node->args = {std::move(lhs), std::move(rhs)};
    return node;
  }

  // One precedence level of left-associative binary operators.
  template <typename Next>
  absl::StatusOr<NodePtr> ParseLevel(int depth, std::initializer_list<absl::string_view> ops,
                                     Next next) {
    absl::StatusOr<NodePtr> lhs = (this->*next)(depth + 1);
    if (!lhs.ok()) return lhs;
    NodePtr result = *std::move(lhs);
    for (;;) {
      absl::string_view matched;
      for (absl::string_view op : ops) {
        if (Accept(op)) {
          matched = op;
          break;
        }
      }
      if (matched.empty()) return result;
      absl::StatusOr<NodePtr> rhs = (this->*next)(depth + 1);
      if (!rhs.ok()) return rhs;
      result = MakeBinary(std::string(matched), result, *std::move(rhs));
    }
  }

  absl::StatusOr<NodePtr> ParseOr(int depth) {
    if (depth > kMaxDepth) return Error("nested too deeply");
    return ParseLevel(depth, {"||"}, &Parser::ParseAnd);
  }
  absl::StatusOr<NodePtr> ParseAnd(int depth) {
    return ParseLevel(depth, {"&&"}, &Parser::ParseCompare);
  }
  absl::StatusOr<NodePtr> ParseCompare(int depth) {
    return ParseLevel(depth, {"==", "!=", "<=", ">=", "<", ">"}, &Parser::ParseSum);
  }
  absl::StatusOr<NodePtr> ParseSum(int depth) {
    return ParseLevel(depth, {"+", "-"}, &Parser::ParseProduct);
  }
  absl::StatusOr<NodePtr> ParseProduct(int depth) {
    return ParseLevel(depth, {"*", "/", "%"}, &Parser::ParseUnary);
  }

  absl::StatusOr<NodePtr> ParseUnary(int depth) {
    if (depth > kMaxDepth) return Error("nested too deeply");
    for (absl::string_view op : {"-", "!", "+"}) {
      if (Accept(op)) {
        absl::StatusOr<NodePtr> operand = ParseUnary(depth + 1);
        if (!operand.ok()) return operand;
        if (op == "+") return operand;
        auto node = std::make_shared<Node>();
        node->kind = Node::Kind::kUnary;
        node->name = std::string(op);
        node->args = {*std::move(operand)};
        return NodePtr(node);
      }
    }
    return ParsePrimary(depth + 1);
  }

  absl::StatusOr<NodePtr> ParsePrimary(int depth) {
    if (depth > kMaxDepth) return Error("nested too deeply");
    SkipSpace();
    if (pos_ >= text_.size()) return Error("expected a number, name or '(' at the end");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      absl::StatusOr<NodePtr> inner = ParseOr(depth + 1);
      if (!inner.ok()) return inner;
      if (!Accept(")")) return Error("expected ')'");
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      char* end = nullptr;
      std::string copy(text_.substr(pos_));
      double value = std::strtod(copy.c_str(), &end);
      size_t used = static_cast<size_t>(end - copy.c_str());
      if (used == 0) return Error("bad number");
      pos_ += used;
      auto node = std::make_shared<Node>();
      node->number = value;
      return NodePtr(node);
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        ++pos_;
      }
      std::string name(text_.substr(start, pos_ - start));
      auto node = std::make_shared<Node>();
      node->name = name;
      if (!Accept("(")) {
        node->kind = Node::Kind::kName;
        return NodePtr(node);
      }
      static const std::map<std::string, size_t> kArity = {
          {"sqrt", 1}, {"floor", 1}, {"ceil", 1}, {"min", 2}, {"max", 2}};
      auto arity = kArity.find(name);
      if (arity == kArity.end()) {
        pos_ = start;
        return Error("unknown function '" + name + "' (sqrt, floor, ceil, min, max)");
      }
      node->kind = Node::Kind::kCall;
      for (size_t i = 0; i < arity->second; ++i) {
        if (i > 0 && !Accept(",")) return Error("expected ',' in " + name + "()");
        absl::StatusOr<NodePtr> arg = ParseOr(depth + 1);
        if (!arg.ok()) return arg;
        node->args.push_back(*std::move(arg));
      }
      if (!Accept(")")) return Error("expected ')' after the arguments of " + name + "()");
      return NodePtr(node);
    }
    return Error("expected a number, name or '(' but found '" + std::string(1, c) + "'");
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

absl::StatusOr<double> Eval(const Node& node, const Bindings& bindings, const std::string& text) {
  auto error = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("expression '", text, "': ", what));
  };
  switch (node.kind) {
    case Node::Kind::kNumber:
      return node.number;
    case Node::Kind::kName: {
      auto it = bindings.find(node.name);
      if (it == bindings.end()) return error("unknown name '" + node.name + "'");
      return it->second;
    }
    default:
      break;
  }
  std::vector<double> values;
  for (const NodePtr& arg : node.args) {
    absl::StatusOr<double> v = Eval(*arg, bindings, text);
    if (!v.ok()) return v;
    values.push_back(*v);
  }
  const std::string& op = node.name;
  if (node.kind == Node::Kind::kUnary) return op == "-" ? -values[0] : double(values[0] == 0);
  if (node.kind == Node::Kind::kCall) {
    if (op == "sqrt") {
      if (values[0] < 0) return error(absl::StrCat("sqrt of negative value ", values[0]));
      return std::sqrt(values[0]);
    }
    if (op == "floor") return std::floor(values[0]);
    if (op == "ceil") return std::ceil(values[0]);
    if (op == "min") return std::min(values[0], values[1]);
    return std::max(values[0], values[1]);
  }
  double a = values[0], b = values[1];
  if (op == "+") return a + b;
  if (op == "-") return a - b;
  if (op == "*") return a * b;
  if (op == "/") {
    if (b == 0) return error("division by zero");
    return a / b;
  }
  if (op == "%") {
    if (a != std::floor(a) || b != std::floor(b)) {
      return error(absl::StrCat("'%' needs integers, got ", a, " % ", b));
    }
    if (b == 0) return error("modulo by zero");
    return std::fmod(a, b);
  }
  if (op == "==") return double(a == b);
  if (op == "!=") return double(a != b);
  if (op == "<") return double(a < b);
  if (op == "<=") return double(a <= b);
  if (op == ">") return double(a > b);
  if (op == ">=") return double(a >= b);
  if (op == "&&") return double(a != 0 && b != 0);
  return double(a != 0 || b != 0);  // "||", the only operator left
}

void CollectNames(const Node& node, std::set<std::string>* names) {
  if (node.kind == Node::Kind::kName) names->insert(node.name);
  for (const NodePtr& arg : node.args) CollectNames(*arg, names);
}

}  // namespace

absl::StatusOr<Expression> Expression::Parse(absl::string_view text) {
  if (text.size() > kMaxLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("expression of ", text.size(), " characters; the limit is ", kMaxLength));
  }
  bool blank = true;
  for (char c : text) blank = blank && std::isspace(static_cast<unsigned char>(c));
  if (blank) return absl::InvalidArgumentError("empty expression");
  absl::StatusOr<NodePtr> root = Parser(text).ParseAll();
  if (!root.ok()) return root.status();
  return Expression(std::string(text), *std::move(root));
}

absl::StatusOr<double> Expression::Evaluate(const Bindings& bindings) const {
  absl::StatusOr<double> value = Eval(*root_, bindings, text_);
  if (value.ok() && !std::isfinite(*value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("expression '", text_, "' evaluates to ", *value));
  }
  return value;
}

std::vector<std::string> Expression::Names() const {
  std::set<std::string> names;
  CollectNames(*root_, &names);
  return {names.begin(), names.end()};
}

}  // namespace kseek
