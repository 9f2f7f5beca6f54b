// The text of `kseek scenarios`: a problem's scenarios as a table.
//
// Generic over problems: the columns are the manifest's symbols in manifest
// order and every scalar that some listed scenario sets (attention's
// `causal`), so a new operator needs no change here. Plain function;
// thread-safe.
#ifndef KERNELSEEK_CLIENT_SCENARIO_TABLE_H_
#define KERNELSEEK_CLIENT_SCENARIO_TABLE_H_

#include <string>

#include "proto/kernelseek.pb.h"

namespace kseek {

// One row per scenario in the order given: ID, SET, DTYPE, one column per
// symbol, one per overridden scalar ("-" where a scenario keeps the default),
// and SEED (the number, or "hidden" for a seed only the worker knows). Then a
// line counting the scenarios per set, sets in order of first appearance,
// e.g. "182 scenarios: perf 72, correctness 110". Where the manifest says
// them, a last line with its defaults and baselines, e.g. "defaults: verify
// all; bench perf against cudnn (baselines: cudnn, fa2, fa3, fa4)".
std::string FormatScenarioTable(const kernelseek::v1::ListScenariosResponse& response);

// "bf16", "fp16", "fp32"; "scenario" for DTYPE_SCENARIO.
std::string DtypeLabel(kernelseek::v1::TensorDtype dtype);

}  // namespace kseek

#endif  // KERNELSEEK_CLIENT_SCENARIO_TABLE_H_
