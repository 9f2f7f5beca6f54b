#include "server/agent_tools.h"
#include "server/job_validation.h"

#include <catch2/catch.hpp>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "server/session_store.h"
#include "tests/server/open_store.h"
#include "tests/server/session_fakes.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using testing::CannedJobRunner;

constexpr char kKernel[] = "__global__ void k(float* x) {\n  x[0] = 1.0f;\n  x[1] = 1.0f;\n}\n";

struct Fixture {
  // `runner` replaces the canned runner when given; `adjust` edits the
  // session spec before the tools are made.
  explicit Fixture(JobRunner* runner = nullptr,
                   const std::function<void(kernelseek::v1::SessionSpec*)>& adjust = {}) {
    store = testing::OpenStore<SessionStore>(dir.File("kseek.db"));
    spec.set_problem("attention_fwd");
    spec.set_arch("sm_90a");
    spec.set_kernel_name("naive.cu");
    spec.set_kernel_source(kKernel);
    spec.set_baseline("cudnn");
    spec.set_target_speedup(1.1);
    spec.set_verify_scenarios("all");
    spec.set_bench_scenarios("perf");
    if (adjust) adjust(&spec);
    kernelseek::v1::Session session;
    session.set_user("tester");
    *session.mutable_spec() = spec;
    session.set_state(kernelseek::v1::SESSION_STATE_RUNNING);
    id = *store->InsertSession(session);
    kernelseek::v1::KernelVersion first;
    first.set_status("edited");
    first.set_source(kKernel);
    first.set_seq(1);
    REQUIRE(store->InsertKernelVersion(id, first).ok());
    tools = std::make_unique<AgentTools>(store.get(), runner != nullptr ? runner : &jobs, id, "tester", kDefaultTeam,
                                         spec, [this](const std::string& author, kernelseek::v1::SessionEvent e) {
                                           e.set_author(author);
                                           return store->AppendSessionEvent(id, e);
                                         });
    REQUIRE(tools->Load().ok());
  }
  ToolOutcome Run(const std::string& name, const std::string& args) {
    absl::StatusOr<ToolOutcome> outcome = tools->Execute({"call", name, args}, 7, [] { return false; });
    REQUIRE(outcome.ok());
    return *outcome;
  }

  kseek::testing::TempDir dir;
  std::unique_ptr<SessionStore> store;
  kernelseek::v1::SessionSpec spec;
  int64_t id = 0;
  CannedJobRunner jobs{{0.8, 1.2}};
  std::unique_ptr<AgentTools> tools;
};

TEST_CASE("paths outside the workspace are refused with a clear tool error", "[tools]") {
  Fixture f;
  for (const char* path : {"../naive.cu", "/etc/passwd", "sub/naive.cu", "..", ".hidden", ""}) {
    INFO(path);
    nlohmann::json args = {{"path", path}, {"content", "x"}};
    ToolOutcome read = f.Run("read_file", args.dump());
    REQUIRE(read.is_error);
    ToolOutcome write = f.Run("write_file", args.dump());
    REQUIRE(write.is_error);
  }
  REQUIRE_THAT(f.Run("read_file", R"({"path":"/etc/passwd"})").content, Catch::Contains("outside the workspace"));
  REQUIRE(f.store->ListSessionFiles(f.id)->size() == 1);
}

TEST_CASE("edit_file replaces exactly one exact match and makes a kernel version", "[tools]") {
  Fixture f;
  ToolOutcome absent = f.Run("edit_file", R"({"path":"naive.cu","old_text":"x[2]","new_text":"y"})");
  REQUIRE(absent.is_error);
  REQUIRE_THAT(absent.content, Catch::Contains("not found"));
  ToolOutcome twice = f.Run("edit_file", R"({"path":"naive.cu","old_text":"= 1.0f;","new_text":"= 2.0f;"})");
  REQUIRE(twice.is_error);
  REQUIRE_THAT(twice.content, Catch::Contains("occurs 2 times"));
  ToolOutcome ok = f.Run("edit_file", R"({"path":"naive.cu","old_text":"x[1] = 1.0f;","new_text":"x[1] = 2.0f;"})");
  REQUIRE_FALSE(ok.is_error);
  REQUIRE_THAT(ok.content, Catch::Contains("line 3") && Catch::Contains("kernel version 2"));
  REQUIRE_THAT(f.tools->files().at("naive.cu"), Catch::Contains("x[1] = 2.0f;"));
  auto versions = *f.store->ListKernelVersions(f.id, true);
  REQUIRE(versions.size() == 2);
  REQUIRE(versions[1].parent() == versions[0].id());
  REQUIRE_THAT(versions[1].source(), Catch::Contains("x[1] = 2.0f;"));
  REQUIRE(versions[1].seq() == 7);
  // A note file is workspace content, not a kernel version.
  REQUIRE_FALSE(f.Run("write_file", R"({"path":"notes.md","content":"plan"})").is_error);
  REQUIRE(f.store->ListKernelVersions(f.id, false)->size() == 2);
  REQUIRE_THAT(f.Run("list_files", "{}").content, Catch::Contains("notes.md") && Catch::Contains("the kernel"));
}

