#include "client/run_report.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "client/report_format.h"

namespace kseek {
namespace {

using kernelseek::v1::Diagnostic;
using kernelseek::v1::Job;
using kernelseek::v1::RunResult;
using kernelseek::v1::ScenarioResult;

// A finished job of `kind` for naive.cu on attention_fwd whose .so built.
Job RunJob(kernelseek::v1::JobKind kind) {
  Job job;
  job.set_id("42");
  job.set_state(kernelseek::v1::JOB_STATE_SUCCEEDED);
  job.set_worker("gpu-1");
  job.set_attempts(1);
  job.mutable_spec()->set_kind(kind);
  job.mutable_spec()->set_source_name("naive.cu");
  job.mutable_spec()->mutable_compile()->set_arch("sm_90a");
  auto* run = job.mutable_spec()->mutable_run();
  run->set_problem("attention_fwd");
  if (kind == kernelseek::v1::JOB_KIND_BENCH) {
    run->set_scenarios("perf");
    run->set_baseline("cudnn");
  } else {
    run->set_scenarios("all");
  }
  RunResult* result = job.mutable_result()->mutable_run();
  result->mutable_compile()->set_success(true);
  result->mutable_compile()->set_seconds(2.5);
  result->set_gpu("NVIDIA H200");
  result->set_driver("580.65");
  return job;
}

ScenarioResult* AddPassed(RunResult* run, const std::string& id, double error, double bar) {
  ScenarioResult* s = run->add_scenarios();
  s->set_id(id);
  s->set_passed(true);
  s->set_max_abs_error(error);
  s->set_error_bar(bar);
  s->set_rel_l2_error(1.2e-3);
  run->set_passed(run->passed() + 1);
  return s;
}

void SetTiming(ScenarioResult* s, double ms, double tflops, double baseline_tflops) {
  s->set_median_ms(ms);
  s->set_min_ms(ms * 0.99);
  s->set_max_ms(ms * 1.01);
  s->set_repetitions(100);
  s->set_tflops(tflops);
  if (baseline_tflops > 0) {
    s->set_baseline_tflops(baseline_tflops);
    s->set_baseline_median_ms(ms * tflops / baseline_tflops);
    s->set_speedup(tflops / baseline_tflops);
  }
}

// Bench on three perf scenarios: one faster than cuDNN, one where cuDNN
// could not run, one that failed verification and so was never timed.
Job BenchJob() {
  Job job = RunJob(kernelseek::v1::JOB_KIND_BENCH);
  RunResult* run = job.mutable_result()->mutable_run();
  run->set_baseline("cudnn torch 2.11.0 cudnn 91900");
  SetTiming(AddPassed(run, "perf-bf16-d64-full-s512", 3.1e-3, 7.8e-3), 0.8125, 338.6, 402.1);
  ScenarioResult* no_baseline = AddPassed(run, "perf-bf16-d256-full-s16384", 2.0e-3, 3.9e-3);
  SetTiming(no_baseline, 12.5, 410.2, 0);
  no_baseline->set_baseline_error("cuDNN: no kernel for head dim 256");
  ScenarioResult* failed = run->add_scenarios();
  failed->set_id("perf-fp16-d128-causal-s2048");
  failed->set_passed(false);
  failed->set_reason("max error 0.31 > bar 0.0078 in o");
  failed->set_max_abs_error(0.31);
  failed->set_error_bar(7.8e-3);
  failed->set_rel_l2_error(0.25);
  run->set_failed(1);
  run->set_geomean_tflops(372.7);
  run->set_geomean_speedup(0.842);
  return job;
}

std::string LineStartingWith(const std::string& text, const std::string& prefix) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, prefix)) return std::string(line);
  }
  return "";
}

