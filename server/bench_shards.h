// How a bench job's scenarios are spread over GPU workers, and how the
// shards' results become one result of the same form as a bench on one GPU.
// JobQueue plans a bench's shards when its first shard is leased and merges
// them when the last one is done; a bench on one GPU is a plan of one shard
// and goes through the same merge. Plain functions; thread-safe.
#ifndef KERNELSEEK_SERVER_BENCH_SHARDS_H_
#define KERNELSEEK_SERVER_BENCH_SHARDS_H_

#include <string>
#include <vector>

#include "proto/kernelseek.pb.h"

namespace kseek {

// How many shards a bench asking for `requested` (RunOptions.shards: 0 or 1
// one, N, or kAutoBenchShards) gets when `idle_matching` workers (the one
// taking the first shard included) could run one: never more than there are
// scenarios, never fewer than one.
int ShardCount(int requested, int idle_matching, int scenarios);

// `ids` (the job's scenarios, in its order) dealt round robin into `shards`
// lists, so that each shard gets scenarios from all over the selection (a
// selection is often ordered by size, and the shards should take about as
// long); each list keeps the job's order.
std::vector<std::vector<std::string>> SplitScenarios(const std::vector<std::string>& ids, int shards);

// The job's spec for one shard: the job's own spec when the plan has one
// shard (exactly what a bench on one GPU runs), else with `scenarios` naming
// the shard's scenario ids.
kernelseek::v1::JobSpec ShardSpec(const kernelseek::v1::JobSpec& job, const kernelseek::v1::ShardPlan& plan, int shard);

// One RunResult from the results of every shard of `plan` (all done), in the
// form a bench on one GPU has: the scenarios in the job's order (read back
// from the plan's round-robin deal), the
// passed and failed counts and geometric means computed over all of them
// (common/run_summary.h), the baselines in the job's order with their
// versions, the GPU, driver and build of the first shard (every shard ran on
// the same GPU model and driver), any runner errors each prefixed with its
// shard, and `shards` saying which worker ran which scenarios. When a
// shard's build failed, that shard's result is the job's (nothing ran).
// Each shard's rows are held to the scenarios it was given: rows for others
// and repeated rows are dropped, and a given scenario without a row becomes
// a failed row; each case is named in runner_error.
kernelseek::v1::RunResult MergeShardResults(const kernelseek::v1::ShardPlan& plan);

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_BENCH_SHARDS_H_
