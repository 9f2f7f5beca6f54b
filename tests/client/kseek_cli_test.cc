// Runs the kseek binary (path from the build, KSEEK_BINARY) as a user would:
// help text, exit codes and one-line errors, against a scripted server.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/client/fake_coordinator.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using kernelseek::v1::Job;
using testing::FakeCoordinatorServer;

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `kseek ARGS` with KSEEK_TOKEN and KSEEK_SERVER cleared, then `env` set.
Outcome RunKseek(const std::string& args, const std::string& env = "") {
  testing::TempDir dir;
  std::string command =
      absl::StrCat("env -u KSEEK_TOKEN -u KSEEK_SERVER ", env, " ", KSEEK_BINARY, " ", args, " >",
                   dir.File("out"), " 2>", dir.File("err"), " </dev/null");
  int status = std::system(command.c_str());
  REQUIRE(WIFEXITED(status));
  return {WEXITSTATUS(status), ReadAll(dir.File("out")), ReadAll(dir.File("err"))};
}

bool IsOneLine(const std::string& text) {
  return std::count(text.begin(), text.end(), '\n') == 1 && text.back() == '\n';
}

int ClosedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  socklen_t len = sizeof(addr);
  REQUIRE(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  close(fd);
  return ntohs(addr.sin_port);
}

Job FinishedCompile(bool success) {
  Job job;
  job.set_id("7");
  job.set_state(kernelseek::v1::JOB_STATE_SUCCEEDED);
  job.set_worker("worker-a");
  job.set_attempts(1);
  job.mutable_spec()->set_kind(kernelseek::v1::JOB_KIND_COMPILE);
  job.mutable_spec()->set_source_name("k.cu");
  job.mutable_spec()->mutable_compile()->set_arch("sm_90a");
  auto* result = job.mutable_result()->mutable_compile();
  result->set_success(success);
  if (success) {
    auto* r = result->add_resources();
    r->set_function("k");
    r->set_registers(40);
  } else {
    auto* d = result->add_diagnostics();
    d->set_file("k.cu");
    d->set_line(3);
    d->set_severity(kernelseek::v1::Diagnostic::SEVERITY_ERROR);
    d->set_message("expected a \";\"");
  }
  return job;
}

// A server whose job 7 is queued, then compiling, then `final_job`.
void ScriptJob(FakeCoordinatorServer& server, const Job& final_job) {
  Job queued = final_job;
  queued.clear_result();
  queued.set_state(kernelseek::v1::JOB_STATE_QUEUED);
  Job leased = queued;
  leased.set_state(kernelseek::v1::JOB_STATE_LEASED);
  leased.set_stage("compiling");
  server.service().SetJob(final_job);
  server.service().SetWatchScripts(
      {{.updates = {queued, leased, final_job}, .end = grpc::Status::OK}});
}

TEST_CASE("kseek --help lists the commands and the exit codes") {
  Outcome o = RunKseek("--help");
  CHECK(o.exit_code == 0);
  for (const char* text : {"compile", "verify", "bench", "scenarios", "jobs", "job ", "workers",
                           "exit codes:", "KSEEK_TOKEN",
                           "  4  compile, verify, bench: the job failed without a result",
                           "verify, bench: the kernel did not compile or a scenario failed",
                           "verify, bench: the runner stopped early",
                           "  5  compile, verify, bench, profile: no connected worker could run the job",
                           "  130  Ctrl-C while waiting on a job: the job goes on on the server"}) {
    CHECK(absl::StrContains(o.out, text));
  }
}

TEST_CASE("kseek help CMD is kseek CMD --help") {
  Outcome help = RunKseek("help compile");
  Outcome flag = RunKseek("compile --help");
  CHECK(help.exit_code == 0);
  CHECK(help.out == flag.out);
  CHECK(absl::StrContains(help.out, "--arch"));
  CHECK(absl::StrContains(help.out, "--no-wait"));
  CHECK(absl::StrContains(help.out, "--wait-for-worker"));
  for (const char* command : {"verify", "bench", "profile"}) {
    CHECK(absl::StrContains(RunKseek(absl::StrCat(command, " --help")).out, "--wait-for-worker"));
  }
  CHECK(absl::StrContains(RunKseek("job --help").out, "--wait"));
  CHECK(absl::StrContains(RunKseek("cancel --help").out, "--session"));
  Outcome jobs = RunKseek("jobs --help");
  for (const char* flag : {"--user", "--state", "--problem", "--limit"}) CHECK(absl::StrContains(jobs.out, flag));
}

