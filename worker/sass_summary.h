// SummarizeSass: static instruction counts per function from the text of
// `cuobjdump --dump-sass`, so a change's effect on the inner loop (HGMMA
// issued, spills as LDL/STL, MUFU, barriers) is visible without reading SASS.
// Pure function; thread-safe.
#ifndef KERNELSEEK_WORKER_SASS_SUMMARY_H_
#define KERNELSEEK_WORKER_SASS_SUMMARY_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

// Classes that appear in every summary, with count 0 when absent, so that a
// reader (human or agent) sees "LDL 0" rather than wondering.
const std::vector<std::string>& TrackedInstructionClasses();

// The instruction class of one SASS instruction: its opcode without
// predicate or modifiers ("@!P0 FMUL R0, ..." -> "FMUL",
// "HGMMA.64x128x16.F32.BF16 R24, ..." -> "HGMMA"). Empty for a line that is
// not an instruction.
std::string InstructionClass(absl::string_view instruction);

// One SassSummary per "Function : name" in `dump`, in dump order. `total`
// counts every instruction except the NOPs that pad the end of a function
// (they are never executed); `classes` is sorted by name and includes the
// tracked classes.
std::vector<kernelseek::v1::SassSummary> SummarizeSass(absl::string_view dump);

}  // namespace kseek

#endif  // KERNELSEEK_WORKER_SASS_SUMMARY_H_
