// The pass/fail rule for one output of one run, after FlashAttention's tests:
//   max|out - ref| <= rtol_factor * max|out_lowprec - ref| + atol
// plus the checks that come before it (every element written, no NaN, an
// infinity only where the reference has the same one). Plain functions.
#ifndef KERNELSEEK_WORKER_RUNNER_TOLERANCE_H_
#define KERNELSEEK_WORKER_RUNNER_TOLERANCE_H_

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"

#include "proto/problem.pb.h"

namespace kseek::runner {

// What the comparison kernel measured for one output. Elements where the
// reference is infinite (e.g. the LSE of a fully masked row) are not in the
// error maxima: there the candidate must hold the same infinity.
struct OutputErrors {
  int64_t elements = 0;
  int64_t unwritten = 0;          // still the poison bit pattern
  int64_t nan = 0;                // NaN other than the poison pattern
  int64_t inf_mismatch = 0;       // infinite where ref is not the same infinity, or vice versa
  int64_t lowprec_nonfinite = 0;  // a harness fault: the low-precision reference broke
  double max_abs_err = 0;         // candidate vs ref, finite elements
  double lowprec_max_abs_err = 0; // out_lowprec vs ref, finite elements
  double sum_sq_err = 0;
  double sum_sq_ref = 0;

  // ||out - ref||_2 / ||ref||_2 over finite elements (0 when ref is all 0).
  double RelativeL2() const;
};

struct OutputVerdict {
  bool pass = false;
  double bar = 0;      // the right-hand side of the rule
  std::string reason;  // empty when pass
};

double ToleranceBar(const kernelseek::v1::ToleranceRule& rule, double lowprec_max_abs_err);

OutputVerdict JudgeOutput(absl::string_view output, const kernelseek::v1::ToleranceRule& rule,
                          const OutputErrors& errors);

}  // namespace kseek::runner

#endif  // KERNELSEEK_WORKER_RUNNER_TOLERANCE_H_