TEST_CASE("usage errors exit 2 with one line on stderr") {
  Outcome none = RunKseek("");
  CHECK(none.exit_code == 2);
  Outcome unknown = RunKseek("frob");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err == "kseek: unknown command \"frob\" (see kseek --help)\n");
  Outcome bad_flag = RunKseek("jobs --bogus");
  CHECK(bad_flag.exit_code == 2);
  CHECK(IsOneLine(bad_flag.err));
  Outcome missing = RunKseek("compile /nonexistent/k.cu --arch sm_90a --token t");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err == "kseek: cannot read /nonexistent/k.cu: No such file or directory\n");
}

TEST_CASE("a missing token exits 3 and says how to create one") {
  Outcome o = RunKseek("workers");
  CHECK(o.exit_code == 3);
  CHECK(IsOneLine(o.err));
  CHECK(absl::StrContains(o.err, "kseek-server token create --db PATH --user NAME"));
}

TEST_CASE("an unreachable server exits 3 naming its address") {
  std::string address = absl::StrCat("127.0.0.1:", ClosedPort());
  Outcome o = RunKseek("workers --token t", "KSEEK_SERVER=" + address);
  CHECK(o.exit_code == 3);
  CHECK(IsOneLine(o.err));
  CHECK(absl::StartsWith(o.err, absl::StrCat("kseek: cannot reach server at ", address)));
}

TEST_CASE("a server address with a port out of range is a usage error, not another port dialled") {
  Outcome o = RunKseek("workers --token t", "KSEEK_SERVER=127.0.0.1:99999");
  CHECK(o.exit_code == 2);
  CHECK(IsOneLine(o.err));
  CHECK(absl::StrContains(o.err, "99999"));
  CHECK(absl::StrContains(o.err, "1-65535"));
}

TEST_CASE("compile through a server: exit 0, 1 or 4 by outcome, report on stdout") {
  testing::TempDir dir;
  std::string source = dir.File("k.cu");
  std::ofstream(source) << "__global__ void k() {}\n";
  FakeCoordinatorServer server("t");
  std::string flags = absl::StrCat("--server ", server.address(), " --token t");

  SECTION("compiled") {
    ScriptJob(server, FinishedCompile(true));
    Outcome o = RunKseek(absl::StrCat(flags, " compile ", source, " --arch sm_90a --lineinfo"));
    CHECK(o.exit_code == 0);
    CHECK(absl::StrContains(o.out, "k.cu (sm_90a): compiled"));
    CHECK(absl::StrContains(o.err, "job 7: compiling on worker-a"));
    CHECK(server.service().last_submitted().compile().line_info());
    CHECK(server.service().last_submitted().source_name() == "k.cu");
  }
  SECTION("did not compile") {
    ScriptJob(server, FinishedCompile(false));
    Outcome o = RunKseek(absl::StrCat("compile ", source, " --arch sm_90a ", flags));
    CHECK(o.exit_code == 1);
    CHECK(absl::StrContains(o.out, "k.cu:3: error: expected a \";\""));
  }
  SECTION("job failed") {
    Job failed = FinishedCompile(true);
    failed.clear_result();
    failed.set_state(kernelseek::v1::JOB_STATE_FAILED);
    failed.set_attempts(3);
    failed.set_failure("worker lost 3 times");
    ScriptJob(server, failed);
    Outcome o = RunKseek(absl::StrCat("compile ", source, " --arch sm_90a ", flags));
    CHECK(o.exit_code == 4);
    CHECK(absl::EndsWith(o.err, "kseek: job 7 failed after 3 attempt(s): worker lost 3 times\n"));
  }
  SECTION("--json prints the finished job with .proto field names") {
    ScriptJob(server, FinishedCompile(true));
    Outcome o = RunKseek(absl::StrCat("compile ", source, " --arch sm_90a --json ", flags));
    CHECK(o.exit_code == 0);
    CHECK(absl::StartsWith(o.out, "{"));
    CHECK(absl::StrContains(o.out, "\"source_name\": \"k.cu\""));
  }
  SECTION("--no-wait prints the job id") {
    ScriptJob(server, FinishedCompile(true));
    Outcome o = RunKseek(absl::StrCat("compile ", source, " --arch sm_90a --no-wait ", flags));
    CHECK(o.exit_code == 0);
    CHECK(o.out == "7\n");
    CHECK(server.service().watch_calls() == 0);
  }
  SECTION("a rejected token exits 3") {
    ScriptJob(server, FinishedCompile(true));
    Outcome o = RunKseek(absl::StrCat("job 7 --server ", server.address(), " --token nope"));
    CHECK(o.exit_code == 3);
    CHECK(o.err == "kseek: token rejected by server: unknown token\n");
  }
}

