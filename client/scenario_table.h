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
// SEED (the number, or "hidden" for a seed only the worker knows), and, where
// some listed scenario has input fills, INPUTS (FillLabel; "normal" for the
// others). Then a line counting the scenarios per set, sets in order of first
// appearance, e.g. "202 scenarios: perf 72, correctness 110, rising 20". Where the manifest says
// them, a last line with its defaults and baselines, e.g. "defaults: verify
// all; bench perf against cudnn (baselines: cudnn, fa2, fa3, fa4)".
std::string FormatScenarioTable(const kernelseek::v1::ListScenariosResponse& response);

// A scenario's input fills in a few words, e.g. "q mean 1 sd 0.1; k sd 0.1
// ramp[1] 24.5..0" (axis 1 ramped from 24.5 to 0); "normal" where it has none.
std::string FillLabel(const kernelseek::v1::ScenarioSpec& scenario);

// "bf16", "fp16", "fp32"; "scenario" for DTYPE_SCENARIO.
std::string DtypeLabel(kernelseek::v1::TensorDtype dtype);

}  // namespace kseek

#endif  // KERNELSEEK_CLIENT_SCENARIO_TABLE_H_