TEST_CASE("bench report: a row per scenario in server order, failures and baseline errors") {
  std::string report = FormatRunReport(BenchJob());
  INFO(report);
  CHECK(absl::StartsWith(report,
                         "bench attention_fwd, scenarios perf, baseline cudnn\n"
                         "naive.cu (sm_90a): compiled in 2.50 s on gpu-1\n\n"));
  CHECK(absl::StrContains(
      report,
      "SCENARIO                     RESULT  MAX ERR vs BAR      REL L2  MS (MEDIAN)  TFLOP/S  "
      "BASELINE TFLOP/S  SPEEDUP  NOTE\n"
      "perf-bf16-d64-full-s512      PASS    3.1e-03 ≤ 7.8e-03  1.2e-03        0.812    338.6"
      "             402.1    0.84x\n"
      "perf-bf16-d256-full-s16384   PASS    2.0e-03 ≤ 3.9e-03  1.2e-03       12.500    410.2"
      "                 -        -  baseline: cuDNN: no kernel for head dim 256\n"
      "perf-fp16-d128-causal-s2048  FAIL    3.1e-01 > 7.8e-03  2.5e-01            -        -"
      "                 -        -  max error 0.31 > bar 0.0078 in o\n"));
}

TEST_CASE("bench summary gives passed X/Y, GPU, baseline and the geometric means") {
  std::string report = FormatRunReport(BenchJob());
  INFO(report);
  CHECK(absl::EndsWith(report,
                       "\npassed 2/3 on NVIDIA H200, driver 580.65\n"
                       "baseline: cudnn torch 2.11.0 cudnn 91900\n"
                       "geometric mean: 372.7 TFLOP/s over 2 scenario(s); speedup 0.842x over 1 "
                       "scenario(s) with a baseline\n"));
  CHECK_FALSE(absl::StrContains(report, "runner error"));
}

TEST_CASE("a bench's summary names the scenario with the lowest speedup, where the worker sent it") {
  Job job = BenchJob();
  kernelseek::v1::BaselineSummary* cudnn = job.mutable_result()->mutable_run()->add_baselines();
  cudnn->set_name("cudnn");
  cudnn->set_geomean_speedup(0.842);
  cudnn->set_timed(1);
  cudnn->set_lowest_scenario("perf-bf16-d64-full-s512");
  cudnn->set_lowest_speedup(0.842);
  CHECK(LineStartingWith(FormatRunReport(job), "geometric mean:") ==
        "geometric mean: 372.7 TFLOP/s over 2 scenario(s); speedup 0.842x over 1 scenario(s) with a "
        "baseline, lowest 0.842x at perf-bf16-d64-full-s512");
}

TEST_CASE("a sharded bench reads as one bench, and says which worker ran which scenarios") {
  Job job = BenchJob();
  job.mutable_spec()->mutable_run()->set_shards(2);
  const std::string one = FormatRunReport(BenchJob());
  RunResult* run = job.mutable_result()->mutable_run();
  for (int i = 0; i < 2; ++i) {
    kernelseek::v1::BenchShard* shard = run->add_shards();
    shard->set_index(i);
    shard->set_worker(absl::StrCat("gpu-", i + 1));
    shard->set_attempts(i + 1);
    for (int k = i; k < run->scenarios_size(); k += 2) shard->add_scenarios(run->scenarios(k).id());
  }
  const std::string report = FormatRunReport(job);
  CHECK_THAT(report, Catch::Contains(", over 2 GPUs\n"));
  CHECK_THAT(report, Catch::EndsWith(absl::StrCat(
                         "2 shards: 1 on gpu-1 (", run->shards(0).scenarios_size(), " scenarios), 2 on gpu-2 (",
                         run->shards(1).scenarios_size(), run->shards(1).scenarios_size() == 1 ? " scenario" : " scenarios",
                         ", 2 attempts)\n")));
  // Everything before those lines is the one-GPU report.
  CHECK(report.substr(report.find('\n')) .find(one.substr(one.find('\n'))) == 0);
}

TEST_CASE("bench without any baseline timing says so instead of a 0x speedup") {
  Job job = BenchJob();
  RunResult* run = job.mutable_result()->mutable_run();
  run->set_geomean_speedup(0);
  for (ScenarioResult& s : *run->mutable_scenarios()) {
    s.set_speedup(0);
    s.set_baseline_tflops(0);
  }
  CHECK(LineStartingWith(FormatRunReport(job), "geometric mean:") ==
        "geometric mean: 372.7 TFLOP/s over 2 scenario(s); speedup - (no scenario has a "
        "baseline timing)");
}