// A finished bench of k.cu on attention_fwd with one scenario per entry of
// `passed`, each timed.
Job FinishedBench(std::vector<bool> passed) {
  Job job;
  job.set_id("9");
  job.set_state(kernelseek::v1::JOB_STATE_SUCCEEDED);
  job.set_worker("gpu-1");
  job.set_attempts(1);
  job.mutable_spec()->set_kind(kernelseek::v1::JOB_KIND_BENCH);
  job.mutable_spec()->set_source_name("k.cu");
  job.mutable_spec()->mutable_compile()->set_arch("sm_90a");
  job.mutable_spec()->mutable_run()->set_problem("attention_fwd");
  job.mutable_spec()->mutable_run()->set_scenarios("perf");
  job.mutable_spec()->mutable_run()->set_baseline("cudnn");
  auto* run = job.mutable_result()->mutable_run();
  run->mutable_compile()->set_success(true);
  run->set_gpu("NVIDIA H200");
  for (size_t i = 0; i < passed.size(); ++i) {
    auto* s = run->add_scenarios();
    s->set_id(absl::StrCat("perf-", i));
    s->set_passed(passed[i]);
    s->set_max_abs_error(passed[i] ? 1e-3 : 1.0);
    s->set_error_bar(4e-3);
    if (passed[i]) {
      s->set_median_ms(1.5);
      s->set_tflops(300);
      run->set_passed(run->passed() + 1);
    } else {
      s->set_reason("max error 1 > bar 0.004 in o");
      run->set_failed(run->failed() + 1);
    }
  }
  return job;
}

// A server whose job 9 is queued, then runs two scenarios with progress
// reported, then is `final_job`.
void ScriptBench(FakeCoordinatorServer& server, const Job& final_job) {
  Job queued = final_job;
  queued.clear_result();
  queued.set_state(kernelseek::v1::JOB_STATE_QUEUED);
  Job leased = queued;
  leased.set_state(kernelseek::v1::JOB_STATE_LEASED);
  leased.set_stage("benchmarking");
  leased.mutable_progress()->set_total(2);
  Job halfway = leased;
  halfway.mutable_progress()->set_done(1);
  server.service().SetJob(final_job);
  server.service().SetWatchScripts(
      {{.updates = {queued, leased, halfway, final_job}, .end = grpc::Status::OK}});
}

