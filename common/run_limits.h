// Limits on run options that the client checks before submitting and the
// server enforces, kept in one place so that the two agree.
#ifndef KERNELSEEK_COMMON_RUN_LIMITS_H_
#define KERNELSEEK_COMMON_RUN_LIMITS_H_

namespace kseek {

// The most timing rounds a bench job may ask for (RunOptions.rounds): each
// round times every scenario again, candidate and baseline.
inline constexpr int kMaxBenchRounds = 10;
// RunOptions.shards: at most this many GPUs for one bench; kAutoBenchShards
// asks for as many as are idle.
inline constexpr int kMaxBenchShards = 64;
inline constexpr int kAutoBenchShards = -1;

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_RUN_LIMITS_H_