// Bench against FA3 and cuDNN: FA3 has no fp16 kernel, so the fp16 row has
// cuDNN's figure only.
Job TwoBaselineBench() {
  Job job = RunJob(kernelseek::v1::JOB_KIND_BENCH);
  job.mutable_spec()->mutable_run()->set_baseline("fa3,cudnn");
  RunResult* run = job.mutable_result()->mutable_run();
  auto figure = [](ScenarioResult* s, const std::string& name, double tflops, double speedup,
                   const std::string& error) {
    kernelseek::v1::BaselineFigure* b = s->add_baselines();
    b->set_name(name);
    b->set_tflops(tflops);
    b->set_speedup(speedup);
    b->set_error(error);
  };
  ScenarioResult* bf16 = AddPassed(run, "perf-bf16-d64-full-s512", 3.1e-3, 7.8e-3);
  SetTiming(bf16, 0.178, 386.8, 400.0);
  figure(bf16, "fa3", 400.0, 0.967, "");
  figure(bf16, "cudnn", 390.4, 0.991, "");
  ScenarioResult* f16 = AddPassed(run, "perf-f16-d64-full-s512", 3.1e-3, 7.8e-3);
  SetTiming(f16, 0.180, 380.0, 0);
  f16->set_baseline_error("no kernel: fa3-fwd 0.0.3 was built without fp16 (bf16 only)");
  figure(f16, "fa3", 0, 0, "no kernel: fa3-fwd 0.0.3 was built without fp16 (bf16 only)");
  figure(f16, "cudnn", 350.0, 1.086, "");
  auto summary = [&](const std::string& name, const std::string& version, double speedup, int timed,
                     double lowest) {
    kernelseek::v1::BaselineSummary* b = run->add_baselines();
    b->set_name(name);
    b->set_version(version);
    b->set_geomean_speedup(speedup);
    b->set_timed(timed);
    b->set_lowest_scenario("perf-bf16-d64-full-s512");
    b->set_lowest_speedup(lowest);
  };
  summary("fa3", "fa3 (torch 2.11.0+cu130 fa3-fwd 0.0.3)", 0.967, 1, 0.967);
  summary("cudnn", "cudnn (torch 2.11.0+cu130 cudnn 91900)", 1.0374, 2, 0.991);
  run->set_baseline("fa3 (torch 2.11.0+cu130 fa3-fwd 0.0.3)");
  run->set_geomean_tflops(383.4);
  run->set_geomean_speedup(0.967);
  return job;
}

TEST_CASE("a bench with several baselines has a TFLOP/s and a speedup column and a geometric mean for each") {
  std::string report = FormatRunReport(TwoBaselineBench());
  INFO(report);
  CHECK(absl::StrContains(
      report,
      "SCENARIO                 RESULT  MAX ERR vs BAR      REL L2  MS (MEDIAN)  TFLOP/S  FA3 TFLOP/S  VS FA3  "
      "CUDNN TFLOP/S  VS CUDNN  NOTE\n"
      "perf-bf16-d64-full-s512  PASS    3.1e-03 ≤ 7.8e-03  1.2e-03        0.178    386.8        400.0   0.97x  "
      "        390.4     0.99x\n"
      "perf-f16-d64-full-s512   PASS    3.1e-03 ≤ 7.8e-03  1.2e-03        0.180    380.0            -       -  "
      "        350.0     1.09x  fa3: no kernel: fa3-fwd 0.0.3 was built without fp16 (bf16 only)\n"));
  CHECK(absl::EndsWith(report,
                       "baselines: fa3 (torch 2.11.0+cu130 fa3-fwd 0.0.3); cudnn (torch 2.11.0+cu130 cudnn 91900)\n"
                       "geometric mean: 383.4 TFLOP/s over 2 scenario(s); speedup 0.967x vs fa3 over 1 scenario(s), "
                       "lowest 0.967x at perf-bf16-d64-full-s512; 1.037x vs cudnn over 2 scenario(s), lowest "
                       "0.991x at perf-bf16-d64-full-s512\n"));
}

