#include "client/run_report.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/report_format.h"
#include "client/text_table.h"
#include "common/profile_text.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;
using kernelseek::v1::ProfileResult;
using kernelseek::v1::RunResult;
using kernelseek::v1::ScenarioResult;

bool IsBench(const Job& job) { return job.spec().kind() == kernelseek::v1::JOB_KIND_BENCH; }

// A .so build the worker reported as failed; a result without a compile
// message (an older worker) is judged by its scenarios alone.
bool BuildFailed(const RunResult& run) { return run.has_compile() && !run.compile().success(); }

bool WasTimed(const ScenarioResult& s) { return s.median_ms() > 0; }

// "3.1e-03 ≤ 7.8e-03" for a pass, "3.1e-01 > 7.8e-03" for a fail; "-" when
// the scenario failed before any output was compared (both are zero then).
std::string ErrorAgainstBar(const ScenarioResult& s) {
  if (s.max_abs_error() == 0 && s.error_bar() == 0 && !s.passed()) return "-";
  bool within = s.max_abs_error() <= s.error_bar();
  return absl::StrFormat("%.1e %s %.1e", s.max_abs_error(), within ? "≤" : ">", s.error_bar());
}

// A bench with several baselines shows a TFLOP/s and a speedup column for
// each; one baseline (or a worker that sent no list) keeps the one pair.
bool SeveralBaselines(const RunResult& run) { return run.baselines_size() > 1; }

std::string Note(const RunResult& run, const ScenarioResult& s) {
  std::vector<std::string> parts;
  if (!s.passed()) parts.push_back(s.reason().empty() ? "no reason given" : s.reason());
  if (SeveralBaselines(run)) {
    for (const kernelseek::v1::BaselineFigure& b : s.baselines()) {
      if (!b.error().empty()) parts.push_back(absl::StrCat(b.name(), ": ", b.error()));
    }
  } else if (!s.baseline_error().empty()) {
    parts.push_back(absl::StrCat("baseline: ", s.baseline_error()));
  }
  return absl::StrJoin(parts, "; ");
}

std::string Tflops(double tflops) { return tflops > 0 ? absl::StrFormat("%.1f", tflops) : "-"; }
std::string Speedup(double speedup) { return speedup > 0 ? absl::StrFormat("%.2fx", speedup) : "-"; }

// The scenario's figure for the job's baseline `name`; an empty one where the
// worker sent none.
kernelseek::v1::BaselineFigure FigureFor(const ScenarioResult& s, const std::string& name) {
  for (const kernelseek::v1::BaselineFigure& b : s.baselines()) {
    if (b.name() == name) return b;
  }
  return {};
}

// ", lowest 0.926x at perf-bf16-d64-causal-s2048": where a bench's worst
// scenario against this baseline stands; empty where the worker sent none.
std::string Lowest(const kernelseek::v1::BaselineSummary& b) {
  if (b.lowest_scenario().empty()) return "";
  return absl::StrFormat(", lowest %.3fx at %s", b.lowest_speedup(), b.lowest_scenario());
}

std::string Upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string ScenarioTable(const RunResult& run, bool bench) {
  std::vector<std::string> header = {"SCENARIO", "RESULT", "MAX ERR vs BAR", "REL L2"};
  if (bench) {
    header.push_back("MS (MEDIAN)");
    header.push_back("TFLOP/S");
    if (SeveralBaselines(run)) {
      for (const kernelseek::v1::BaselineSummary& b : run.baselines()) {
        header.push_back(absl::StrCat(Upper(b.name()), " TFLOP/S"));
        header.push_back(absl::StrCat("VS ", Upper(b.name())));
      }
    } else {
      header.push_back("BASELINE TFLOP/S");
      header.push_back("SPEEDUP");
    }
  }
  header.push_back("NOTE");
  std::vector<Align> align(header.size(), Align::kRight);
  align[0] = align[1] = align[2] = align.back() = Align::kLeft;

  std::vector<std::vector<std::string>> rows;
  for (const ScenarioResult& s : run.scenarios()) {
    bool compared = s.passed() || s.max_abs_error() != 0 || s.error_bar() != 0;
    std::vector<std::string> row = {s.id(), s.passed() ? "PASS" : "FAIL", ErrorAgainstBar(s),
                                    compared ? absl::StrFormat("%.1e", s.rel_l2_error()) : "-"};
    if (bench) {
      row.push_back(WasTimed(s) ? absl::StrFormat("%.3f", s.median_ms()) : "-");
      row.push_back(WasTimed(s) ? absl::StrFormat("%.1f", s.tflops()) : "-");
      if (SeveralBaselines(run)) {
        for (const kernelseek::v1::BaselineSummary& b : run.baselines()) {
          kernelseek::v1::BaselineFigure figure = FigureFor(s, b.name());
          row.push_back(Tflops(figure.tflops()));
          row.push_back(Speedup(figure.speedup()));
        }
      } else {
        row.push_back(Tflops(s.baseline_tflops()));
        row.push_back(Speedup(s.speedup()));
      }
    }
    row.push_back(Note(run, s));
    rows.push_back(std::move(row));
  }
  return FormatTable(header, align, rows);
}