TEST_CASE("a submit no worker can take exits 5 saying how to queue anyway, --wait-for-worker asks to queue") {
  testing::TempDir dir;
  std::string source = dir.File("k.cu");
  std::ofstream(source) << "__global__ void k() {}\n";
  FakeCoordinatorServer server("t");
  std::string flags = absl::StrCat("--server ", server.address(), " --token t");

  SECTION("refused") {
    server.service().SetSubmitError(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                                                 "no connected worker can run this verify job: no connected worker "
                                                 "has arch=sm_90 (workers: cpu-1 (no arch)); nothing was queued"));
    Outcome o = RunKseek(absl::StrCat("verify ", source, " --problem attention_fwd --arch sm_90a ", flags));
    CHECK(o.exit_code == 5);
    CHECK(IsOneLine(o.err));
    CHECK(absl::StartsWith(o.err, "kseek: no connected worker can run this verify job: no connected worker has "
                                  "arch=sm_90"));
    CHECK(absl::StrContains(o.err, "(--wait-for-worker queues it until such a worker connects)"));
    CHECK_FALSE(server.service().last_submit_request().wait_for_worker());
  }
  SECTION("queued anyway") {
    ScriptJob(server, FinishedCompile(true));
    Outcome o = RunKseek(absl::StrCat("compile ", source, " --arch sm_90a --no-wait --wait-for-worker ", flags));
    CHECK(o.exit_code == 0);
    CHECK(o.out == "7\n");
    CHECK(server.service().last_submit_request().wait_for_worker());
  }
}

TEST_CASE("kseek jobs sends its filters to the server - an unknown state is a usage error naming the states") {
  FakeCoordinatorServer server("t");
  server.service().SetJob(FinishedCompile(true));
  std::string flags = absl::StrCat("--server ", server.address(), " --token t");

  Outcome o = RunKseek(absl::StrCat("jobs --user ana --state Failed --problem attention_fwd --limit 3 ", flags));
  CHECK(o.exit_code == 0);
  kernelseek::v1::ListJobsRequest sent = server.service().last_list_jobs_request();
  CHECK(sent.user() == "ana");
  CHECK(sent.state() == kernelseek::v1::JOB_STATE_FAILED);
  CHECK(sent.problem() == "attention_fwd");
  CHECK(sent.limit() == 3);

  Outcome bad = RunKseek(absl::StrCat("jobs --state done ", flags));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err ==
        "kseek: --state: unknown job state \"done\"; the states are queued, leased, succeeded, failed, cancelled\n");
}

TEST_CASE("kseek job ID --wait follows the job and exits as the command that submitted it") {
  FakeCoordinatorServer server("t");
  std::string flags = absl::StrCat("--server ", server.address(), " --token t");
  SECTION("a compile that did not compile exits 1 with its report") {
    ScriptJob(server, FinishedCompile(false));
    Job queued = FinishedCompile(false);
    queued.clear_result();
    queued.set_state(kernelseek::v1::JOB_STATE_QUEUED);
    server.service().SetJob(queued);  // what GetJob finds before the watch
    Outcome o = RunKseek(absl::StrCat("job 7 --wait ", flags));
    CHECK(o.exit_code == 1);
    CHECK(absl::StrContains(o.out, "k.cu:3: error: expected a \";\""));
    CHECK(absl::StrContains(o.err, "job 7: compiling on worker-a"));
  }
  SECTION("a job already finished is reported at once") {
    server.service().SetJob(FinishedCompile(true));
    Outcome o = RunKseek(absl::StrCat("job 7 --wait ", flags));
    CHECK(o.exit_code == 0);
    CHECK(absl::StrContains(o.out, "k.cu (sm_90a): compiled"));
    CHECK(server.service().watch_calls() == 0);
  }
}