TEST_CASE("exit codes of a finished bench follow its worst scenario") {
  Job job = BenchJob();
  CHECK(RunExitCode(job) == kExitScenarioFailed);

  // Drop the failed row: every scenario passed and was timed.
  RunResult* run = job.mutable_result()->mutable_run();
  run->mutable_scenarios()->RemoveLast();
  run->set_failed(0);
  CHECK(RunExitCode(job) == kExitOk);

  SECTION("a baseline error alone does not fail the kernel") {
    CHECK(!run->scenarios(1).baseline_error().empty());
    CHECK(RunExitCode(job) == kExitOk);
  }
  SECTION("a passing scenario without a timing leaves the result incomplete") {
    run->mutable_scenarios(0)->set_median_ms(0);
    CHECK(RunExitCode(job) == kExitJobFailed);
    CHECK(absl::StrContains(FormatRunReport(job), "\n1 scenario(s) passed but were not timed\n"));
  }
  SECTION("a runner that stopped early is exit 4 and its error is in the summary") {
    run->set_runner_error("runner timed out after 600 s in scenario perf-bf16-d64-causal-s1024");
    CHECK(RunExitCode(job) == kExitJobFailed);
    CHECK(absl::EndsWith(FormatRunReport(job),
                         "\nrunner error: runner timed out after 600 s in scenario "
                         "perf-bf16-d64-causal-s1024\n"));
  }
  SECTION("a failed scenario outranks a runner error") {
    run->set_runner_error("illegal memory access");
    run->mutable_scenarios(0)->set_passed(false);
    CHECK(RunExitCode(job) == kExitScenarioFailed);
  }
  SECTION("a run with no scenario at all is not a pass") {
    run->clear_scenarios();
    run->set_passed(0);
    CHECK(RunExitCode(job) == kExitJobFailed);
    CHECK(absl::EndsWith(FormatRunReport(job), "\nno scenario ran\n"));
  }
}

TEST_CASE("verify report has no timing columns and counts passes") {
  Job job = RunJob(kernelseek::v1::JOB_KIND_VERIFY);
  RunResult* run = job.mutable_result()->mutable_run();
  AddPassed(run, "corr-bf16-d64-sq113-sk203", 1.5e-3, 3.9e-3);
  ScenarioResult* nan = run->add_scenarios();
  nan->set_id("corr-fp16-d96-decode");
  nan->set_reason("NaN in lse at [0, 3, 0]");
  run->set_failed(1);

  std::string report = FormatRunReport(job);
  INFO(report);
  CHECK(report ==
        "verify attention_fwd, scenarios all\n"
        "naive.cu (sm_90a): compiled in 2.50 s on gpu-1\n"
        "\n"
        "SCENARIO                   RESULT  MAX ERR vs BAR      REL L2  NOTE\n"
        "corr-bf16-d64-sq113-sk203  PASS    1.5e-03 ≤ 3.9e-03  1.2e-03\n"
        "corr-fp16-d96-decode       FAIL    -                        -  NaN in lse at [0, 3, 0]\n"
        "\n"
        "passed 1/2 on NVIDIA H200, driver 580.65\n");
  CHECK(RunExitCode(job) == kExitScenarioFailed);
  run->mutable_scenarios()->RemoveLast();
  run->set_failed(0);
  CHECK(RunExitCode(job) == kExitOk);
}

TEST_CASE("a kernel that did not build shows its diagnostics and no scenario table") {
  Job job = BenchJob();
  RunResult* run = job.mutable_result()->mutable_run();
  run->clear_scenarios();
  run->set_passed(0);
  run->set_failed(0);
  run->mutable_compile()->set_success(false);
  Diagnostic* d = run->mutable_compile()->add_diagnostics();
  d->set_file("naive.cu");
  d->set_line(12);
  d->set_severity(Diagnostic::SEVERITY_ERROR);
  d->set_message("identifier \"attention_fwd_args\" is undefined");

  std::string report = FormatRunReport(job);
  CHECK(report ==
        "bench attention_fwd, scenarios perf, baseline cudnn\n"
        "naive.cu (sm_90a): did not compile (2.50 s on gpu-1)\n"
        "\n"
        "diagnostics:\n"
        "naive.cu:12: error: identifier \"attention_fwd_args\" is undefined\n");
  CHECK(RunExitCode(job) == kExitDidNotCompile);
}

TEST_CASE("a compiled kernel's warnings appear in the run report, its SASS tables do not") {
  Job job = BenchJob();
  auto* compile = job.mutable_result()->mutable_run()->mutable_compile();
  Diagnostic* d = compile->add_diagnostics();
  d->set_file("naive.cu");
  d->set_line(30);
  d->set_severity(Diagnostic::SEVERITY_WARNING);
  d->set_message("variable \"m\" was set but never used");
  compile->add_resources()->set_function("attention_fwd_kernel");
  std::string report = FormatRunReport(job);
  CHECK(absl::StrContains(report,
                          "\ndiagnostics:\nnaive.cu:30: warning: variable \"m\" was set but never "
                          "used\n\nSCENARIO"));
  CHECK_FALSE(absl::StrContains(report, "REGS"));
}

