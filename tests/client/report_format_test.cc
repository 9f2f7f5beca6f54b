#include "client/report_format.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"

namespace kseek {
namespace {

using kernelseek::v1::Diagnostic;
using kernelseek::v1::Job;
using kernelseek::v1::KernelResources;
using kernelseek::v1::SassSummary;
using kernelseek::v1::WorkerInfo;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

void SetTime(google::protobuf::Timestamp* ts, absl::Time t) {
  ts->set_seconds(absl::ToUnixSeconds(t));
}

void AddClass(SassSummary* s, const std::string& name, int count) {
  auto* c = s->add_classes();
  c->set_name(name);
  c->set_count(count);
}

// A finished compile of gemm.cu for sm_90a: two kernels and one warning.
Job CompiledJob() {
  Job job;
  job.set_id("17");
  job.set_state(kernelseek::v1::JOB_STATE_SUCCEEDED);
  job.set_user("alice");
  job.set_worker("worker-a");
  job.set_attempts(1);
  job.mutable_spec()->set_kind(kernelseek::v1::JOB_KIND_COMPILE);
  job.mutable_spec()->set_source_name("gemm.cu");
  job.mutable_spec()->set_source("__global__ void k() {}\n");
  job.mutable_spec()->mutable_compile()->set_arch("sm_90a");
  job.mutable_spec()->mutable_compile()->set_line_info(true);
  job.mutable_spec()->mutable_compile()->add_defines("TILE=64");
  SetTime(job.mutable_created(), kNow - absl::Seconds(130));
  SetTime(job.mutable_finished(), kNow - absl::Seconds(120));

  auto* result = job.mutable_result()->mutable_compile();
  result->set_success(true);
  result->set_seconds(1.25);
  result->set_command("nvcc -arch=sm_90a -c $WORK/gemm.cu");
  Diagnostic* d = result->add_diagnostics();
  d->set_file("gemm.cu");
  d->set_line(42);
  d->set_severity(Diagnostic::SEVERITY_WARNING);
  d->set_message("variable \"x\" was declared but never referenced");

  KernelResources* r1 = result->add_resources();
  r1->set_function("_Z9gemm_wgmmaPKfS0_Pf");
  r1->set_arch("sm_90a");
  r1->set_registers(168);
  r1->set_spill_store_bytes(24);
  r1->set_spill_load_bytes(16);
  r1->set_stack_frame_bytes(40);
  r1->set_shared_bytes(98304);
  r1->set_constant_bytes(560);
  r1->set_barriers(2);
  KernelResources* r2 = result->add_resources();
  r2->set_function("reduce_rows");
  r2->set_arch("sm_90a");
  r2->set_registers(32);
  r2->set_constant_bytes(380);
  r2->set_barriers(1);

  SassSummary* s1 = result->add_sass();
  s1->set_function("_Z9gemm_wgmmaPKfS0_Pf");
  s1->set_total(2048);
  for (const char* name : kTrackedSassClasses) AddClass(s1, name, 0);
  s1->mutable_classes(0)->set_count(128);  // HGMMA
  AddClass(s1, "FFMA", 700);
  AddClass(s1, "IMAD", 300);
  AddClass(s1, "ISETP", 90);
  AddClass(s1, "BRA", 12);
  SassSummary* s2 = result->add_sass();
  s2->set_function("reduce_rows");
  s2->set_total(96);
  AddClass(s2, "LDG", 4);  // the worker counted only LDG here
  return job;
}

// The line of `text` that starts with `prefix`, or "" if none does.
std::string LineStartingWith(const std::string& text, const std::string& prefix) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, prefix)) return std::string(line);
  }
  return "";
}

std::vector<std::string> Fields(const std::string& line) {
  return absl::StrSplit(line, ' ', absl::SkipEmpty());
}

TEST_CASE("compile report shows outcome, diagnostics, resources and SASS per kernel") {
  std::string report = FormatCompileReport(CompiledJob());

  CHECK(absl::StartsWith(report,
                         "gemm.cu (sm_90a -lineinfo -DTILE=64): compiled in 1.25 s on worker-a\n"));
  CHECK(absl::StrContains(
      report, "\ngemm.cu:42: warning: variable \"x\" was declared but never referenced\n"));

  std::string header = LineStartingWith(report, "FUNCTION  ");
  CHECK(header == "FUNCTION               REGS  SPILL ST  SPILL LD  STACK   SMEM  CMEM  BARRIERS");
  CHECK(Fields(LineStartingWith(report, "_Z9gemm_wgmmaPKfS0_Pf ")) ==
        std::vector<std::string>{"_Z9gemm_wgmmaPKfS0_Pf", "168", "24", "16", "40", "98304", "560",
                                 "2"});
  CHECK(Fields(LineStartingWith(report, "reduce_rows ")) ==
        std::vector<std::string>{"reduce_rows", "32", "0", "0", "0", "0", "380", "1"});
}