TEST_CASE("malformed arguments, unknown tools and missing fields are tool errors", "[tools]") {
  Fixture f;
  REQUIRE_THAT(f.Run("read_file", "{\"path\": ").content, Catch::Contains("not a JSON object"));
  REQUIRE_THAT(f.Run("read_file", "[1,2]").content, Catch::Contains("not a JSON object"));
  ToolOutcome unknown = f.Run("rm_rf", "{}");
  REQUIRE(unknown.is_error);
  REQUIRE_THAT(unknown.content, Catch::Contains("unknown tool") && Catch::Contains("edit_file"));
  REQUIRE_THAT(f.Run("edit_file", R"({"path":"naive.cu"})").content, Catch::Contains("old_text"));
  REQUIRE_THAT(f.Run("read_file", R"({"path":7})").content, Catch::Contains("must be a string"));
  std::string huge(kMaxSourceBytes + 1, 'x');
  REQUIRE_THAT(f.Run("write_file", nlohmann::json{{"path", "naive.cu"}, {"content", huge}}.dump()).content,
               Catch::Contains("at most"));
}

TEST_CASE("a version counts only after it compiled, passed verify and was benchmarked, finish needs the target",
          "[tools]") {
  Fixture f;
  ToolOutcome refused = f.Run("finish", R"({"summary":"done"})");
  REQUIRE(refused.signal == ToolSignal::kFinishRefused);
  REQUIRE_THAT(refused.content, Catch::Contains("no version has been measured"));
  REQUIRE_THAT(f.Run("bench", "{}").content, Catch::Contains("run verify first"));
  ToolOutcome compiled = f.Run("compile", "{}");
  REQUIRE(compiled.signal == ToolSignal::kCompileOk);
  REQUIRE_THAT(compiled.content, Catch::Contains("96 registers") && Catch::Contains("HMMA 64"));
  REQUIRE(f.Run("verify", "{}").signal == ToolSignal::kVerifyOk);
  ToolOutcome first = f.Run("bench", "{}");
  REQUIRE(first.signal == ToolSignal::kBenched);
  REQUIRE(first.speedup == Approx(0.8));
  REQUIRE(f.tools->best_speedup() == Approx(0.8));
  ToolOutcome gap = f.Run("finish", R"({"summary":"done"})");
  REQUIRE(gap.signal == ToolSignal::kFinishRefused);
  REQUIRE_THAT(gap.content, Catch::Contains("0.800x") && Catch::Contains("gap of 0.300x"));

  // A wrong kernel fails verify and cannot be benchmarked.
  REQUIRE_FALSE(f.Run("edit_file", R"({"path":"naive.cu","old_text":"x[0] = 1.0f;","new_text":"x[0] = WRONG;"})").is_error);
  ToolOutcome wrong = f.Run("verify", "{}");
  REQUIRE(wrong.signal == ToolSignal::kVerifyFailed);
  REQUIRE_THAT(wrong.content, Catch::Contains("FAIL b1_h8_s1024_d128"));
  REQUIRE(f.Run("bench", "{}").is_error);

  REQUIRE_FALSE(f.Run("edit_file", R"({"path":"naive.cu","old_text":"x[0] = WRONG;","new_text":"x[0] = 3.0f;"})").is_error);
  REQUIRE(f.Run("verify", "{}").signal == ToolSignal::kVerifyOk);
  REQUIRE(f.Run("bench", "{}").speedup == Approx(1.2));
  ToolOutcome accepted = f.Run("finish", R"({"summary":"done"})");
  REQUIRE(accepted.signal == ToolSignal::kFinishAccepted);
  auto versions = *f.store->ListKernelVersions(f.id, false);
  REQUIRE(versions.size() == 3);
  REQUIRE(versions[0].counted());
  REQUIRE_FALSE(versions[1].counted());
  REQUIRE(versions[1].status() == "verify_failed");
  REQUIRE(versions[2].counted());
  REQUIRE(f.tools->best_version() == versions[2].id());
}