TEST_CASE("a job without a run result says so") {
  Job job = RunJob(kernelseek::v1::JOB_KIND_VERIFY);
  job.clear_result();
  job.set_state(kernelseek::v1::JOB_STATE_FAILED);
  CHECK(FormatRunReport(job) ==
        "verify attention_fwd, scenarios all: job 42 has no run result (failed)\n");
  CHECK(RunExitCode(job) == kExitJobFailed);
}

TEST_CASE("progress bar fills in proportion and clamps") {
  CHECK(FormatProgressBar(0, 72, 12) == "[............] 0/72");
  CHECK(FormatProgressBar(36, 72, 12) == "[######......] 36/72");
  CHECK(FormatProgressBar(72, 72, 12) == "[############] 72/72");
  CHECK(FormatProgressBar(80, 72, 12) == "[############] 72/72");
  CHECK(FormatProgressBar(1, 182, 12) == "[............] 1/182");
  CHECK(FormatProgressBar(3, 0, 12).empty());
}

TEST_CASE("run progress shows the bar once the worker reports one, then the stage") {
  Job job = RunJob(kernelseek::v1::JOB_KIND_BENCH);
  job.clear_result();
  job.set_attempts(0);
  job.set_state(kernelseek::v1::JOB_STATE_QUEUED);
  CHECK(FormatRunProgress(job) == "queued");
  job.set_state(kernelseek::v1::JOB_STATE_LEASED);
  job.set_stage("compiling");
  CHECK(FormatRunProgress(job) == "compiling on gpu-1");
  job.set_stage("benchmarking");
  job.mutable_progress()->set_done(18);
  job.mutable_progress()->set_total(72);
  CHECK(FormatRunProgress(job) == "[######..................] 18/72  benchmarking on gpu-1");
  job.set_state(kernelseek::v1::JOB_STATE_SUCCEEDED);
  CHECK(FormatRunProgress(job) == "finished");
}