TEST_CASE("SASS table has a column per tracked class and names the top other classes") {
  std::string report = FormatCompileReport(CompiledJob());
  size_t sass_at = report.find("SASS instructions per kernel");
  REQUIRE(sass_at != std::string::npos);
  std::string sass = report.substr(sass_at);

  CHECK(Fields(LineStartingWith(sass, "FUNCTION")) ==
        std::vector<std::string>{"FUNCTION", "TOTAL", "HGMMA", "HMMA", "LDL", "STL", "BAR", "MUFU",
                                 "LDS", "STS", "LDG", "STG", "TOP", "OTHERS"});
  // HGMMA 128, other tracked 0, then the three largest untracked classes.
  CHECK(LineStartingWith(sass, "_Z9gemm_wgmmaPKfS0_Pf")
            .ends_with("2048    128     0    0    0    0     0    0    0    0    0  FFMA 700, IMAD "
                       "300, ISETP 90"));
  // Classes the worker did not count are "-", not a misleading 0.
  CHECK(Fields(LineStartingWith(sass, "reduce_rows")) ==
        std::vector<std::string>{"reduce_rows", "96", "-", "-", "-", "-", "-", "-", "-", "-", "4",
                                 "-"});
}

TEST_CASE("a kernel that did not compile shows its errors and no resource tables") {
  Job job = CompiledJob();
  auto* result = job.mutable_result()->mutable_compile();
  result->set_success(false);
  result->clear_resources();
  result->clear_sass();
  result->clear_diagnostics();
  Diagnostic* d = result->add_diagnostics();
  d->set_file("gemm.cu");
  d->set_line(7);
  d->set_severity(Diagnostic::SEVERITY_ERROR);
  d->set_message("identifier \"tile\" is undefined");
  Diagnostic* no_line = result->add_diagnostics();
  no_line->set_severity(Diagnostic::SEVERITY_ERROR);
  no_line->set_message("1 error detected in the compilation");

  std::string report = FormatCompileReport(job);
  CHECK(absl::StrContains(report, "did not compile (1.25 s on worker-a)"));
  CHECK(absl::StrContains(report, "\ngemm.cu:7: error: identifier \"tile\" is undefined\n"));
  // A diagnostic without a file or line is attributed to the source file.
  CHECK(absl::StrContains(report, "\ngemm.cu: error: 1 error detected in the compilation\n"));
  CHECK_FALSE(absl::StrContains(report, "REGS"));
  CHECK_FALSE(absl::StrContains(report, "SASS"));
}

TEST_CASE("a failed compile without parsed diagnostics shows the tail of the compiler log") {
  Job job = CompiledJob();
  auto* result = job.mutable_result()->mutable_compile();
  result->set_success(false);
  result->clear_diagnostics();
  std::string log;
  for (int i = 1; i <= 40; ++i) log += "line " + std::to_string(i) + "\n";
  result->set_log(log);

  std::string report = FormatCompileReport(job);
  CHECK(absl::StrContains(report,
                          "compiler output:\n  ... (10 earlier lines not shown)\n  line 11\n"));
  CHECK(absl::StrContains(report, "  line 40\n"));
  CHECK_FALSE(absl::StrContains(report, "  line 10\n"));
}

TEST_CASE("a job without a compile result says so instead of printing empty tables") {
  Job job = CompiledJob();
  job.clear_result();
  job.set_state(kernelseek::v1::JOB_STATE_FAILED);
  CHECK(FormatCompileReport(job) ==
        "gemm.cu (sm_90a -lineinfo -DTILE=64): job 17 has no compile result (failed)\n");
}