std::string Summary(const Job& job) {
  const RunResult& run = job.result().run();
  std::string out = absl::StrCat("passed ", run.passed(), "/", run.passed() + run.failed());
  if (!run.gpu().empty()) absl::StrAppend(&out, " on ", run.gpu());
  if (!run.driver().empty()) absl::StrAppend(&out, ", driver ", run.driver());
  absl::StrAppend(&out, "\n");

  if (IsBench(job)) {
    auto count = [&](auto pred) {
      return std::count_if(run.scenarios().begin(), run.scenarios().end(), pred);
    };
    int64_t timed = count([](const ScenarioResult& s) { return s.tflops() > 0; });
    std::string tflops =
        run.geomean_tflops() > 0
            ? absl::StrFormat("%.1f TFLOP/s over %d scenario(s)", run.geomean_tflops(), timed)
            : "- TFLOP/s (no scenario was timed)";
    if (SeveralBaselines(run)) {
      std::vector<std::string> versions, speedups;
      for (const kernelseek::v1::BaselineSummary& b : run.baselines()) {
        versions.push_back(b.version().empty() ? b.name() : b.version());
        speedups.push_back(b.geomean_speedup() > 0
                               ? absl::StrFormat("%.3fx vs %s over %d scenario(s)%s", b.geomean_speedup(),
                                                 b.name(), b.timed(), Lowest(b))
                               : absl::StrCat("- vs ", b.name(), " (no scenario has its timing)"));
      }
      absl::StrAppend(&out, "baselines: ", absl::StrJoin(versions, "; "), "\n");
      absl::StrAppend(&out, "geometric mean: ", tflops, "; speedup ", absl::StrJoin(speedups, "; "), "\n");
    } else {
      const std::string& baseline =
          run.baseline().empty() ? job.spec().run().baseline() : run.baseline();
      absl::StrAppend(&out, "baseline: ", baseline.empty() ? "-" : baseline, "\n");
      int64_t compared = count([](const ScenarioResult& s) { return s.speedup() > 0; });
      std::string speedup =
          run.geomean_speedup() > 0
              ? absl::StrFormat("speedup %.3fx over %d scenario(s) with a baseline%s", run.geomean_speedup(),
                                compared, run.baselines_size() == 1 ? Lowest(run.baselines(0)) : "")
              : "speedup - (no scenario has a baseline timing)";
      absl::StrAppend(&out, "geometric mean: ", tflops, "; ", speedup, "\n");
    }
    int64_t untimed = count([](const ScenarioResult& s) { return s.passed() && !WasTimed(s); });
    if (untimed > 0) {
      absl::StrAppend(&out, untimed, " scenario(s) passed but were not timed\n");
    }
  }
  if (run.scenarios_size() == 0 && run.runner_error().empty()) {
    absl::StrAppend(&out, "no scenario ran\n");
  }
  if (!run.runner_error().empty()) {
    absl::StrAppend(&out, "runner error: ", run.runner_error(), "\n");
  }
  return out;
}

}  // namespace

std::string FormatProgressBar(int done, int total, int width) {
  if (total <= 0) return "";
  done = std::clamp(done, 0, total);
  width = std::max(width, 1);
  int filled = static_cast<int>(static_cast<int64_t>(done) * width / total);
  return absl::StrCat("[", std::string(filled, '#'), std::string(width - filled, '.'), "] ", done,
                      "/", total);
}

std::string FormatRunProgress(const Job& job) {
  constexpr int kBarWidth = 24;
  if (job.state() != kernelseek::v1::JOB_STATE_LEASED || job.progress().total() <= 0) {
    return FormatProgress(job);
  }
  return absl::StrCat(FormatProgressBar(job.progress().done(), job.progress().total(), kBarWidth),
                      "  ", FormatProgress(job));
}

