#include "problem/problem.h"

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"

namespace kseek {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::TextFormat;
using kernelseek::v1::ProblemManifest;
using kernelseek::v1::ScenarioFile;
using kernelseek::v1::ScenarioSpec;
using kernelseek::v1::TensorDtype;
using kernelseek::v1::TensorRole;

// More errors than this are summarised: the first ones are what to fix.
constexpr int kMaxErrors = 25;

// Error messages with "FILE:LINE: " prefixes, in the order found.
class ErrorList {
 public:
  void Add(absl::string_view file, int line0, const std::string& message) {
    ++count_;
    if (count_ > kMaxErrors) return;
    if (line0 >= 0) {
      lines_.push_back(absl::StrCat(file, ":", line0 + 1, ": ", message));
    } else {
      lines_.push_back(absl::StrCat(file, ": ", message));
    }
  }
  bool empty() const { return count_ == 0; }
  int count() const { return count_; }
  absl::Status ToStatus() const {
    std::string text = absl::StrJoin(lines_, "\n");
    if (count_ > kMaxErrors) absl::StrAppend(&text, "\n(", count_ - kMaxErrors, " more errors)");
    return absl::InvalidArgumentError(text);
  }

 private:
  int count_ = 0;
  std::vector<std::string> lines_;
};

// Collects protobuf's text-format syntax errors with their positions.
class SyntaxErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  SyntaxErrorCollector(absl::string_view file, ErrorList* errors) : file_(file), errors_(errors) {}
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    errors_->Add(file_, line, absl::StrCat(column + 1, ": ", message));
  }
  void AddWarning(int line, google::protobuf::io::ColumnNumber column,
                  const std::string& message) override {}

 private:
  std::string file_;
  ErrorList* errors_;
};

// Where things are in one parsed text file, for error messages.
class Locator {
 public:
  explicit Locator(const TextFormat::ParseInfoTree* tree) : tree_(tree) {}

  // 0-based line of `field` (element `index` if repeated) in `msg`, or of the
  // enclosing message when the field was not written; -1 if unknown.
  int Line(const Message& msg, absl::string_view field, int index = -1) const {
    const FieldDescriptor* fd = msg.GetDescriptor()->FindFieldByName(std::string(field));
    if (tree_ == nullptr || fd == nullptr) return fallback_;
    int line = tree_->GetLocation(fd, fd->is_repeated() ? std::max(index, 0) : -1).line;
    return line >= 0 ? line : fallback_;
  }

  // The locator of element `index` of the message field `field`.
  Locator Nested(const Message& msg, absl::string_view field, int index = -1) const {
    const FieldDescriptor* fd = msg.GetDescriptor()->FindFieldByName(std::string(field));
    if (tree_ == nullptr || fd == nullptr) return Locator(nullptr, fallback_);
    int line = Line(msg, field, index);
    return Locator(tree_->GetTreeForNested(fd, fd->is_repeated() ? index : -1), line);
  }

 private:
  Locator(const TextFormat::ParseInfoTree* tree, int fallback) : tree_(tree), fallback_(fallback) {}

  const TextFormat::ParseInfoTree* tree_;
  int fallback_ = -1;
};

