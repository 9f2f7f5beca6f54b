#include "server/bench_shards.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/run_limits.h"
#include "common/run_summary.h"

namespace kseek {

int ShardCount(int requested, int idle_matching, int scenarios) {
  int wanted = requested == kAutoBenchShards ? idle_matching : requested;
  wanted = std::min(wanted, scenarios);
  return std::max(1, wanted);
}

std::vector<std::vector<std::string>> SplitScenarios(const std::vector<std::string>& ids, int shards) {
  std::vector<std::vector<std::string>> out(std::max(1, shards));
  for (size_t i = 0; i < ids.size(); ++i) out[i % out.size()].push_back(ids[i]);
  return out;
}

kernelseek::v1::JobSpec ShardSpec(const kernelseek::v1::JobSpec& job, const kernelseek::v1::ShardPlan& plan,
                                  int shard) {
  kernelseek::v1::JobSpec spec = job;
  if (plan.shards_size() > 1) {
    spec.mutable_run()->set_scenarios(absl::StrJoin(plan.shards(shard).info().scenarios(), ","));
  }
  return spec;
}

kernelseek::v1::RunResult MergeShardResults(const kernelseek::v1::ShardPlan& plan) {
  // The job's order, undoing SplitScenarios' deal: scenario k * N + i is the
  // k-th of shard i.
  std::vector<std::string> order;
  for (int k = 0;; ++k) {
    const size_t before = order.size();
    for (const kernelseek::v1::ShardPlan::Shard& shard : plan.shards()) {
      if (k < shard.info().scenarios_size()) order.push_back(shard.info().scenarios(k));
    }
    if (order.size() == before) break;
  }
  kernelseek::v1::RunResult merged;
  auto add_shards = [&plan](kernelseek::v1::RunResult* result) {
    result->clear_shards();
    for (const kernelseek::v1::ShardPlan::Shard& shard : plan.shards()) *result->add_shards() = shard.info();
  };
  for (const kernelseek::v1::ShardPlan::Shard& shard : plan.shards()) {
    if (!shard.result().compile().success()) {
      merged = shard.result();
      add_shards(&merged);
      return merged;
    }
  }
  std::map<std::string, size_t> position;
  for (size_t i = 0; i < order.size(); ++i) position.emplace(order[i], i);
  std::vector<kernelseek::v1::ScenarioResult> scenarios;
  std::vector<std::string> runner_errors;
  for (const kernelseek::v1::ShardPlan::Shard& shard : plan.shards()) {
    const kernelseek::v1::RunResult& r = shard.result();
    if (!merged.has_compile()) {
      *merged.mutable_compile() = r.compile();
      merged.set_gpu(r.gpu());
      merged.set_driver(r.driver());
    }
    if (merged.baseline().empty()) merged.set_baseline(r.baseline());
    for (const kernelseek::v1::BaselineSummary& b : r.baselines()) {
      kernelseek::v1::BaselineSummary* held = nullptr;
      for (kernelseek::v1::BaselineSummary& have : *merged.mutable_baselines()) {
        if (have.name() == b.name()) held = &have;
      }
      if (held == nullptr) {
        held = merged.add_baselines();
        held->set_name(b.name());
      }
      if (held->version().empty()) held->set_version(b.version());
    }
    const std::string label = absl::StrCat("shard ", shard.info().index() + 1, " (", shard.info().worker(), ")");
    if (!r.runner_error().empty()) {
      runner_errors.push_back(plan.shards_size() > 1 ? absl::StrCat(label, ": ", r.runner_error()) : r.runner_error());
    }
    // A worker's rows are held to what it was given: a row it was not given,
    // or a second row for one scenario, is dropped, and a scenario it gave
    // no row for is a failed row, each said in the runner error, so a
    // faulty worker cannot make a bench look like it passed over other
    // shapes or fewer of them. (With no list, the server could not resolve
    // the selection and the worker's rows are taken as they are.)
    const auto& given = shard.info().scenarios();
    const std::set<std::string> planned(given.begin(), given.end());
    std::set<std::string> seen;
    for (const kernelseek::v1::ScenarioResult& s : r.scenarios()) {
      if (!planned.empty() && planned.count(s.id()) == 0) {
        runner_errors.push_back(absl::StrCat(label, " returned scenario ", s.id(), ", which it was not given; dropped"));
      } else if (!seen.insert(s.id()).second) {
        runner_errors.push_back(absl::StrCat(label, " returned scenario ", s.id(), " twice; the second dropped"));
      } else {
        scenarios.push_back(s);
      }
    }
    for (const std::string& id : given) {
      if (seen.count(id) != 0) continue;
      kernelseek::v1::ScenarioResult& missing = scenarios.emplace_back();
      missing.set_id(id);
      missing.set_passed(false);
      missing.set_reason(absl::StrCat("no result: ", label, " returned none for it"));
      runner_errors.push_back(absl::StrCat(label, " returned no result for scenario ", id));
    }
  }
  // The job's order; a scenario the job did not name (possible only from a
  // shard without a list) goes last rather than being dropped.
  auto rank = [&](const kernelseek::v1::ScenarioResult& s) {
    auto it = position.find(s.id());
    return it == position.end() ? order.size() : it->second;
  };
  std::stable_sort(scenarios.begin(), scenarios.end(),
                   [&](const kernelseek::v1::ScenarioResult& a, const kernelseek::v1::ScenarioResult& b) {
                     return rank(a) < rank(b);
                   });
  for (kernelseek::v1::ScenarioResult& s : scenarios) *merged.add_scenarios() = std::move(s);
  merged.set_runner_error(absl::StrJoin(runner_errors, "; "));
  SummarizeRun(&merged);
  add_shards(&merged);
  return merged;
}

}  // namespace kseek
