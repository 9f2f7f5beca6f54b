#include "worker/run_executor.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/baseline_list.h"
#include "common/profile_text.h"
#include "common/run_summary.h"
#include "common/subprocess.h"
#include "common/temp_dir.h"
#include "common/untrusted_json.h"
#include "problem/problem.h"
#include "problem/problem_digest.h"
#include "worker/baseline_timer.h"
#include "worker/ncu_report.h"

namespace kseek {
namespace {

using kernelseek::v1::RunResult;
using kernelseek::v1::ScenarioResult;
using nlohmann::json;

double JsonNumber(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}

// One scenario of the runner's report, as the wire's ScenarioResult. The
// worst output (largest error against its bar) over both input sets is shown.
ScenarioResult FromRunnerScenario(const json& s) {
  ScenarioResult r;
  r.set_id(s.value("id", ""));
  r.set_passed(s.value("pass", false));
  r.set_reason(s.value("reason", ""));
  double worst_ratio = -1;
  for (const json& set : s.value("input_sets", json::array())) {
    for (const json& out : set.value("outputs", json::array())) {
      double err = JsonNumber(out, "max_abs_err");
      double bar = JsonNumber(out, "bar");
      double ratio = bar > 0 ? err / bar : err;
      if (!out["max_abs_err"].is_number()) ratio = INFINITY;
      if (ratio > worst_ratio) {
        worst_ratio = ratio;
        r.set_max_abs_error(err);
        r.set_error_bar(bar);
      }
      r.set_rel_l2_error(std::max(r.rel_l2_error(), JsonNumber(out, "rel_l2")));
    }
  }
  if (auto t = s.find("timing"); t != s.end() && t->is_object()) {
    r.set_median_ms(JsonNumber(*t, "median_ms"));
    r.set_min_ms(JsonNumber(*t, "min_ms"));
    r.set_max_ms(JsonNumber(*t, "max_ms"));
    r.set_repetitions(static_cast<int32_t>(JsonNumber(*t, "reps")));
    r.set_tflops(JsonNumber(s, "tflops"));
  }
  if (auto c = s.find("sm_clock_before"); c != s.end()) r.set_sm_clock_mhz_before(JsonNumber(*c, "sm_mhz"));
  if (auto c = s.find("sm_clock_after"); c != s.end()) r.set_sm_clock_mhz_after(JsonNumber(*c, "sm_mhz"));
  return r;
}

}  // namespace

void KeepBestRound(const ScenarioResult& round, ScenarioResult* kept) {
  if (kept->passed() && !round.passed()) {
    kept->set_passed(false);
    kept->set_reason(round.reason());
    kept->set_max_abs_error(round.max_abs_error());
    kept->set_error_bar(round.error_bar());
    kept->set_rel_l2_error(round.rel_l2_error());
  }
  if (round.median_ms() > 0 && (kept->median_ms() <= 0 || round.median_ms() < kept->median_ms())) {
    kept->set_median_ms(round.median_ms());
    kept->set_min_ms(round.min_ms());
    kept->set_max_ms(round.max_ms());
    kept->set_repetitions(round.repetitions());
    kept->set_tflops(round.tflops());
    kept->set_sm_clock_mhz_before(round.sm_clock_mhz_before());
    kept->set_sm_clock_mhz_after(round.sm_clock_mhz_after());
  }
  if (round.baseline_median_ms() > 0 &&
      (kept->baseline_median_ms() <= 0 || round.baseline_median_ms() < kept->baseline_median_ms())) {
    kept->set_baseline_median_ms(round.baseline_median_ms());
    kept->set_baseline_tflops(round.baseline_tflops());
    kept->clear_baseline_error();
  } else if (kept->baseline_median_ms() <= 0 && !round.baseline_error().empty()) {
    kept->set_baseline_error(round.baseline_error());
  }
  for (const kernelseek::v1::BaselineFigure& figure : round.baselines()) {
    kernelseek::v1::BaselineFigure* held = nullptr;
    for (kernelseek::v1::BaselineFigure& b : *kept->mutable_baselines()) {
      if (b.name() == figure.name()) held = &b;
    }
    if (held == nullptr) {
      *kept->add_baselines() = figure;
    } else if (figure.median_ms() > 0 && (held->median_ms() <= 0 || figure.median_ms() < held->median_ms())) {
      held->set_median_ms(figure.median_ms());
      held->set_tflops(figure.tflops());
      held->clear_error();
    } else if (held->median_ms() <= 0 && !figure.error().empty()) {
      held->set_error(figure.error());
    }
  }
}

namespace {

// The whole file, or "" when it cannot be read (ncu wrote none).
std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// ncu passes on the runner's exit code: 1 is a verdict (the kernel failed
// verification), anything else or a kill means the profiled run itself broke.
bool NcuRunBroke(const SubprocessResult& ran) {
  return !ran.Succeeded() && !(ran.term_signal == 0 && !ran.timed_out && ran.exit_code == 1);
}

}  // namespace

RunExecutor::RunExecutor(const Compiler* compiler, RunExecutorConfig config)
    : compiler_(compiler),
      config_(std::move(config)),
      sandbox_(config_.sandbox != nullptr ? config_.sandbox : &unsandboxed_) {}

std::string RunExecutor::ManifestPath(const std::string& problem) const {
  return absl::StrCat(config_.scenarios_dir, "/", problem, "/problem.textproto");
}

std::vector<std::string> RunExecutor::RunnerArgv(const std::string& manifest_path, const std::string& so_path,
                                                 const std::string& mode, const std::string& scenarios) const {
  std::vector<std::string> argv = {config_.runner_path, "--problem", manifest_path, "--kernel", so_path,
                                   "--mode", mode, "--scenarios", scenarios};
  if (!config_.hidden_seed_key.empty()) argv.insert(argv.end(), {"--hidden-seed-key", "-"});
  if (config_.gpu_mem_cap_gb > 0) argv.insert(argv.end(), {"--gpu-mem-cap-gb", absl::StrCat(config_.gpu_mem_cap_gb)});
  return argv;
}

absl::StatusOr<RunResult> RunExecutor::Run(const kernelseek::v1::JobSpec& spec, const StageReporter& report) const {
  const bool bench = spec.kind() == kernelseek::v1::JOB_KIND_BENCH;
  const kernelseek::v1::RunOptions& options = spec.run();
  const std::string manifest_path = ManifestPath(options.problem());
  absl::StatusOr<Problem> problem = Problem::Load(manifest_path);
  if (!problem.ok()) return problem.status();
  if (absl::Status s = CheckProblemDigest(options.problem(), options.problem_digest(), problem->digest()); !s.ok()) {
    return s;
  }
  auto selected = problem->Select(options.scenarios());
  if (!selected.ok()) return selected.status();
  if (access(config_.runner_path.c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError(absl::StrCat("kseek-runner not found at ", config_.runner_path));
  }

  absl::StatusOr<TempDir> work = TempDir::Create(config_.temp_dir, "kseek-run");
  if (!work.ok()) return work.status();
  if (absl::Status s = sandbox_->HandOver(work->path()); !s.ok()) return s;
  const std::string so_path = absl::StrCat(work->path(), "/kernel.so");
  const int rounds = bench ? std::max(1, options.rounds()) : 1;
  kernelseek::v1::Progress progress;
  progress.set_total(static_cast<int32_t>(selected->size() * rounds));
  report(absl::StrCat("building ", spec.source_name(), " for ", spec.compile().arch()), progress);

  RunResult result;
  absl::StatusOr<kernelseek::v1::CompileResult> compiled = compiler_->BuildSharedObject(spec, so_path);
  if (!compiled.ok()) return compiled.status();
  *result.mutable_compile() = *std::move(compiled);
  if (!result.compile().cache().empty()) report(absl::StrCat("compile: cache ", result.compile().cache()), progress);
  if (!result.compile().success()) return result;

  // Chunks of scenario ids: one runner process each (bench), or one in all.
  std::vector<std::vector<const kernelseek::v1::ScenarioSpec*>> chunks;
  const size_t chunk = bench ? std::max(1, config_.bench_chunk) : selected->size();
  for (size_t i = 0; i < selected->size(); i += chunk) {
    chunks.emplace_back(selected->begin() + i, selected->begin() + std::min(selected->size(), i + chunk));
  }
  // The server fills in and checks the list; a job from elsewhere is checked again here.
  std::vector<std::string> baselines;
  if (bench) {
    absl::StatusOr<std::vector<std::string>> parsed =
        ParseBaselineList(options.baseline().empty() ? problem->DefaultBaseline() : options.baseline(),
                          problem->BaselineNames());
    if (!parsed.ok()) return parsed.status();
    baselines = *std::move(parsed);
  }
  std::map<std::string, std::string> baseline_versions;  // by name, as the baseline program reported it
  const BaselineTimer timer({.python = config_.python,
                             .python_path = config_.python_path,
                             .baselines_dir = config_.baselines_dir,
                             .cache_dir = config_.baseline_cache_dir,
                             .work_dir = work->path(),
                             .startup_allowance = config_.startup_allowance});
  std::map<std::string, double> flops;
  for (const auto* s : *selected) flops[s->id()] = problem->Flops(*s).value_or(0);

  // Where each scenario's result is in result.scenarios (the first round
  // adds it; later rounds fold into it).
  std::map<std::string, int> index_of;
  int done = 0;
  bool runner_died = false;
  for (int round = 0; round < rounds && !runner_died; ++round) {
    const std::string round_label = rounds > 1 ? absl::StrCat(" (round ", round + 1, " of ", rounds, ")") : "";
    // The sides of a chunk run back to back: the candidate, then each
    // baseline in turn, so that every one of them sees the GPU as the
    // candidate did; odd rounds run that order backwards (the baselines
    // last to first, then the candidate), so that with two rounds or more no
    // side always goes first or last (a card warming or cooling across the
    // chunk favours one place).
    const bool backwards = round % 2 == 1;
    for (const auto& ids : chunks) {
      std::vector<std::string> names;
      for (const auto* s : ids) names.push_back(s->id());
      std::vector<BaselineTimings> timed(baselines.size());
      auto time_baselines = [&] {
        for (size_t i = 0; i < baselines.size(); ++i) {
          const size_t b = backwards ? baselines.size() - 1 - i : i;
          report(absl::StrCat("timing baseline ", baselines[b], round_label), progress);
          timed[b] = timer.Time(*problem, ids, baselines[b], options.max_seconds_per_scenario(), result.gpu(),
                                result.driver(), options.reuse_baseline());
        }
      };
      if (backwards) time_baselines();
      const int before = done;
      SubprocessSpec runner;
      runner.argv = RunnerArgv(manifest_path, so_path, bench ? "bench" : "verify", absl::StrJoin(names, ","));
      if (bench) runner.argv.insert(runner.argv.end(), {"--bench-seconds", absl::StrCat(options.max_seconds_per_scenario())});
      runner.time_limit = config_.startup_allowance +
                          (config_.per_scenario_allowance + absl::Seconds(options.max_seconds_per_scenario())) *
                              static_cast<int64_t>(ids.size());
      runner.max_output_bytes = 64 << 20;
      runner.on_stderr_line = [&](absl::string_view line) {
        // "progress I/N ID": I counts within this runner process.
        std::vector<absl::string_view> parts = absl::StrSplit(line, ' ');
        int index = 0;
        if (parts.size() >= 3 && parts[0] == "progress" &&
            absl::SimpleAtoi(parts[1].substr(0, parts[1].find('/')), &index)) {
          done = before + index - 1;
          progress.set_done(done);
          report(absl::StrCat(bench ? "benchmarking " : "verifying ", parts[2], round_label), progress);
        }
      };
      Sandboxed(work->path(), &runner);
      absl::StatusOr<SubprocessResult> ran = RunSubprocess(runner);
      if (!ran.ok()) return ran.status();
      done = before + static_cast<int>(ids.size());
      progress.set_done(done);

      // The runner prints its document even when a kernel failed (exit 1) or
      // hung or lost the GPU context (exit 3); a killed runner prints nothing.
      std::vector<ScenarioResult> chunk_results;
      json doc = ParseUntrustedJson(ran->stdout_text);
      if (doc.is_object()) {
        const json& device = doc.value("device", json::object());
        result.set_gpu(device.value("name", ""));
        if (device.contains("cuda_driver_version")) {
          int v = device["cuda_driver_version"].get<int>();
          result.set_driver(absl::StrCat(v / 1000, ".", (v % 1000) / 10));
        }
        for (const json& s : doc.value("scenarios", json::array())) chunk_results.push_back(FromRunnerScenario(s));
      }
      if (!ran->Succeeded() && ran->exit_code != 1) {
        std::string why = ran->timed_out ? absl::StrCat("kseek-runner ", ran->Describe())
                                         : absl::StrCat("kseek-runner ended with ", ran->Describe());
        result.set_runner_error(absl::StrCat(why, ": ", OutputTail(ran->stderr_text, 2000)));
        if (!doc.is_object()) {
          for (const std::string& id : names) {
            ScenarioResult r;
            r.set_id(id);
            r.set_reason(result.runner_error());
            chunk_results.push_back(std::move(r));
          }
        }
        runner_died = true;  // the GPU may be unusable: the next job gets a fresh process
      }

      if (!backwards && !runner_died) time_baselines();
      for (size_t b = 0; b < baselines.size() && !runner_died; ++b) {
        const std::string& name = baselines[b];
        const BaselineTimings& timings = timed[b];
        if (!timings.baseline.empty()) baseline_versions[name] = timings.baseline;
        for (ScenarioResult& r : chunk_results) {
          kernelseek::v1::BaselineFigure* figure = r.add_baselines();
          figure->set_name(name);
          auto it = timings.by_id.find(r.id());
          if (it == timings.by_id.end() || !it->second.ok) {
            figure->set_error(it == timings.by_id.end() ? "no baseline result" : it->second.error);
          } else {
            figure->set_median_ms(it->second.median_ms);
            if (it->second.median_ms > 0) figure->set_tflops(flops[r.id()] / (it->second.median_ms * 1e-3) / 1e12);
          }
          if (b == 0) {  // the primary baseline, also in the fields that predate the list
            r.set_baseline_median_ms(figure->median_ms());
            r.set_baseline_tflops(figure->tflops());
            r.set_baseline_error(figure->error());
          }
        }
      }
      for (ScenarioResult& r : chunk_results) {
        auto [it, inserted] = index_of.emplace(r.id(), result.scenarios_size());
        if (inserted) {
          *result.add_scenarios() = std::move(r);
        } else {
          KeepBestRound(r, result.mutable_scenarios(it->second));
        }
      }
      if (runner_died) break;
    }
  }
  for (const std::string& name : baselines) {
    kernelseek::v1::BaselineSummary* summary = result.add_baselines();
    summary->set_name(name);
    if (auto v = baseline_versions.find(name); v != baseline_versions.end()) summary->set_version(v->second);
  }
  SummarizeRun(&result);
  if (!baselines.empty() && baseline_versions.contains(baselines.front())) {
    result.set_baseline(baseline_versions[baselines.front()]);
  }
  progress.set_done(progress.total());
  report("done", progress);
  return result;
}

absl::StatusOr<kernelseek::v1::ProfileResult> RunExecutor::Profile(const kernelseek::v1::JobSpec& spec,
                                                                    const StageReporter& report) const {
  if (config_.ncu_path.empty()) {
    return absl::FailedPreconditionError("this worker has no Nsight Compute (ncu) to profile with");
  }
  const kernelseek::v1::RunOptions& options = spec.run();
  const std::string manifest_path = ManifestPath(options.problem());
  absl::StatusOr<Problem> problem = Problem::Load(manifest_path);
  if (!problem.ok()) return problem.status();
  if (absl::Status s = CheckProblemDigest(options.problem(), options.problem_digest(), problem->digest()); !s.ok()) {
    return s;
  }
  auto selected = problem->Select(options.scenarios());
  if (!selected.ok()) return selected.status();
  if (selected->size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("a profile job runs exactly one scenario; \"", options.scenarios(),
                                                   "\" selects ", selected->size()));
  }
  const std::string scenario = selected->front()->id();
  if (access(config_.runner_path.c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError(absl::StrCat("kseek-runner not found at ", config_.runner_path));
  }

  absl::StatusOr<TempDir> work = TempDir::Create(config_.temp_dir, "kseek-run");
  if (!work.ok()) return work.status();
  if (absl::Status s = sandbox_->HandOver(work->path()); !s.ok()) return s;
  const std::string so_path = absl::StrCat(work->path(), "/kernel.so");
  const std::string log_path = absl::StrCat(work->path(), "/ncu.csv");
  kernelseek::v1::Progress progress;
  progress.set_total(1);
  report(absl::StrCat("building ", spec.source_name(), " for ", spec.compile().arch()), progress);

  kernelseek::v1::ProfileResult result;
  result.set_scenario(scenario);
  result.set_ncu_version(config_.ncu_version);
  absl::StatusOr<kernelseek::v1::CompileResult> compiled = compiler_->BuildSharedObject(spec, so_path);
  if (!compiled.ok()) return compiled.status();
  *result.mutable_compile() = *std::move(compiled);
  if (!result.compile().cache().empty()) report(absl::StrCat("compile: cache ", result.compile().cache()), progress);
  if (!result.compile().success()) return result;

  std::vector<std::string> functions;
  for (const kernelseek::v1::KernelResources& r : result.compile().resources()) {
    if (std::find(functions.begin(), functions.end(), r.function()) == functions.end()) {
      functions.push_back(r.function());
    }
  }
  if (functions.empty()) {
    result.set_error("ptxas reported no kernel function in the build, so there is nothing to profile");
    return result;
  }

  const std::vector<std::string> runner_argv = RunnerArgv(manifest_path, so_path, "verify", scenario);
  SubprocessSpec ncu;
  ncu.argv = NcuProfileArgv(config_.ncu_path, functions, log_path, runner_argv);
  SetNcuLimits(&ncu);
  // The command is shown to users: the temp dir as $WORK, and never the key
  // the hidden scenario seeds are drawn from.
  std::vector<std::pair<std::string, std::string>> hide = {{work->path(), "$WORK"}};
  if (!config_.hidden_seed_key.empty()) hide.emplace_back(config_.hidden_seed_key, "HIDDEN");
  result.set_command(absl::StrReplaceAll(FormatCommandLine(ncu.argv), hide));

  report(absl::StrCat("profiling ", scenario, " under ncu"), progress);
  Sandboxed(work->path(), &ncu);
  absl::StatusOr<SubprocessResult> ran = RunSubprocess(ncu);
  if (!ran.ok()) return ran.status();
  progress.set_done(1);

  json doc = ParseUntrustedJson(ran->stdout_text);
  if (doc.is_object()) {
    result.set_gpu(doc.value("device", json::object()).value("name", ""));
    const json& scenarios = doc.value("scenarios", json::array());
    if (!scenarios.empty()) *result.mutable_verdict() = FromRunnerScenario(scenarios.front());
  }
  const std::string log = ReadWholeFile(log_path);
  absl::StatusOr<NcuReport> parsed = ParseNcuCsv(log);
  std::vector<std::string> problems;
  if (parsed.ok()) {
    for (kernelseek::v1::KernelProfile& k : parsed->kernels) *result.add_kernels() = std::move(k);
    for (const std::string& e : parsed->errors) problems.push_back(absl::StrCat("ncu: ", e));
  }
  if (NcuRunBroke(*ran)) {
    problems.push_back(absl::StrCat("ncu ", ran->Describe(), ": ",
                                    OutputTail(ran->stderr_text.empty() ? log : ran->stderr_text, 1000)));
  } else if (!parsed.ok()) {
    problems.push_back(absl::StrCat(parsed.status().message(), ": ", OutputTail(log + ran->stderr_text, 1000)));
  } else if (result.kernels().empty() && problems.empty()) {
    problems.push_back(absl::StrCat("ncu profiled no launch of the candidate's kernels (",
                                    absl::StrJoin(functions, ", "), ") in scenario ", scenario));
  }
  if (options.hotspots() > 0 && !result.kernels().empty()) {
    report(absl::StrCat("sampling warp stalls of ", scenario, " under ncu"), progress);
    if (std::string problem = AddHotSpots(functions, runner_argv, work->path(), options.hotspots(), &result);
        !problem.empty()) {
      problems.push_back(std::move(problem));
    }
  }
  result.set_error(absl::StrJoin(problems, "; "));
  report("done", progress);
  return result;
}

void RunExecutor::Sandboxed(const std::string& work_dir, SubprocessSpec* spec) const {
  if (!config_.hidden_seed_key.empty()) spec->stdin_text = absl::StrCat(config_.hidden_seed_key, "\n");
  sandbox_->Apply(SandboxKind::kGpu, {work_dir}, {config_.scenarios_dir}, spec);
}

void RunExecutor::SetNcuLimits(SubprocessSpec* ncu) const {
  ncu->time_limit = config_.startup_allowance + config_.per_scenario_allowance * kProfileSlowdown;
  ncu->max_output_bytes = 16 << 20;
}

std::string RunExecutor::AddHotSpots(const std::vector<std::string>& functions,
                                     const std::vector<std::string>& runner_argv, const std::string& work_dir,
                                     int hotspots, kernelseek::v1::ProfileResult* result) const {
  const std::string log_path = absl::StrCat(work_dir, "/ncu_source.csv");
  SubprocessSpec ncu;
  ncu.argv = NcuSourceArgv(config_.ncu_path, functions, log_path, runner_argv);
  SetNcuLimits(&ncu);
  Sandboxed(work_dir, &ncu);
  absl::StatusOr<SubprocessResult> ran = RunSubprocess(ncu);
  if (!ran.ok()) return absl::StrCat("hot spots: ", ran.status().message());
  const std::string log = ReadWholeFile(log_path);
  if (NcuRunBroke(*ran)) {
    return absl::StrCat("hot spots: ncu ", ran->Describe(), ": ",
                        OutputTail(ran->stderr_text.empty() ? log : ran->stderr_text, 1000));
  }
  absl::StatusOr<NcuSourceReport> parsed = ParseNcuSourceCsv(log, std::min(hotspots, kMaxProfileHotSpots));
  if (!parsed.ok()) {
    return absl::StrCat("hot spots: ", parsed.status().message(), ": ", OutputTail(log + ran->stderr_text, 1000));
  }
  std::vector<std::string> problems;
  for (const std::string& e : parsed->errors) problems.push_back(absl::StrCat("hot spots: ncu: ", e));
  // The first run printed plain function names ("--print-kernel-base
  // function"), the source page prints demangled signatures.
  for (kernelseek::v1::KernelHotSpots& k : parsed->kernels) {
    const std::string base = FunctionBaseName(k.kernel());
    kernelseek::v1::KernelProfile* owner = nullptr;
    for (kernelseek::v1::KernelProfile& p : *result->mutable_kernels()) {
      if (!p.has_hot_spots() && (p.kernel() == base || p.kernel() == k.kernel())) {
        owner = &p;
        break;
      }
    }
    if (owner == nullptr) {
      // Not one the first run reported; kept as a kernel of its own rather than lost.
      owner = result->add_kernels();
      owner->set_kernel(k.kernel());
    }
    *owner->mutable_hot_spots() = std::move(k);
  }
  if (parsed->kernels.empty() && problems.empty()) {
    problems.push_back("hot spots: ncu's source page sampled no kernel");
  }
  return absl::StrJoin(problems, "; ");
}

}  // namespace kseek