bool IsIdentifier(absl::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

bool IsScenarioId(absl::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

bool ParseText(absl::string_view text, absl::string_view file, Message* out,
               TextFormat::ParseInfoTree* tree, ErrorList* errors) {
  SyntaxErrorCollector collector(file, errors);
  TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  parser.WriteLocationsTo(tree);
  return parser.ParseFromString(std::string(text), out);
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Checks that `expr` reads only names in `allowed`.
void CheckNames(const Expression& expr, const std::set<std::string>& allowed,
                absl::string_view what, absl::string_view file, int line, ErrorList* errors) {
  for (const std::string& name : expr.Names()) {
    if (allowed.count(name) == 0) {
      errors->Add(file, line,
                  absl::StrCat(what, " '", expr.text(), "' uses unknown name '", name, "'"));
    }
  }
}

std::optional<Expression> ParseExpr(const std::string& text, absl::string_view what,
                                    absl::string_view file, int line, ErrorList* errors) {
  absl::StatusOr<Expression> expr = Expression::Parse(text);
  if (!expr.ok()) {
    errors->Add(file, line, absl::StrCat(what, ": ", expr.status().message()));
    return std::nullopt;
  }
  return *std::move(expr);
}

}  // namespace

absl::StatusOr<Problem> Problem::Load(const std::string& manifest_path) {
  absl::StatusOr<std::string> manifest_text = ReadFile(manifest_path);
  if (!manifest_text.ok()) return manifest_text.status();
  // The scenario file's name is inside the manifest; a quick parse finds it
  // (errors, if any, are reported by the full Parse below).
  ProblemManifest peek;
  TextFormat::Parser quiet;
  quiet.AllowPartialMessage(true);
  ErrorList discard;
  SyntaxErrorCollector discard_collector(manifest_path, &discard);
  quiet.RecordErrorsTo(&discard_collector);
  std::string scenarios_path;
  std::string scenarios_text;
  if (quiet.ParseFromString(*manifest_text, &peek) && !peek.scenarios_file().empty()) {
    std::string dir;
    size_t slash = manifest_path.rfind('/');
    if (slash != std::string::npos) dir = manifest_path.substr(0, slash + 1);
    scenarios_path = peek.scenarios_file()[0] == '/' ? peek.scenarios_file()
                                                     : dir + peek.scenarios_file();
    absl::StatusOr<std::string> text = ReadFile(scenarios_path);
    if (!text.ok()) {
      return absl::NotFoundError(absl::StrCat(manifest_path, ": scenarios_file '",
                                              peek.scenarios_file(), "': ",
                                              text.status().message()));
    }
    scenarios_text = *std::move(text);
  }
  return Parse(*manifest_text, manifest_path, scenarios_text, scenarios_path);
}

absl::StatusOr<Problem> Problem::Parse(absl::string_view manifest_text,
                                       absl::string_view manifest_name,
                                       absl::string_view scenarios_text,
                                       absl::string_view scenarios_name) {
  const absl::string_view mf = manifest_name;
  const absl::string_view sf = scenarios_name;
  ErrorList errors;
  Problem problem;
  problem.digest_ = DigestOf(manifest_text, mf, scenarios_text, sf);
  ProblemManifest& m = problem.manifest_;
  TextFormat::ParseInfoTree manifest_tree;
  if (!ParseText(manifest_text, mf, &m, &manifest_tree, &errors)) return errors.ToStatus();
  const Locator top(&manifest_tree);

  if (m.name().empty()) errors.Add(mf, -1, "'name' is missing");
  if (!IsIdentifier(m.entry_point())) {
    errors.Add(mf, top.Line(m, "entry_point"),
               absl::StrCat("entry_point '", m.entry_point(), "' is not a C identifier"));
  }

  // Symbols, then scalars: the names formulas may use.
  std::set<std::string> symbol_names;
  for (int i = 0; i < m.symbol_size(); ++i) {
    const auto& s = m.symbol(i);
    int line = top.Line(m, "symbol", i);
    if (!IsIdentifier(s.name())) {
      errors.Add(mf, line, absl::StrCat("symbol name '", s.name(), "' is not an identifier"));
    } else if (!symbol_names.insert(s.name()).second) {
      errors.Add(mf, line, absl::StrCat("symbol '", s.name(), "' is declared twice"));
    }
    if (s.max() != 0 && s.max() < std::max<int64_t>(s.min(), 1)) {
      errors.Add(mf, line, absl::StrCat("symbol '", s.name(), "': max ", s.max(), " < min"));
    }
  }
  std::set<std::string> scalar_names;
  if (m.scalar_size() > kMaxScalars) {
    errors.Add(mf, -1, absl::StrCat(m.scalar_size(), " scalars; the ABI carries at most ",
                                    kMaxScalars));
  }
  for (int i = 0; i < m.scalar_size(); ++i) {
    const auto& s = m.scalar(i);
    Locator at = top.Nested(m, "scalar", i);
    int line = top.Line(m, "scalar", i);
    if (!IsIdentifier(s.name()) || s.name().size() > 31) {
      errors.Add(mf, line, absl::StrCat("scalar name '", s.name(),
                                        "' is not an identifier of at most 31 characters"));
    } else if (symbol_names.count(s.name()) || !scalar_names.insert(s.name()).second) {
      errors.Add(mf, line, absl::StrCat("scalar '", s.name(), "' is declared twice"));
    }
    int default_line = at.Line(s, "default_value");
    if (s.default_value().empty()) {
      errors.Add(mf, line, absl::StrCat("scalar '", s.name(), "' has no default_value"));
      continue;
    }
    std::optional<Expression> expr = ParseExpr(
        s.default_value(), absl::StrCat("scalar '", s.name(), "' default_value"), mf,
        default_line, &errors);
    if (!expr) continue;
    CheckNames(*expr, symbol_names, absl::StrCat("scalar '", s.name(), "' default_value"), mf,
               default_line, &errors);
    problem.scalar_defaults_.push_back(*std::move(expr));
  }
  std::set<std::string> all_names = symbol_names;
  all_names.insert(scalar_names.begin(), scalar_names.end());

  // Tensors.
  if (m.tensor_size() == 0 || m.tensor_size() > kMaxTensors) {
    errors.Add(mf, -1, absl::StrCat(m.tensor_size(), " tensors; need 1 to ",
                                    kMaxTensors));
  }
  std::set<std::string> tensor_names;
  bool uses_scenario_dtype = false;
  int inputs = 0, outputs = 0;
  for (int i = 0; i < m.tensor_size(); ++i) {
    const auto& t = m.tensor(i);
    Locator at = top.Nested(m, "tensor", i);
    int line = top.Line(m, "tensor", i);
    if (!IsIdentifier(t.name())) {
      errors.Add(mf, line, absl::StrCat("tensor name '", t.name(), "' is not an identifier"));
    } else if (!tensor_names.insert(t.name()).second) {
      errors.Add(mf, line, absl::StrCat("tensor '", t.name(), "' is declared twice"));
    }
    if (t.role() == kernelseek::v1::TENSOR_ROLE_INPUT) ++inputs;
    else if (t.role() == kernelseek::v1::TENSOR_ROLE_OUTPUT) ++outputs;
    else errors.Add(mf, line, absl::StrCat("tensor '", t.name(), "' has no role"));
    if (t.dtype() == kernelseek::v1::DTYPE_UNSPECIFIED) {
      errors.Add(mf, line, absl::StrCat("tensor '", t.name(), "' has no dtype"));
    }
    uses_scenario_dtype |= t.dtype() == kernelseek::v1::DTYPE_SCENARIO;
    if (t.shape_size() == 0 || t.shape_size() > kMaxTensorRank) {
      errors.Add(mf, line, absl::StrCat("tensor '", t.name(), "' has rank ", t.shape_size(),
                                        "; the ABI allows 1 to ", kMaxTensorRank));
    }
    std::vector<Expression> dims;
    for (int d = 0; d < t.shape_size(); ++d) {
      int dim_line = at.Line(t, "shape", d);
      std::optional<Expression> expr =
          ParseExpr(t.shape(d), absl::StrCat("tensor '", t.name(), "' shape[", d, "]"), mf,
                    dim_line, &errors);
      if (!expr) continue;
      CheckNames(*expr, symbol_names, absl::StrCat("tensor '", t.name(), "' shape"), mf,
                 dim_line, &errors);
      dims.push_back(*std::move(expr));
    }
    problem.tensor_shapes_.push_back(std::move(dims));
  }
  if (m.tensor_size() > 0 && (inputs == 0 || outputs == 0)) {
    errors.Add(mf, -1, "a problem needs at least one input and one output tensor");
  }
  if (uses_scenario_dtype && m.dtypes_size() == 0) {
    errors.Add(mf, -1, "tensors use DTYPE_SCENARIO but 'dtypes' lists none");
  }
  for (int i = 0; i < m.dtypes_size(); ++i) {
    if (m.dtypes(i) == kernelseek::v1::DTYPE_UNSPECIFIED ||
        m.dtypes(i) == kernelseek::v1::DTYPE_SCENARIO) {
      errors.Add(mf, top.Line(m, "dtypes", i), "'dtypes' must list concrete types");
    }
  }

  // Formulas over symbols and scalars.
  for (int i = 0; i < m.constraint_size(); ++i) {
    int line = top.Line(m, "constraint", i);
    std::optional<Expression> expr = ParseExpr(m.constraint(i).expr(), "constraint", mf, line,
                                               &errors);
    if (!expr) continue;
    CheckNames(*expr, all_names, "constraint", mf, line, &errors);
    problem.constraints_.push_back(*std::move(expr));
  }
  if (m.flops().empty()) {
    errors.Add(mf, -1, "'flops' is missing");
  } else {
    int line = top.Line(m, "flops");
    problem.flops_ = ParseExpr(m.flops(), "flops", mf, line, &errors);
    if (problem.flops_) CheckNames(*problem.flops_, all_names, "flops", mf, line, &errors);
  }

  // One tolerance rule per output, none for anything else.
  std::set<std::string> ruled;
  for (int i = 0; i < m.tolerance_size(); ++i) {
    const auto& rule = m.tolerance(i);
    int line = top.Line(m, "tolerance", i);
    bool is_output = false;
    for (const auto& t : m.tensor()) {
      is_output |= t.name() == rule.output() && t.role() == kernelseek::v1::TENSOR_ROLE_OUTPUT;
    }
    if (!is_output) {
      errors.Add(mf, line, absl::StrCat("tolerance names '", rule.output(),
                                        "', which is not an output tensor"));
    } else if (!ruled.insert(rule.output()).second) {
      errors.Add(mf, line, absl::StrCat("two tolerance rules for '", rule.output(), "'"));
    }
    if (!(rule.rtol_factor() >= 1.0) || !(rule.atol() >= 0) || !std::isfinite(rule.atol()) ||
        !std::isfinite(rule.rtol_factor())) {
      errors.Add(mf, line, absl::StrCat("tolerance for '", rule.output(),
                                        "': need rtol_factor >= 1 and atol >= 0, got ",
                                        rule.rtol_factor(), " and ", rule.atol()));
    }
  }
  for (const auto& t : m.tensor()) {
    if (t.role() == kernelseek::v1::TENSOR_ROLE_OUTPUT && ruled.count(t.name()) == 0) {
      errors.Add(mf, -1, absl::StrCat("output '", t.name(), "' has no tolerance rule"));
    }
  }
  if (m.reference().empty()) errors.Add(mf, -1, "'reference' is missing");
  if (m.scenarios_file().empty()) errors.Add(mf, -1, "'scenarios_file' is missing");
  if (!errors.empty()) return errors.ToStatus();

  // Scenarios: each must be something a kernel can be asked to run.
  ScenarioFile file;
  TextFormat::ParseInfoTree scenario_tree;
  if (!ParseText(scenarios_text, sf, &file, &scenario_tree, &errors)) return errors.ToStatus();
  const Locator stop(&scenario_tree);
  if (file.problem() != m.name()) {
    errors.Add(sf, stop.Line(file, "problem"),
               absl::StrCat("problem '", file.problem(), "' but the manifest is '", m.name(),
                            "'"));
  }
  if (file.scenario_size() == 0) errors.Add(sf, -1, "no scenarios");
  std::set<std::string> ids;
  for (int i = 0; i < file.scenario_size(); ++i) {
    const ScenarioSpec& s = file.scenario(i);
    const int line = stop.Line(file, "scenario", i);
    const Locator at = stop.Nested(file, "scenario", i);
    const std::string who = absl::StrCat("scenario '", s.id(), "'");
    const int errors_before = errors.count();
    if (!IsScenarioId(s.id())) {
      errors.Add(sf, line, absl::StrCat("scenario id '", s.id(),
                                        "' must be 1-128 letters, digits, '-', '_' or '.'"));
    } else if (!ids.insert(s.id()).second) {
      errors.Add(sf, line, absl::StrCat("scenario id '", s.id(), "' is used twice"));
    }
    if (s.set().empty()) errors.Add(sf, line, who + " has no set");
    if (uses_scenario_dtype) {
      bool allowed = false;
      for (int d : m.dtypes()) allowed |= d == s.dtype();
      if (!allowed) {
        errors.Add(sf, at.Line(s, "dtype"),
                   absl::StrCat(who, ": dtype ", kernelseek::v1::TensorDtype_Name(s.dtype()),
                                " is not one of the manifest's dtypes"));
      }
    }
    if ((s.seed() != 0) == s.hidden_seed()) {
      errors.Add(sf, line, who + " needs exactly one of a non-zero seed or hidden_seed: true");
    }
    std::map<std::string, int64_t> values;
    for (int j = 0; j < s.symbol_size(); ++j) {
      const auto& v = s.symbol(j);
      int vline = at.Line(s, "symbol", j);
      if (symbol_names.count(v.name()) == 0) {
        errors.Add(sf, vline, absl::StrCat(who, ": unknown symbol '", v.name(), "'"));
      } else if (!values.emplace(v.name(), v.value()).second) {
        errors.Add(sf, vline, absl::StrCat(who, ": symbol '", v.name(), "' is set twice"));
      }
    }
    for (const auto& sym : m.symbol()) {
      auto it = values.find(sym.name());
      if (it == values.end()) {
        errors.Add(sf, line, absl::StrCat(who, ": symbol '", sym.name(), "' is not set"));
        continue;
      }
      int64_t v = it->second;
      int64_t lo = std::max<int64_t>(sym.min(), 1);
      bool ok = v >= lo && (sym.max() == 0 || v <= sym.max());
      if (ok && sym.allowed_size() > 0) {
        ok = false;
        for (int64_t a : sym.allowed()) ok |= a == v;
      }
      if (!ok) {
        errors.Add(sf, line, absl::StrCat(who, ": ", sym.name(), " = ", v,
                                          " is outside what the manifest allows"));
      }
    }
    std::set<std::string> overridden;
    for (int j = 0; j < s.scalar_size(); ++j) {
      const auto& v = s.scalar(j);
      int vline = at.Line(s, "scalar", j);
      if (scalar_names.count(v.name()) == 0) {
        errors.Add(sf, vline, absl::StrCat(who, ": unknown scalar '", v.name(), "'"));
      } else if (!overridden.insert(v.name()).second) {
        errors.Add(sf, vline, absl::StrCat(who, ": scalar '", v.name(), "' is set twice"));
      }
    }
    std::set<std::string> filled;
    for (int j = 0; j < s.fill_size(); ++j) {
      const kernelseek::v1::InputFill& f = s.fill(j);
      const int fline = at.Line(s, "fill", j);
      const std::string what = absl::StrCat(who, ": fill of '", f.tensor(), "'");
      int index = -1;
      for (int t = 0; t < m.tensor_size(); ++t) {
        if (m.tensor(t).name() == f.tensor()) index = t;
      }
      if (index < 0 || m.tensor(index).role() != kernelseek::v1::TENSOR_ROLE_INPUT) {
        errors.Add(sf, fline, what + ": not an input tensor of the manifest");
        continue;
      }
      if (!filled.insert(f.tensor()).second) errors.Add(sf, fline, what + ": set twice");
      if (!std::isfinite(f.mean()) || !std::isfinite(f.std()) || f.std() < 0) {
        errors.Add(sf, fline, what + ": mean must be finite and std finite and >= 0");
      }
      if (f.has_ramp()) {
        const int rank = m.tensor(index).shape_size();
        if (f.ramp().axis() < 0 || f.ramp().axis() >= rank) {
          errors.Add(sf, fline, absl::StrCat(what, ": ramp axis ", f.ramp().axis(),
                                             " is outside the tensor's ", rank, " axes"));
        }
        if (!std::isfinite(f.ramp().from()) || !std::isfinite(f.ramp().to())) {
          errors.Add(sf, fline, what + ": ramp ends must be finite");
        }
      }
    }
    if (errors.count() != errors_before) continue;
    absl::StatusOr<Bindings> bindings = problem.BindingsFor(s);
    if (!bindings.ok()) {
      errors.Add(sf, line, absl::StrCat(who, ": ", bindings.status().message()));
      continue;
    }
    for (int c = 0; c < m.constraint_size(); ++c) {
      absl::StatusOr<double> holds = problem.constraints_[c].Evaluate(*bindings);
      if (!holds.ok() || *holds == 0) {
        errors.Add(sf, line, absl::StrCat(who, ": ", m.constraint(c).message(), " (",
                                          m.constraint(c).expr(), ")"));
      }
    }
    for (int t = 0; t < m.tensor_size(); ++t) {
      absl::StatusOr<std::vector<int64_t>> shape = problem.TensorShape(t, *bindings);
      if (!shape.ok()) errors.Add(sf, line, absl::StrCat(who, ": ", shape.status().message()));
    }
    absl::StatusOr<double> flops = problem.flops_->Evaluate(*bindings);
    if (!flops.ok() || *flops < 0) {
      errors.Add(sf, line, absl::StrCat(who, ": flops: ",
                                        flops.ok() ? "negative" : flops.status().message()));
    }
  }
  if (!errors.empty()) return errors.ToStatus();
  problem.scenarios_.assign(file.scenario().begin(), file.scenario().end());
  // Defaults and baselines: what a job gets when it names none must exist.
  std::set<std::string> baseline_names;
  for (const kernelseek::v1::BaselineSpec& b : m.baseline()) {
    if (b.name().empty() || b.name() == "none" || b.name().find(',') != std::string::npos) {
      errors.Add(mf, -1, absl::StrCat("baseline '", b.name(), "': a name must be non-empty, not 'none', no ','"));
    } else if (!baseline_names.insert(b.name()).second) {
      errors.Add(mf, -1, absl::StrCat("baseline '", b.name(), "' is declared twice"));
    }
    if (b.program().empty() || b.program().find('/') != std::string::npos || b.program()[0] == '.') {
      errors.Add(mf, -1, absl::StrCat("baseline '", b.name(), "': program '", b.program(),
                                      "' must be a plain file name in the worker's baselines folder"));
    }
  }
  if (!m.default_baseline().empty() && m.default_baseline() != "none" &&
      baseline_names.count(m.default_baseline()) == 0) {
    errors.Add(mf, -1, absl::StrCat("default_baseline '", m.default_baseline(),
                                    "' is not one of the manifest's baselines (",
                                    baseline_names.empty() ? "none declared" : absl::StrJoin(baseline_names, ", "),
                                    ")"));
  }
  for (const auto& [field, selection] : {std::pair<const char*, const std::string*>{"default_verify_scenarios",
                                                                                   &m.default_verify_scenarios()},
                                         {"default_bench_scenarios", &m.default_bench_scenarios()}}) {
    if (selection->empty()) continue;
    if (absl::StatusOr<std::vector<const ScenarioSpec*>> chosen = problem.Select(*selection); !chosen.ok()) {
      errors.Add(mf, -1, absl::StrCat(field, ": ", chosen.status().message()));
    }
  }
  if (!errors.empty()) return errors.ToStatus();
  return problem;
}

const std::string& Problem::DefaultScenarios(bool bench) const {
  static const std::string* const kAll = new std::string("all");
  const std::string& chosen = bench ? manifest_.default_bench_scenarios() : manifest_.default_verify_scenarios();
  return chosen.empty() ? *kAll : chosen;
}

const std::string& Problem::DefaultBaseline() const {
  static const std::string* const kNone = new std::string("none");
  return manifest_.default_baseline().empty() ? *kNone : manifest_.default_baseline();
}

std::vector<std::string> Problem::BaselineNames() const {
  std::vector<std::string> names;
  for (const kernelseek::v1::BaselineSpec& b : manifest_.baseline()) names.push_back(b.name());
  return names;
}

const kernelseek::v1::BaselineSpec* Problem::FindBaseline(absl::string_view name) const {
  for (const kernelseek::v1::BaselineSpec& b : manifest_.baseline()) {
    if (b.name() == name) return &b;
  }
  return nullptr;
}

const ScenarioSpec* Problem::FindScenario(absl::string_view id) const {
  for (const ScenarioSpec& s : scenarios_) {
    if (s.id() == id) return &s;
  }
  return nullptr;
}

absl::StatusOr<std::vector<const ScenarioSpec*>> Problem::Select(
    absl::string_view selection) const {
  std::vector<const ScenarioSpec*> chosen;
  if (selection == "all") {
    for (const ScenarioSpec& s : scenarios_) chosen.push_back(&s);
    return chosen;
  }
  // Each item is a set or an id, so that a default like "square,llm" can
  // name two sets; a scenario named twice runs once, where it first appears.
  std::set<const ScenarioSpec*> seen;
  for (absl::string_view item : absl::StrSplit(selection, ',', absl::SkipWhitespace())) {
    bool is_set = false;
    for (const ScenarioSpec& s : scenarios_) {
      if (s.set() != item) continue;
      is_set = true;
      if (seen.insert(&s).second) chosen.push_back(&s);
    }
    if (is_set) continue;
    const ScenarioSpec* s = FindScenario(item);
    if (s == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--scenarios: '", item, "' is neither 'all', a set name nor a scenario id of ",
          manifest_.name()));
    }
    if (seen.insert(s).second) chosen.push_back(s);
  }
  if (chosen.empty()) return absl::InvalidArgumentError("--scenarios selects nothing");
  return chosen;
}