TEST_CASE("bench jobs carry the session's baseline, scenarios and rounds", "[tools]") {
  Fixture f(nullptr, [](kernelseek::v1::SessionSpec* spec) { spec->set_bench_rounds(3); });
  REQUIRE(f.Run("verify", "{}").signal == ToolSignal::kVerifyOk);
  REQUIRE(f.Run("bench", "{}").signal == ToolSignal::kBenched);
  std::vector<kernelseek::v1::JobSpec> specs = f.jobs.specs();
  REQUIRE(specs.size() == 2);
  CHECK(specs[0].run().rounds() == 0);  // verify
  CHECK(specs[1].kind() == kernelseek::v1::JOB_KIND_BENCH);
  CHECK(specs[1].run().baseline() == "cudnn");
  CHECK(specs[1].run().scenarios() == "perf");
  CHECK(specs[1].run().rounds() == 3);
  ProblemCatalog problems = *ProblemCatalog::Load(KSEEK_SCENARIOS_DIR);
  CHECK(ValidateJobSpec(&specs[1], problems).ok());
}

TEST_CASE("show_sass compiles when needed and names the functions when none matches", "[tools]") {
  Fixture f;
  ToolOutcome sass = f.Run("show_sass", R"({"function":"attention"})");
  REQUIRE_FALSE(sass.is_error);
  REQUIRE_THAT(sass.content, Catch::Contains("1234 instructions") && Catch::Contains("HMMA 64"));
  ToolOutcome none = f.Run("show_sass", R"({"function":"softmax"})");
  REQUIRE(none.is_error);
  REQUIRE_THAT(none.content, Catch::Contains("attention_fwd_kernel"));
  REQUIRE(f.jobs.specs().size() == 1);  // the second call used the cached compile
}

// Answers profile jobs as QueueJobRunner would: FAILED_PRECONDITION when no worker
// has ncu, else a worker's ProfileResult. Records the specs it was given.
class ProfileJobRunner final : public JobRunner {
 public:
  explicit ProfileJobRunner(bool worker_has_ncu) : worker_has_ncu_(worker_has_ncu) {}
  absl::StatusOr<kernelseek::v1::Job> Run(const std::string& user, const std::string& team,
                                          kernelseek::v1::JobSpec spec,
                                          const std::function<bool()>& cancelled) override {
    specs.push_back(spec);
    if (!worker_has_ncu_) {
      return absl::FailedPreconditionError(
          "no connected worker can run this profile job: no connected worker has ncu (workers: gpu-1 (arch=sm_90, "
          "compile=sm_90a,sm_100a, no ncu)); "
          "nothing was queued");
    }
    kernelseek::v1::Job job;
    job.set_id("9");
    job.set_state(kernelseek::v1::JOB_STATE_SUCCEEDED);
    kernelseek::v1::ProfileResult* p = job.mutable_result()->mutable_profile();
    p->mutable_compile()->set_success(true);
    p->set_scenario(spec.run().scenarios());
    p->set_gpu("NVIDIA H200");
    p->set_ncu_version("2025.3.1");
    p->mutable_verdict()->set_passed(true);
    kernelseek::v1::KernelProfile* k = p->add_kernels();
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
    kernelseek::v1::ProfileMetric* m = k->add_metrics();
    m->set_name("L2 Hit Rate");
    m->set_unit("%");
    m->set_value("88.10");
    if (spec.run().hotspots() > 0) {
      kernelseek::v1::KernelHotSpots* h = k->mutable_hot_spots();
      h->set_total_samples(15791);
      kernelseek::v1::StallReasonShare* r = h->add_stall_reasons();
      r->set_reason("wait");
      r->set_share_pct(27.9);
      kernelseek::v1::HotSpot* spot = h->add_hot_spots();
      spot->set_sass_index(3333);
      spot->set_instruction("@!P0 BRA 0x7f13817afc60");
      spot->set_share_pct(3.1);
    }
    return job;
  }
  std::vector<kernelseek::v1::JobSpec> specs;