TEST_CASE("verify and bench through a server: defaults, progress, report and exit codes") {
  testing::TempDir dir;
  std::string source = dir.File("k.cu");
  std::ofstream(source) << "extern \"C\" int attention_fwd() { return 0; }\n";
  FakeCoordinatorServer server("t");
  std::string flags = absl::StrCat("--server ", server.address(), " --token t");
  std::string run = absl::StrCat(source, " --problem attention_fwd --arch sm_90a ", flags);

  SECTION("bench leaves scenarios and baseline to the problem's defaults; every scenario passed is exit 0") {
    ScriptBench(server, FinishedBench({true, true}));
    Outcome o = RunKseek(absl::StrCat("bench ", run));
    CHECK(o.exit_code == 0);
    kernelseek::v1::JobSpec spec = server.service().last_submitted();
    CHECK(spec.kind() == kernelseek::v1::JOB_KIND_BENCH);
    CHECK(spec.run().problem() == "attention_fwd");
    // The server fills both in from the manifest (perf and cudnn for attention_fwd).
    CHECK(spec.run().scenarios().empty());
    CHECK(spec.run().baseline().empty());
    // Off a terminal: one line per change, the bar among them.
    CHECK(absl::StrContains(o.err, "job 9: [" + std::string(24, '.') + "] 0/2  benchmarking"));
    CHECK(absl::StrContains(o.err, "job 9: [" + std::string(12, '#') + std::string(12, '.') +
                                       "] 1/2  benchmarking on gpu-1"));
    CHECK(absl::StrContains(o.out, "\nperf-0    PASS    1.0e-03 ≤ 4.0e-03"));
    CHECK(absl::StrContains(o.out, "\npassed 2/2 on NVIDIA H200\n"));
  }
  SECTION("a failed scenario is exit 1 and its reason is shown") {
    ScriptBench(server, FinishedBench({true, false}));
    Outcome o = RunKseek(absl::StrCat("bench ", run, " --baseline fa2 --scenarios all"));
    CHECK(o.exit_code == 1);
    CHECK(server.service().last_submitted().run().baseline() == "fa2");
    CHECK(server.service().last_submitted().run().scenarios() == "all");
    CHECK(absl::StrContains(o.out, "max error 1 > bar 0.004 in o"));
  }
  SECTION("a runner error is exit 4") {
    Job job = FinishedBench({true});
    job.mutable_result()->mutable_run()->set_runner_error("runner killed after 600 s");
    ScriptBench(server, job);
    Outcome o = RunKseek(absl::StrCat("bench ", run));
    CHECK(o.exit_code == 4);
    CHECK(absl::StrContains(o.out, "runner error: runner killed after 600 s\n"));
  }
  SECTION("verify leaves the scenarios to the problem's default and sends no baseline") {
    Job job = FinishedBench({true});
    job.mutable_spec()->set_kind(kernelseek::v1::JOB_KIND_VERIFY);
    ScriptBench(server, job);
    Outcome o = RunKseek(absl::StrCat("verify ", run, " --define TILE=64"));
    CHECK(o.exit_code == 0);
    kernelseek::v1::JobSpec spec = server.service().last_submitted();
    CHECK(spec.kind() == kernelseek::v1::JOB_KIND_VERIFY);
    CHECK(spec.run().scenarios().empty());
    CHECK(spec.run().baseline().empty());
    CHECK(spec.compile().defines(0) == "TILE=64");
  }
  SECTION("a job that failed without a result is exit 4 with its reason") {
    Job job = FinishedBench({});
    job.clear_result();
    job.set_state(kernelseek::v1::JOB_STATE_FAILED);
    job.set_failure("no worker with arch=sm_90 answered");
    ScriptBench(server, job);
    Outcome o = RunKseek(absl::StrCat("verify ", run));
    CHECK(o.exit_code == 4);
    CHECK(absl::EndsWith(
        o.err, "kseek: job 9 failed after 1 attempt(s): no worker with arch=sm_90 answered\n"));
  }
  SECTION("--json prints the job; the exit code still follows the result") {
    ScriptBench(server, FinishedBench({false}));
    Outcome o = RunKseek(absl::StrCat("bench ", run, " --json"));
    CHECK(o.exit_code == 1);
    CHECK(absl::StartsWith(o.out, "{"));
    CHECK(absl::StrContains(o.out, "\"passed\": false"));
  }
  SECTION("--no-wait prints the job id") {
    ScriptBench(server, FinishedBench({true}));
    Outcome o = RunKseek(absl::StrCat("bench ", run, " --no-wait"));
    CHECK(o.exit_code == 0);
    CHECK(o.out == "9\n");
    CHECK(server.service().watch_calls() == 0);
  }
  SECTION("verify takes no --baseline; bench rejects a malformed list before submitting") {
    Outcome v = RunKseek(absl::StrCat("verify ", run, " --baseline cudnn"));
    CHECK(v.exit_code == 2);
    CHECK(IsOneLine(v.err));
    Outcome b = RunKseek(absl::StrCat("bench ", run, " --baseline cudnn,cudnn"));
    CHECK(b.exit_code == 2);
    CHECK(b.err == "kseek: --baseline: baseline \"cudnn\" appears twice in \"cudnn,cudnn\"\n");
    Outcome odd = RunKseek(absl::StrCat("bench ", run, " --baseline 'cu blas'"));
    CHECK(odd.exit_code == 2);
    CHECK(IsOneLine(odd.err));
    CHECK(server.service().last_submitted().kind() == kernelseek::v1::JOB_KIND_UNSPECIFIED);
  }
  SECTION("bench sends any well-formed baseline name: which ones a problem has is the server's to say") {
    ScriptBench(server, FinishedBench({true}));
    Outcome o = RunKseek(absl::StrCat("bench ", run, " --baseline cublas --scenarios square,llm"));
    CHECK(o.exit_code == 0);
    CHECK(server.service().last_submitted().run().baseline() == "cublas");
    CHECK(server.service().last_submitted().run().scenarios() == "square,llm");
  }
}

