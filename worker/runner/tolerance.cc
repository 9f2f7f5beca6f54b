#include "worker/runner/tolerance.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kseek::runner {

double OutputErrors::RelativeL2() const {
  if (sum_sq_ref <= 0) return std::sqrt(sum_sq_err);
  return std::sqrt(sum_sq_err / sum_sq_ref);
}

double ToleranceBar(const kernelseek::v1::ToleranceRule& rule, double lowprec_max_abs_err) {
  return rule.rtol_factor() * lowprec_max_abs_err + rule.atol();
}

OutputVerdict JudgeOutput(absl::string_view output, const kernelseek::v1::ToleranceRule& rule,
                          const OutputErrors& errors) {
  OutputVerdict verdict;
  verdict.bar = ToleranceBar(rule, errors.lowprec_max_abs_err);
  if (errors.unwritten > 0) {
    verdict.reason = absl::StrCat(output, ": ", errors.unwritten, " of ", errors.elements,
                                  " elements were never written");
  } else if (errors.nan > 0) {
    verdict.reason = absl::StrCat(output, ": ", errors.nan, " NaN elements");
  } else if (errors.inf_mismatch > 0) {
    verdict.reason = absl::StrCat(output, ": ", errors.inf_mismatch,
                                  " elements infinite where the reference is not, or finite "
                                  "where it is infinite");
  } else if (errors.lowprec_nonfinite > 0 || !std::isfinite(verdict.bar)) {
    verdict.reason = absl::StrCat(output, ": the low-precision reference is not finite in ",
                                  errors.lowprec_nonfinite, " elements (harness fault)");
  } else if (!(errors.max_abs_err <= verdict.bar)) {
    verdict.reason = absl::StrFormat("%s: max abs error %.4g exceeds the bar %.4g "
                                     "(%.3g x low-precision error %.4g + atol %.3g)",
                                     std::string(output), errors.max_abs_err, verdict.bar,
                                     rule.rtol_factor(), errors.lowprec_max_abs_err, rule.atol());
  } else {
    verdict.pass = true;
  }
  return verdict;
}

}  // namespace kseek::runner
