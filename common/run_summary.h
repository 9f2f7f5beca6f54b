// The figures of a verify or bench result that follow from its scenarios:
// passed and failed counts, each scenario's speedups, the geometric means of
// TFLOP/s and of the speedup against each baseline, and each baseline's
// lowest scenario. The worker computes them after a run; the server computes
// them again over the scenarios of all the shards of a sharded bench
// (server/bench_shards.h), so both forms are the same by construction. Plain
// functions; thread-safe.
#ifndef KERNELSEEK_COMMON_RUN_SUMMARY_H_
#define KERNELSEEK_COMMON_RUN_SUMMARY_H_

#include "proto/kernelseek.pb.h"

namespace kseek {

// Sets passed, failed, geomean_tflops, geomean_speedup, each scenario's
// speedup and its baselines' speedups, and each of result->baselines()'s
// timed, geomean_speedup and lowest scenario (their names and versions as
// they are), from result->scenarios(). Figures from an earlier call are
// replaced.
void SummarizeRun(kernelseek::v1::RunResult* result);

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_RUN_SUMMARY_H_