std::string FormatRunOptions(kernelseek::v1::JobKind kind,
                             const kernelseek::v1::RunOptions& options) {
  std::string out = absl::StrCat(
      JobKindLabel(kind), " ", options.problem().empty() ? "(no problem)" : options.problem(),
      kind == kernelseek::v1::JOB_KIND_PROFILE ? ", scenario " : ", scenarios ",
      options.scenarios().empty() ? "(default)" : options.scenarios());
  if (kind == kernelseek::v1::JOB_KIND_BENCH) {
    absl::StrAppend(&out, ", baseline ",
                    options.baseline().empty() ? "(default)" : options.baseline());
    if (options.max_seconds_per_scenario() > 0) {
      absl::StrAppend(&out, ", at most ", options.max_seconds_per_scenario(), " s per scenario");
    }
    if (options.rounds() > 1) absl::StrAppend(&out, ", best of ", options.rounds(), " rounds");
    if (options.shards() > 1) absl::StrAppend(&out, ", over ", options.shards(), " GPUs");
    if (options.shards() < 0) absl::StrAppend(&out, ", over the idle GPUs");
  }
  return out;
}

std::string FormatRunReport(const Job& job) {
  std::string run_line = FormatRunOptions(job.spec().kind(), job.spec().run());
  if (!job.result().has_run()) {
    return absl::StrCat(run_line, ": job ", job.id(), " has no run result (",
                        JobStateLabel(job.state()), ")\n");
  }
  const RunResult& run = job.result().run();
  std::string out = absl::StrCat(run_line, "\n");
  if (run.has_compile()) {
    absl::StrAppend(&out, FormatCompileResult(job.spec(), job.worker(), run.compile(),
                                              CompileReportDetail::kOutcomeAndDiagnostics));
  }
  if (BuildFailed(run)) return out;
  absl::StrAppend(&out, "\n");
  if (run.scenarios_size() > 0) absl::StrAppend(&out, ScenarioTable(run, IsBench(job)), "\n");
  absl::StrAppend(&out, Summary(job));
  if (run.shards_size() > 1) {
    std::vector<std::string> shards;
    for (const kernelseek::v1::BenchShard& shard : run.shards()) {
      shards.push_back(absl::StrCat(shard.index() + 1, " on ", shard.worker(), " (", shard.scenarios_size(),
                                    shard.scenarios_size() == 1 ? " scenario" : " scenarios",
                                    shard.attempts() > 1 ? absl::StrCat(", ", shard.attempts(), " attempts") : "",
                                    ")"));
    }
    absl::StrAppend(&out, run.shards_size(), " shards: ", absl::StrJoin(shards, ", "), "\n");
  }
  return out;
}

ExitCode RunExitCode(const Job& job) {
  if (!job.result().has_run()) return kExitJobFailed;
  const RunResult& run = job.result().run();
  if (BuildFailed(run)) return kExitDidNotCompile;
  bool any_failed =
      run.failed() > 0 || std::any_of(run.scenarios().begin(), run.scenarios().end(),
                                      [](const ScenarioResult& s) { return !s.passed(); });
  if (any_failed) return kExitScenarioFailed;
  if (!run.runner_error().empty() || run.scenarios_size() == 0) return kExitJobFailed;
  if (IsBench(job) && !std::all_of(run.scenarios().begin(), run.scenarios().end(), WasTimed)) {
    return kExitJobFailed;
  }
  return kExitOk;
}

std::string FormatProfileReport(const Job& job) {
  std::string run_line = FormatRunOptions(job.spec().kind(), job.spec().run());
  if (!job.result().has_profile()) {
    return absl::StrCat(run_line, ": job ", job.id(), " has no profile result (",
                        JobStateLabel(job.state()), ")\n");
  }
  const ProfileResult& profile = job.result().profile();
  std::string out = absl::StrCat(run_line, "\n");
  if (profile.has_compile()) {
    absl::StrAppend(&out, FormatCompileResult(job.spec(), job.worker(), profile.compile(),
                                              CompileReportDetail::kOutcomeAndDiagnostics));
    if (!profile.compile().success()) return out;
  }
  const std::string& source = job.spec().source_name();
  absl::StrAppend(
      &out, "\n",
      FormatProfileText(profile,
                        ProfileTextOptions{.subject = source.empty() ? "(unnamed source)" : source,
                                           .show_command_line = true}));
  return out;
}

ExitCode ProfileExitCode(const Job& job) {
  if (!job.result().has_profile()) return kExitJobFailed;
  const ProfileResult& profile = job.result().profile();
  if (profile.has_compile() && !profile.compile().success()) return kExitDidNotCompile;
  if (profile.has_verdict() && !profile.verdict().passed()) return kExitScenarioFailed;
  if (!profile.error().empty() || profile.kernels().empty()) return kExitJobFailed;
  return kExitOk;
}

}  // namespace kseek