TEST_CASE("kseek scenarios lists a problem's scenarios through the server") {
  FakeCoordinatorServer server("t");
  kernelseek::v1::ListScenariosResponse response;
  response.mutable_problem()->set_name("attention_fwd");
  response.mutable_problem()->add_symbol()->set_name("s_q");
  auto* s = response.add_scenarios();
  s->set_id("perf-a");
  s->set_set("perf");
  s->set_dtype(kernelseek::v1::DTYPE_BF16);
  auto* sym = s->add_symbol();
  sym->set_name("s_q");
  sym->set_value(512);
  s->set_hidden_seed(true);
  server.service().SetScenarios("attention_fwd", response);
  std::string flags = absl::StrCat("--server ", server.address(), " --token t");

  Outcome o = RunKseek(absl::StrCat("scenarios attention_fwd --set perf ", flags));
  CHECK(o.exit_code == 0);
  CHECK(server.service().last_scenarios_request().set() == "perf");
  CHECK(o.out ==
        "ID      SET   DTYPE  s_q    SEED\n"
        "perf-a  perf  bf16   512  hidden\n"
        "\n"
        "1 scenarios: perf 1\n");

  Outcome json = RunKseek(absl::StrCat("scenarios attention_fwd --json ", flags));
  CHECK(json.exit_code == 0);
  CHECK(absl::StrContains(json.out, "\"hidden_seed\": true"));

  Outcome unknown = RunKseek(absl::StrCat("scenarios matmul ", flags));
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err == "kseek: no problem named \"matmul\"\n");
}

// A finished profile of k.cu on one attention_fwd scenario: one kernel with a
// metric, a passing verdict.
Job FinishedProfile() {
  Job job;
  job.set_id("11");
  job.set_state(kernelseek::v1::JOB_STATE_SUCCEEDED);
  job.set_worker("gpu-1");
  job.set_attempts(1);
  job.mutable_spec()->set_kind(kernelseek::v1::JOB_KIND_PROFILE);
  job.mutable_spec()->set_source_name("k.cu");
  job.mutable_spec()->mutable_compile()->set_arch("sm_90a");
  job.mutable_spec()->mutable_run()->set_problem("attention_fwd");
  job.mutable_spec()->mutable_run()->set_scenarios("perf-bf16-d64-full-s512");
  auto* profile = job.mutable_result()->mutable_profile();
  profile->mutable_compile()->set_success(true);
  profile->set_scenario("perf-bf16-d64-full-s512");
  profile->set_gpu("NVIDIA H200");
  profile->set_ncu_version("2025.3.1");
  profile->set_command("ncu --log-file $WORK/ncu.csv kseek-runner");
  profile->mutable_verdict()->set_passed(true);
  auto* k = profile->add_kernels();
  k->set_kernel("attention_fwd_kernel");
  k->set_block_size("(128, 1, 1)");
  k->set_grid_size("(64, 16, 1)");
  k->set_duration_us(845.3);
  k->set_sm_throughput_pct(63.8);
  k->set_memory_throughput_pct(41.3);
  k->set_achieved_occupancy_pct(17.9);
  k->set_theoretical_occupancy_pct(18.75);
  k->set_registers_per_thread(168);
  k->set_shared_memory_per_block_bytes(65536);
  auto* m = k->add_metrics();
  m->set_name("L2 Hit Rate");
  m->set_unit("%");
  m->set_value("88.10");
  return job;
}