TEST_CASE("job table lists one row per job with its age") {
  Job queued;
  queued.set_id("18");
  queued.mutable_spec()->set_kind(kernelseek::v1::JOB_KIND_COMPILE);
  queued.set_state(kernelseek::v1::JOB_STATE_QUEUED);
  queued.set_user("bob");
  SetTime(queued.mutable_created(), kNow - absl::Seconds(5));

  std::string table = FormatJobTable({CompiledJob(), queued}, kNow);
  std::vector<std::string> lines = absl::StrSplit(table, '\n', absl::SkipEmpty());
  REQUIRE(lines.size() == 3);
  CHECK(Fields(lines[0]) == std::vector<std::string>{"ID", "KIND", "STATE", "STAGE", "USER",
                                                     "WORKER", "ATTEMPTS", "AGE"});
  CHECK(Fields(lines[1]) == std::vector<std::string>{"17", "compile", "succeeded", "-", "alice",
                                                     "worker-a", "1", "2m"});
  CHECK(Fields(lines[2]) ==
        std::vector<std::string>{"18", "compile", "queued", "-", "bob", "-", "0", "5s"});
}

TEST_CASE("a queued job says its place in the queue and what it waits for") {
  Job job;
  job.set_id("18");
  job.mutable_spec()->set_kind(kernelseek::v1::JOB_KIND_COMPILE);
  job.set_state(kernelseek::v1::JOB_STATE_QUEUED);
  job.set_stage("queued");
  job.set_queue_position(3);
  job.set_waiting_for("2 jobs ahead, its only matching worker is busy (w1 running job 9)");
  CHECK(FormatProgress(job) == "queued, position 3: 2 jobs ahead, its only matching worker is busy (w1 running job 9)");
  std::string details = FormatJobDetails(job, kNow);
  CHECK_THAT(details, Catch::Contains("position  3\n") &&
                          Catch::Contains("waiting   2 jobs ahead, its only matching worker is busy"));
  std::vector<std::string> lines = absl::StrSplit(FormatJobTable({job}, kNow), '\n', absl::SkipEmpty());
  CHECK_THAT(lines[1], Catch::Contains("queued #3"));

  job.set_queue_position(0);
  job.set_waiting_for("no connected worker has arch=sm_90 (workers: cpu-1 (no arch))");
  CHECK(FormatProgress(job) == "queued: no connected worker has arch=sm_90 (workers: cpu-1 (no arch))");
  CHECK_THAT(FormatJobDetails(job, kNow), Catch::Contains("position  -\n"));
}

TEST_CASE("a sharded bench's details count the shards done") {
  Job job;
  job.set_id("21");
  job.mutable_spec()->set_kind(kernelseek::v1::JOB_KIND_BENCH);
  job.set_state(kernelseek::v1::JOB_STATE_LEASED);
  job.set_worker("gpu-1,gpu-2");
  job.set_stage("1 of 2 shards done; gpu-2: benchmarking perf-bf16-d64-full-s512");
  job.mutable_progress()->set_done(50);
  job.mutable_progress()->set_total(72);
  job.mutable_progress()->set_shards(2);
  job.mutable_progress()->set_shards_done(1);
  CHECK_THAT(FormatJobDetails(job, kNow), Catch::Contains("progress  50/72 scenarios, 1/2 shards done\n"));
  CHECK(FormatProgress(job) == "1 of 2 shards done; gpu-2: benchmarking perf-bf16-d64-full-s512 on gpu-1,gpu-2");
  job.mutable_progress()->set_shards(1);
  CHECK_THAT(FormatJobDetails(job, kNow), Catch::Contains("progress  50/72 scenarios\n"));
}

TEST_CASE("job state labels parse back in any case, and anything else names the labels") {
  CHECK(ParseJobStateLabel("cancelled").value() == kernelseek::v1::JOB_STATE_CANCELLED);
  CHECK(ParseJobStateLabel("LEASED").value() == kernelseek::v1::JOB_STATE_LEASED);
  absl::StatusOr<kernelseek::v1::JobState> bad = ParseJobStateLabel("running");
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(bad.status().message() ==
        "unknown job state \"running\"; the states are queued, leased, succeeded, failed, cancelled");
}

TEST_CASE("worker table shows capabilities and when each worker was last seen") {
  WorkerInfo w;
  w.set_name("node-1");
  w.set_state("idle");
  auto* cap = w.add_capabilities();
  cap->set_key("compile");
  cap->set_value("sm_90a,sm_100a");
  cap = w.add_capabilities();
  cap->set_key("nvcc");
  cap->set_value("13.0");
  SetTime(w.mutable_last_seen(), kNow - absl::Seconds(3));
  WorkerInfo never;
  never.set_name("node-2");
  never.set_state("offline");

  std::string table = FormatWorkerTable({w, never}, kNow);
  CHECK(table ==
        "NAME    STATE    CAPABILITIES                       LAST SEEN\n"
        "node-1  idle     compile=sm_90a,sm_100a; nvcc=13.0  3s ago\n"
        "node-2  offline  -                                  never\n");
}