absl::StatusOr<Bindings> Problem::BindingsFor(const ScenarioSpec& scenario) const {
  Bindings symbols;
  for (const auto& v : scenario.symbol()) symbols[v.name()] = static_cast<double>(v.value());
  Bindings all = symbols;
  for (int i = 0; i < manifest_.scalar_size(); ++i) {
    const auto& spec = manifest_.scalar(i);
    std::optional<double> value;
    for (const auto& v : scenario.scalar()) {
      if (v.name() == spec.name()) value = v.value();
    }
    if (!value) {
      absl::StatusOr<double> d = scalar_defaults_[i].Evaluate(symbols);
      if (!d.ok()) return d.status();
      value = *d;
    }
    if (!std::isfinite(*value)) {
      return absl::InvalidArgumentError(absl::StrCat("scalar '", spec.name(), "' = ", *value));
    }
    if (spec.allowed_size() > 0) {
      bool ok = false;
      for (double a : spec.allowed()) ok |= a == *value;
      if (!ok) {
        return absl::InvalidArgumentError(absl::StrCat("scalar '", spec.name(), "' = ", *value,
                                                       " is not an allowed value"));
      }
    }
    all[spec.name()] = *value;
  }
  return all;
}

absl::StatusOr<double> Problem::Flops(const ScenarioSpec& scenario) const {
  absl::StatusOr<Bindings> bindings = BindingsFor(scenario);
  if (!bindings.ok()) return bindings.status();
  return flops_->Evaluate(*bindings);
}

absl::StatusOr<std::vector<int64_t>> Problem::TensorShape(int tensor_index,
                                                          const Bindings& bindings) const {
  std::vector<int64_t> shape;
  const std::string& name = manifest_.tensor(tensor_index).name();
  for (const Expression& dim : tensor_shapes_[tensor_index]) {
    absl::StatusOr<double> v = dim.Evaluate(bindings);
    if (!v.ok()) return v.status();
    if (*v < 1 || *v != std::floor(*v) || *v > 9.0e15) {
      return absl::InvalidArgumentError(absl::StrCat("tensor '", name, "' dimension '",
                                                     dim.text(), "' = ", *v,
                                                     " is not a positive integer"));
    }
    shape.push_back(static_cast<int64_t>(*v));
  }
  return shape;
}

const kernelseek::v1::ToleranceRule* Problem::ToleranceFor(absl::string_view name) const {
  for (const auto& rule : manifest_.tolerance()) {
    if (rule.output() == name) return &rule;
  }
  return nullptr;
}

}  // namespace kseek