TEST_CASE("profile through a server: one scenario id, the kernel line, exit codes") {
  testing::TempDir dir;
  std::string source = dir.File("k.cu");
  std::ofstream(source) << "extern \"C\" int attention_fwd() { return 0; }\n";
  FakeCoordinatorServer server("t");
  std::string flags = absl::StrCat("--server ", server.address(), " --token t");
  std::string run = absl::StrCat(source, " --problem attention_fwd --arch sm_90a ", flags);

  SECTION("a profiled kernel is printed and is exit 0") {
    Job job = FinishedProfile();
    Job leased = job;
    leased.clear_result();
    leased.set_state(kernelseek::v1::JOB_STATE_LEASED);
    leased.set_stage("profiling perf-bf16-d64-full-s512 under ncu");
    server.service().SetJob(job);
    server.service().SetWatchScripts({{.updates = {leased, job}, .end = grpc::Status::OK}});
    Outcome o =
        RunKseek(absl::StrCat("profile ", run, " --scenario perf-bf16-d64-full-s512 --lineinfo"));
    CHECK(o.exit_code == 0);
    kernelseek::v1::JobSpec spec = server.service().last_submitted();
    CHECK(spec.kind() == kernelseek::v1::JOB_KIND_PROFILE);
    CHECK(spec.run().problem() == "attention_fwd");
    CHECK(spec.run().scenarios() == "perf-bf16-d64-full-s512");
    CHECK(spec.run().baseline().empty());
    CHECK(spec.compile().line_info());
    CHECK(absl::StrContains(o.err, "job 11: profiling perf-bf16-d64-full-s512 under ncu on gpu-1"));
    CHECK(absl::StrContains(
        o.out,
        "\nprofile of k.cu on perf-bf16-d64-full-s512 on NVIDIA H200 (Nsight Compute 2025.3.1)\n"
        "verify: passed\n"
        "kernel attention_fwd_kernel block (128, 1, 1) grid (64, 16, 1): 845.3 us, SM throughput "
        "63.8%, memory throughput 41.3%, occupancy 17.9% achieved / 18.8% theoretical, 168 "
        "registers/thread, 65536 B shared/block\n"
        "  L2 Hit Rate 88.10 %\n"
        "ncu command: ncu --log-file $WORK/ncu.csv kseek-runner\n"));
  }
  SECTION("--hotspots N goes into the spec; the hot spots follow the kernel, in text and JSON") {
    Job job = FinishedProfile();
    auto* h = job.mutable_result()->mutable_profile()->mutable_kernels(0)->mutable_hot_spots();
    h->set_total_samples(15791);
    auto* reason = h->add_stall_reasons();
    reason->set_reason("wait");
    reason->set_samples(4404);
    reason->set_share_pct(27.89);
    auto* spot = h->add_hot_spots();
    spot->set_sass_index(2753);
    spot->set_address("0x7f13817ad410");
    spot->set_instruction("@P0 BRA 0x7f13817ad6f0");
    spot->set_samples(341);
    spot->set_share_pct(2.16);
    ScriptJob(server, job);
    Outcome o = RunKseek(absl::StrCat("profile ", run, " --scenario perf-bf16-d64-full-s512 --hotspots 5"));
    CHECK(o.exit_code == 0);
    CHECK(server.service().last_submitted().run().hotspots() == 5);
    CHECK(absl::StrContains(o.out,
                            "  L2 Hit Rate 88.10 %\n"
                            "  stall reasons (15791 samples): wait 27.9%\n"
                            "  hot spots (share of this kernel's stall samples):\n"
                            "    2.2%  #2753 @P0 BRA 0x7f13817ad6f0\n"));
    ScriptJob(server, job);
    Outcome json = RunKseek(absl::StrCat("profile ", run, " --scenario perf-bf16-d64-full-s512 --hotspots 5 --json"));
    CHECK(json.exit_code == 0);
    CHECK(absl::StrContains(json.out, "\"sass_index\": 2753"));
    CHECK(absl::StrContains(json.out, "\"total_samples\": \"15791\""));

    Outcome too_many = RunKseek(absl::StrCat("profile ", run, " --scenario perf-bf16-d64-full-s512 --hotspots 51"));
    CHECK(too_many.exit_code == 2);
    CHECK(too_many.err == "kseek: --hotspots 51 is outside 0..50\n");
  }
  SECTION("an ncu error with no kernel profiled is exit 4 with the error shown") {
    Job job = FinishedProfile();
    job.mutable_result()->mutable_profile()->clear_kernels();
    job.mutable_result()->mutable_profile()->set_error("ncu: ERR_NVGPUCTRPERM");
    ScriptJob(server, job);
    Outcome o = RunKseek(absl::StrCat("profile ", run, " --scenario perf-bf16-d64-full-s512"));
    CHECK(o.exit_code == 4);
    CHECK(absl::StrContains(o.out, "\nprofile error: ncu: ERR_NVGPUCTRPERM\n"));
  }
  SECTION("a failed verdict is exit 1") {
    Job job = FinishedProfile();
    job.mutable_result()->mutable_profile()->mutable_verdict()->set_passed(false);
    job.mutable_result()->mutable_profile()->mutable_verdict()->set_reason("NaN in lse");
    ScriptJob(server, job);
    Outcome o = RunKseek(absl::StrCat("profile ", run, " --scenario perf-bf16-d64-full-s512"));
    CHECK(o.exit_code == 1);
    CHECK(absl::StrContains(o.out, "\nverify: FAIL NaN in lse\n"));
  }
  SECTION("--no-wait prints the job id") {
    ScriptJob(server, FinishedProfile());
    Outcome o =
        RunKseek(absl::StrCat("profile ", run, " --scenario perf-bf16-d64-full-s512 --no-wait"));
    CHECK(o.exit_code == 0);
    CHECK(o.out == "11\n");
    CHECK(server.service().watch_calls() == 0);
  }
  SECTION("a missing --scenario or a list is a usage error before anything is submitted") {
    Outcome missing = RunKseek(absl::StrCat("profile ", run));
    CHECK(missing.exit_code == 2);
    CHECK(missing.err ==
          "kseek: --scenario is required: profile runs one scenario id, e.g. --scenario "
          "perf-bf16-d64-full-s512 (`kseek scenarios PROBLEM` lists them)\n");
    Outcome list = RunKseek(absl::StrCat("profile ", run, " --scenario a,b"));
    CHECK(list.exit_code == 2);
    CHECK(list.err ==
          "kseek: --scenario \"a,b\" is a list; profile runs exactly one scenario id\n");
    Outcome baseline =
        RunKseek(absl::StrCat("profile ", run, " --scenario perf-a --baseline cudnn"));
    CHECK(baseline.exit_code == 2);
    CHECK(IsOneLine(baseline.err));
    CHECK(server.service().last_submitted().kind() == kernelseek::v1::JOB_KIND_UNSPECIFIED);
  }
}

TEST_CASE("kseek --help lists profile with its exit codes") {
  Outcome o = RunKseek("--help");
  CHECK(o.exit_code == 0);
  CHECK(absl::StrContains(
      o.out,
      "  profile    profile a kernel on one scenario with Nsight Compute on a GPU worker\n"));
  CHECK(absl::StrContains(
      o.out, "     reported an error or profiled no kernel of FILE (report printed)\n"));
  Outcome help = RunKseek("profile --help");
  CHECK(help.exit_code == 0);
  CHECK(absl::StrContains(help.out, "FILE --problem PROBLEM --arch ARCH --scenario ID [flags]"));
  CHECK(absl::StrContains(help.out, "--scenario"));
  CHECK(absl::StrContains(help.out, "--maxrregcount"));
}

}  // namespace
}  // namespace kseek