TEST_CASE("the token table says who made each token, when it expires and whether it was revoked") {
  kernelseek::v1::TokenInfo admin;
  admin.set_id(1);
  admin.set_name("ada");
  admin.set_role("admin");
  SetTime(admin.mutable_created(), kNow - absl::Hours(50));
  kernelseek::v1::TokenInfo viewer;
  viewer.set_id(12);
  viewer.set_name("vic");
  viewer.set_role("viewer");
  viewer.set_created_by("ada");
  SetTime(viewer.mutable_created(), kNow - absl::Minutes(5));
  SetTime(viewer.mutable_expires(), kNow + absl::Hours(24 * 30));
  kernelseek::v1::TokenInfo gone = viewer;
  gone.set_id(13);
  gone.set_name("old");
  SetTime(gone.mutable_expires(), kNow - absl::Hours(2));
  SetTime(gone.mutable_revoked(), kNow - absl::Hours(3));
  gone.set_revoked_by("ada");

  CHECK(FormatTokenTable({admin, viewer, gone}, kNow) ==
        "ID  NAME  ROLE    CREATED        EXPIRES         REVOKED\n"
        " 1  ada   admin   2d ago         never           -\n"
        "12  vic   viewer  5m ago by ada  in 30d          -\n"
        "13  old   viewer  5m ago by ada  expired 2h ago  3h ago by ada\n");
}

TEST_CASE("job details include the failure reason of a failed job") {
  Job job = CompiledJob();
  job.clear_result();
  job.set_state(kernelseek::v1::JOB_STATE_FAILED);
  job.set_attempts(3);
  job.set_failure("lease lost 3 times (worker stopped calling)");
  std::string details = FormatJobDetails(job, kNow);
  CHECK(LineStartingWith(details, "failure") ==
        "failure   lease lost 3 times (worker stopped calling)");
  CHECK(LineStartingWith(details, "options") == "options   sm_90a -lineinfo -DTILE=64");
  CHECK(LineStartingWith(details, "created") == "created   2027-01-15 07:57:50 UTC (2m ago)");
}

TEST_CASE("job details of a finished compile end with its report") {
  std::string details = FormatJobDetails(CompiledJob(), kNow);
  CHECK(LineStartingWith(details, "command") == "command   nvcc -arch=sm_90a -c $WORK/gemm.cu");
  CHECK(absl::StrContains(details, "\n\ngemm.cu (sm_90a -lineinfo -DTILE=64): compiled in"));
}

TEST_CASE("progress text names the stage and the worker") {
  Job job;
  job.set_state(kernelseek::v1::JOB_STATE_QUEUED);
  auto* req = job.add_requirements();
  req->set_key("compile");
  req->set_value("sm_100a");
  CHECK(FormatProgress(job) == "queued, waiting for a worker with compile=sm_100a");
  job.set_attempts(1);
  CHECK(FormatProgress(job) ==
        "queued again after 1 attempt(s), waiting for a worker with compile=sm_100a");
  job.set_state(kernelseek::v1::JOB_STATE_LEASED);
  job.set_worker("worker-x");
  CHECK(FormatProgress(job) == "leased to worker-x");
  job.set_stage("compiling");
  CHECK(FormatProgress(job) == "compiling on worker-x");
}

TEST_CASE("ages use the coarsest whole unit") {
  CHECK(FormatAge(absl::Seconds(59)) == "59s");
  CHECK(FormatAge(absl::Seconds(61)) == "1m");
  CHECK(FormatAge(absl::Hours(5)) == "5h");
  CHECK(FormatAge(absl::Hours(49)) == "2d");
  CHECK(FormatAge(absl::Seconds(-4)) == "0s");
}

TEST_CASE("JSON keeps the .proto field names and prints false and zero fields") {
  Job job = CompiledJob();
  job.mutable_result()->mutable_compile()->set_success(false);
  absl::StatusOr<std::string> json = MessageToJson(job);
  REQUIRE(json.ok());
  CHECK(absl::StrContains(*json, "\"source_name\": \"gemm.cu\""));
  CHECK(absl::StrContains(*json, "\"spill_store_bytes\": 24"));
  CHECK(absl::StrContains(*json, "\"success\": false"));
  CHECK(absl::StrContains(*json, "\"state\": \"JOB_STATE_SUCCEEDED\""));
  CHECK_FALSE(absl::StrContains(*json, "sourceName"));
}

}  // namespace
}  // namespace kseek