TEST_CASE("job details of a bench job show its run options and end with its report") {
  std::string details = FormatJobDetails(BenchJob(), absl::FromUnixSeconds(1'800'000'000));
  CHECK(LineStartingWith(details, "kind") == "kind      bench");
  CHECK(LineStartingWith(details, "run") ==
        "run       bench attention_fwd, scenarios perf, baseline cudnn");
  CHECK(absl::StrContains(details, "\n\nbench attention_fwd, scenarios perf, baseline cudnn\n"));
  CHECK(absl::StrContains(details, "\npassed 2/3 on NVIDIA H200, driver 580.65\n"));
}

// A finished profile of naive.cu on one attention_fwd scenario whose .so
// built and whose one kernel ncu profiled.
Job ProfileJob() {
  Job job;
  job.set_id("43");
  job.set_state(kernelseek::v1::JOB_STATE_SUCCEEDED);
  job.set_worker("gpu-1");
  job.set_attempts(1);
  job.mutable_spec()->set_kind(kernelseek::v1::JOB_KIND_PROFILE);
  job.mutable_spec()->set_source_name("naive.cu");
  job.mutable_spec()->mutable_compile()->set_arch("sm_90a");
  job.mutable_spec()->mutable_run()->set_problem("attention_fwd");
  job.mutable_spec()->mutable_run()->set_scenarios("perf-bf16-d64-full-s512");
  kernelseek::v1::ProfileResult* profile = job.mutable_result()->mutable_profile();
  profile->mutable_compile()->set_success(true);
  profile->mutable_compile()->set_seconds(2.5);
  profile->mutable_compile()->set_command("nvcc -shared -o $WORK/kernel.so naive.cu");
  profile->set_scenario("perf-bf16-d64-full-s512");
  profile->set_gpu("NVIDIA H200");
  profile->set_ncu_version("2025.3.1");
  profile->set_command("ncu --log-file $WORK/ncu.csv kseek-runner");
  profile->mutable_verdict()->set_passed(true);
  kernelseek::v1::KernelProfile* k = profile->add_kernels();
  k->set_kernel("attention_fwd_kernel");
  k->set_block_size("(128, 1, 1)");
  k->set_grid_size("(64, 16, 1)");
  k->set_duration_us(845.3);
  k->set_registers_per_thread(168);
  return job;
}

TEST_CASE("profile report: run line, build outcome, then the profile with the ncu command") {
  std::string report = FormatProfileReport(ProfileJob());
  CHECK(absl::StartsWith(
      report,
      "profile attention_fwd, scenario perf-bf16-d64-full-s512\n"
      "naive.cu (sm_90a): compiled in 2.50 s on gpu-1\n"
      "\n"
      "profile of naive.cu on perf-bf16-d64-full-s512 on NVIDIA H200 (Nsight Compute "
      "2025.3.1)\n"
      "verify: passed\n"
      "kernel attention_fwd_kernel block (128, 1, 1) grid (64, 16, 1): 845.3 us,"));
  CHECK(absl::EndsWith(report, "ncu command: ncu --log-file $WORK/ncu.csv kseek-runner\n"));
  CHECK(ProfileExitCode(ProfileJob()) == kExitOk);
}

TEST_CASE("exit codes of a finished profile: build and verdict are 1, a missing profile is 4") {
  Job job = ProfileJob();
  kernelseek::v1::ProfileResult* profile = job.mutable_result()->mutable_profile();
  SECTION("the build failed: diagnostics, no profile") {
    profile->mutable_compile()->set_success(false);
    Diagnostic* d = profile->mutable_compile()->add_diagnostics();
    d->set_file("naive.cu");
    d->set_line(7);
    d->set_severity(Diagnostic::SEVERITY_ERROR);
    d->set_message("identifier \"q\" is undefined");
    std::string report = FormatProfileReport(job);
    CHECK(absl::StrContains(report, "naive.cu (sm_90a): did not compile"));
    CHECK(absl::StrContains(report, "identifier \"q\" is undefined"));
    CHECK_FALSE(absl::StrContains(report, "kernel attention_fwd_kernel"));
    CHECK(ProfileExitCode(job) == kExitDidNotCompile);
  }
  SECTION("the scenario failed verification, even with an ncu error") {
    profile->mutable_verdict()->set_passed(false);
    profile->mutable_verdict()->set_reason("NaN in lse");
    profile->set_error("ncu exited with code 2");
    CHECK(absl::StrContains(FormatProfileReport(job), "\nverify: FAIL NaN in lse\n"));
    CHECK(ProfileExitCode(job) == kExitScenarioFailed);
  }
  SECTION("ncu reported an error") {
    profile->set_error("ncu: ERR_NVGPUCTRPERM");
    CHECK(absl::StrContains(FormatProfileReport(job), "\nprofile error: ncu: ERR_NVGPUCTRPERM\n"));
    CHECK(ProfileExitCode(job) == kExitJobFailed);
  }
  SECTION("no kernel was profiled") {
    profile->clear_kernels();
    CHECK(absl::StrContains(FormatProfileReport(job), "\nno candidate kernel was profiled\n"));
    CHECK(ProfileExitCode(job) == kExitJobFailed);
  }
  SECTION("no profile result") {
    job.clear_result();
    job.set_state(kernelseek::v1::JOB_STATE_FAILED);
    CHECK(FormatProfileReport(job) ==
          "profile attention_fwd, scenario perf-bf16-d64-full-s512: job 43 has no profile result "
          "(failed)\n");
    CHECK(ProfileExitCode(job) == kExitJobFailed);
  }
}

TEST_CASE("job details of a profile job show its scenario, the build command and the profile") {
  std::string details = FormatJobDetails(ProfileJob(), absl::FromUnixSeconds(1'800'000'000));
  CHECK(LineStartingWith(details, "kind") == "kind      profile");
  CHECK(LineStartingWith(details, "run") ==
        "run       profile attention_fwd, scenario perf-bf16-d64-full-s512");
  CHECK(LineStartingWith(details, "command") ==
        "command   nvcc -shared -o $WORK/kernel.so naive.cu");
  CHECK(absl::StrContains(details, "\nkernel attention_fwd_kernel block (128, 1, 1)"));
}

}  // namespace
}  // namespace kseek