 private:
  const bool worker_has_ncu_;
};

TEST_CASE("profile submits a one-scenario profile job and shows the worker's numbers", "[tools]") {
  ProfileJobRunner runner(/*worker_has_ncu=*/true);
  Fixture f(&runner);
  ToolOutcome out = f.Run("profile", R"({"scenario":"perf-bf16-d64-full-s512"})");
  REQUIRE_FALSE(out.is_error);
  REQUIRE(runner.specs.size() == 1);
  CHECK(runner.specs[0].kind() == kernelseek::v1::JOB_KIND_PROFILE);
  CHECK(runner.specs[0].run().scenarios() == "perf-bf16-d64-full-s512");
  CHECK(runner.specs[0].source() == kKernel);
  CHECK(runner.specs[0].run().hotspots() == 10);  // the default when the model names none
  CHECK_THAT(out.content, Catch::Contains("stall reasons (15791 samples): wait 27.9%") &&
                              Catch::Contains("    3.1%  #3333 @!P0 BRA 0x7f13817afc60\n"));
  CHECK_THAT(out.content, Catch::Contains("perf-bf16-d64-full-s512") && Catch::Contains("Nsight Compute 2025.3.1") &&
                              Catch::Contains("845.3 us") && Catch::Contains("SM throughput 63.8%") &&
                              Catch::Contains("168 registers/thread") && Catch::Contains("L2 Hit Rate 88.10 %"));
  // The job the tool makes passes the server's own checks.
  ProblemCatalog problems = *ProblemCatalog::Load(KSEEK_SCENARIOS_DIR);
  kernelseek::v1::JobSpec submitted = runner.specs[0];
  CHECK(ValidateJobSpec(&submitted, problems).ok());

  ToolOutcome missing = f.Run("profile", "{}");
  CHECK(missing.is_error);
  CHECK_THAT(missing.content, Catch::Contains("scenario"));
}

TEST_CASE("profile passes the model's hotspots on, clamped to 0..50", "[tools]") {
  ProfileJobRunner runner(/*worker_has_ncu=*/true);
  Fixture f(&runner);
  for (const auto& [arg, expected] : std::vector<std::pair<std::string, int>>{
           {"3", 3}, {"0", 0}, {"500", 50}, {"-4", 0}, {"7.0", 7}, {"null", 10}}) {
    INFO(arg);
    ToolOutcome out = f.Run("profile", absl::StrCat(R"({"scenario":"perf-bf16-d64-full-s512","hotspots":)", arg, "}"));
    REQUIRE_FALSE(out.is_error);
    REQUIRE_FALSE(runner.specs.empty());
    CHECK(runner.specs.back().run().hotspots() == expected);
    CHECK((out.content.find("hot spots") != std::string::npos) == (expected > 0));
    ProblemCatalog problems = *ProblemCatalog::Load(KSEEK_SCENARIOS_DIR);
    kernelseek::v1::JobSpec submitted = runner.specs.back();
    CHECK(ValidateJobSpec(&submitted, problems).ok());
  }
  const size_t submitted = runner.specs.size();
  ToolOutcome bad = f.Run("profile", R"({"scenario":"perf-bf16-d64-full-s512","hotspots":"ten"})");
  CHECK(bad.is_error);
  CHECK_THAT(bad.content, Catch::Contains("hotspots must be an integer"));
  CHECK(runner.specs.size() == submitted);

  nlohmann::json schema;
  for (const llm::ToolDefinition& d : AgentTools::Definitions()) {
    if (d.name == "profile") schema = nlohmann::json::parse(d.parameters_schema);
  }
  CHECK(schema["properties"]["hotspots"]["type"] == "integer");
  CHECK(schema["required"] == nlohmann::json::array({"scenario"}));
}

TEST_CASE("profile without a worker that has ncu says so and the session goes on", "[tools]") {
  ProfileJobRunner runner(/*worker_has_ncu=*/false);
  Fixture f(&runner);
  ToolOutcome out = f.Run("profile", R"({"scenario":"perf-bf16-d64-full-s512"})");
  CHECK(out.is_error);
  CHECK_THAT(out.content, Catch::Contains("no worker with Nsight Compute is connected"));
  bool listed = false;
  for (const llm::ToolDefinition& d : AgentTools::Definitions()) listed = listed || d.name == "profile";
  CHECK(listed);
}

}  // namespace
}  // namespace kseek
