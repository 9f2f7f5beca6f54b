#include "worker/ncu_report.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/profile_text.h"
#include "tests/worker/ncu_samples.h"

namespace kseek {
namespace {

TEST_CASE("ParseNcuCsv reads Nsight Compute 2025.3.1's CSV from an H200") {
  absl::StatusOr<NcuReport> report = ParseNcuCsv(kNcuCsvH200);
  REQUIRE(report.ok());
  CHECK(report->errors.empty());  // the ==WARNING== line is not an error
  REQUIRE(report->kernels.size() == 1);

  const kernelseek::v1::KernelProfile& k = report->kernels[0];
  CHECK(k.kernel() == "AttentionFwdKernel");
  CHECK(k.launches() == 2);  // IDs 0 and 1
  CHECK(k.block_size() == "(384, 1, 1)");
  CHECK(k.grid_size() == "(132, 1, 1)");
  CHECK(k.duration_us() == Approx(160.96));  // launch 0's 160,960 ns, not launch 1's 161,504
  CHECK(k.sm_throughput_pct() == Approx(48.14));
  CHECK(k.memory_throughput_pct() == Approx(43.19));  // Speed Of Light's %, not MWA's byte/s
  CHECK(k.achieved_occupancy_pct() == Approx(14.02));
  CHECK(k.theoretical_occupancy_pct() == Approx(18.75));
  CHECK(k.registers_per_thread() == 168);
  CHECK(k.shared_memory_per_block_bytes() == 214096 + 0);  // dynamic + static, not the driver's 1,024
  std::vector<std::string> metrics;
  for (const auto& m : k.metrics()) metrics.push_back(m.section() + ": " + m.name() + "=" + m.value() + m.unit());
  CHECK(metrics == std::vector<std::string>{
                       "GPU Speed Of Light Throughput: DRAM Throughput=33.45%",
                       "GPU Speed Of Light Throughput: L1/TEX Cache Throughput=46.78%",
                       "GPU Speed Of Light Throughput: L2 Cache Throughput=49.70%",
                       "Memory Workload Analysis: Memory Throughput=1609549105367.79byte/s",
                       "Memory Workload Analysis: Mem Busy=43.19%",
                       "Memory Workload Analysis: Max Bandwidth=33.45%",
                       "Memory Workload Analysis: L1/TEX Hit Rate=59.62%",
                       "Memory Workload Analysis: L2 Hit Rate=62.62%",
                       "Occupancy: Block Limit Registers=1block",
                       "Occupancy: Block Limit Shared Mem=1block",
                       "Occupancy: Block Limit Warps=5block",
                       "Occupancy: Achieved Active Warps Per SM=8.97warp",
                       "Launch Statistics: Waves Per SM=1",
                   });
}

// Hand-written in the layout of the capture above, for what it lacks: two
// kernels, "attn_fwd" launched twice (IDs 0 and 2) around one "attn_combine"
// (ID 1), which has no Occupancy section.
constexpr char kTwoKernelsCsv[] = R"csv(==PROF== Connected to process 4242 (/opt/kseek/bin/kseek-runner)
==PROF== Disconnected from process 4242
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value","Rule Name","Rule Type","Rule Description","Estimated Speedup Type","Estimated Speedup"
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","GPU Speed Of Light Throughput","Duration","ns","845,312",
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","Occupancy","Achieved Occupancy","%","17.92",
"1","4242","kseek-runner","127.0.0.1","attn_combine","1","7","(256, 1, 1)","(512, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Duration","ns","12,500",
"1","4242","kseek-runner","127.0.0.1","attn_combine","1","7","(256, 1, 1)","(512, 1, 1)","0","9.0","Launch Statistics","Registers Per Thread","register/thread","32",
"2","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","GPU Speed Of Light Throughput","Duration","ns","999,999",
)csv";

TEST_CASE("ParseNcuCsv gives one compact profile per kernel, from its first launch") {
  absl::StatusOr<NcuReport> report = ParseNcuCsv(kTwoKernelsCsv);
  REQUIRE(report.ok());
  REQUIRE(report->kernels.size() == 2);

  const kernelseek::v1::KernelProfile& fwd = report->kernels[0];
  CHECK(fwd.kernel() == "attn_fwd");
  CHECK(fwd.launches() == 2);
  CHECK(fwd.duration_us() == Approx(845.312));  // launch 0's, not launch 2's
  CHECK(fwd.achieved_occupancy_pct() == Approx(17.92));

  const kernelseek::v1::KernelProfile& combine = report->kernels[1];
  CHECK(combine.kernel() == "attn_combine");
  CHECK(combine.launches() == 1);
  CHECK(combine.block_size() == "(256, 1, 1)");
  CHECK(combine.duration_us() == Approx(12.5));
  CHECK(combine.registers_per_thread() == 32);
  CHECK(combine.achieved_occupancy_pct() == 0);  // section absent: left unset
}

TEST_CASE("ParseNcuCsv skips a row cut before its Metric Value but takes one that ends there") {
  const std::string header =
      "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Section Name\",\"Metric Name\",\"Metric Unit\","
      "\"Metric Value\",\"Rule Name\"\n";
  absl::StatusOr<NcuReport> report =
      ParseNcuCsv(header +
                  "\"0\",\"k\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"Occupancy\",\"Achieved Occupancy\",\"%\",\"50\"\n"
                  "\"0\",\"k\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"Occupancy\",\"Theoretical Occupancy\",\"%\"\n");
  REQUIRE(report.ok());
  REQUIRE(report->kernels.size() == 1);
  CHECK(report->kernels[0].achieved_occupancy_pct() == Approx(50));
  CHECK(report->kernels[0].theoretical_occupancy_pct() == 0);  // its value was cut off
}

TEST_CASE("ParseNcuCsv reports ncu's own errors, e.g. no permission for the counters") {
  // Hand-written after the message ncu prints when profiling is restricted
  // to admin users.
  absl::StatusOr<NcuReport> report = ParseNcuCsv(
      "==PROF== Connected to process 77 (/opt/kseek/bin/kseek-runner)\n"
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
      "Counters on the target device 0.\n"
      "==PROF== Disconnected from process 77\n"
      "==WARNING== No kernels were profiled.\n");
  REQUIRE(report.ok());
  CHECK(report->kernels.empty());
  REQUIRE(report->errors.size() == 1);
  CHECK_THAT(report->errors[0], Catch::StartsWith("ERR_NVGPUCTRPERM"));
}

TEST_CASE("ParseNcuCsv refuses output that is neither a report nor an ncu error") {
  CHECK(ParseNcuCsv("").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(ParseNcuCsv("Segmentation fault\n").status().code() == absl::StatusCode::kInvalidArgument);
  absl::StatusOr<NcuReport> no_value = ParseNcuCsv("\"ID\",\"Kernel Name\",\"Block Size\"\n");
  REQUIRE(no_value.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(no_value.status().message()), Catch::Contains("Grid Size"));
}

TEST_CASE("ParseNcuCsv keeps quoted commas and quotes inside a kernel name") {
  absl::StatusOr<NcuReport> report = ParseNcuCsv(
      "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Section Name\",\"Metric Name\",\"Metric Unit\","
      "\"Metric Value\"\n"
      "\"0\",\"tile<64, 128> \"\"x\"\"\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"Occupancy\",\"Achieved Occupancy\",\"%\","
      "\"50\"\n");
  REQUIRE(report.ok());
  REQUIRE(report->kernels.size() == 1);
  CHECK(report->kernels[0].kernel() == "tile<64, 128> \"x\"");
  CHECK(report->kernels[0].achieved_occupancy_pct() == Approx(50));
}

TEST_CASE("NcuProfileArgv profiles only the candidate's functions, then runs the runner") {
  std::vector<std::string> runner = {"/bin/kseek-runner", "--mode", "verify", "--scenarios", "s1"};
  std::vector<std::string> argv = NcuProfileArgv("/usr/local/cuda/bin/ncu", {"attn_fwd", "_Z4tileILi64EEvPf"},
                                                 "/tmp/w/ncu.csv", runner);
  REQUIRE(argv.size() > runner.size());
  CHECK(argv.front() == "/usr/local/cuda/bin/ncu");
  CHECK(std::vector<std::string>(argv.end() - runner.size(), argv.end()) == runner);
  auto value_of = [&](const std::string& flag) {
    for (size_t i = 0; i + 1 < argv.size(); ++i) {
      if (argv[i] == flag) return argv[i + 1];
    }
    return std::string("<absent>");
  };
  CHECK(value_of("--clock-control") == "none");
  CHECK(value_of("--page") == "details");
  CHECK(value_of("--kernel-name-base") == "mangled");
  CHECK(value_of("--kernel-name") == "regex:^(attn_fwd|_Z4tileILi64EEvPf)$");
  CHECK(value_of("--launch-count") == "4");
  CHECK(value_of("--log-file") == "/tmp/w/ncu.csv");
  std::vector<std::string> sections;
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "--section") sections.push_back(argv[i + 1]);
  }
  CHECK(sections == std::vector<std::string>{"SpeedOfLight", "Occupancy", "LaunchStats", "MemoryWorkloadAnalysis"});
  CHECK(std::find(argv.begin(), argv.end(), "--csv") != argv.end());
}

TEST_CASE("NcuKernelFilter escapes regex characters and caps the launch count") {
  CHECK(NcuKernelFilter({"a$b.c"}) == "regex:^(a\\$b\\.c)$");
  std::vector<std::string> many(40, "k");
  std::vector<std::string> argv = NcuProfileArgv("ncu", many, "log", {"runner"});
  auto it = std::find(argv.begin(), argv.end(), "--launch-count");
  REQUIRE(it + 1 < argv.end());
  CHECK(*(it + 1) == std::to_string(kNcuMaxLaunches));
}


// A second kernel's block as ncu would print it, made by hand: its numbers
// have thousands separators, its header another column order, and it
// ends with a row cut short.
constexpr char kSecondKernelBlock[] = R"csv("Kernel Name","void Reduce<(int)4>(float *)",
"Address","Source","stall_wait","Warp Stall Sampling (All Samples)","stall_long_sb","stall_long_sb (Not Issued)","stall_math"
"0x10","  LDG.E R2, [R4.64]","1,000","3,000","2,000","9,999","0"
"0x20","  FADD R2, R2, R3","0","0","0","0","0"
"0x30","  FMUL R2, R2, R3","200","1,200","0","0","1,000"
"0x40","  EXIT"
)csv";

TEST_CASE("ParseNcuSourceCsv reads Nsight Compute 2025.3.1's source page from an H200") {
  absl::StatusOr<NcuSourceReport> report = ParseNcuSourceCsv(kNcuSourceCsvH200, 5);
  REQUIRE(report.ok());
  CHECK(report->errors.empty());
  REQUIRE(report->kernels.size() == 1);
  const kernelseek::v1::KernelHotSpots& k = report->kernels[0];
  CHECK(k.kernel() ==
        "void <unnamed>::AttentionFwdKernel<(int)128, (int)128, (bool)1>(CUtensorMap_st, CUtensorMap_st, "
        "CUtensorMap_st, <unnamed>::FwdParams)");
  CHECK(k.total_samples() == 3564);
  // Top six reasons over the excerpt's rows; "(Not Issued)" columns ignored.
  REQUIRE(k.stall_reasons_size() == 6);
  std::vector<std::pair<std::string, int64_t>> reasons;
  for (const auto& r : k.stall_reasons()) reasons.emplace_back(r.reason(), r.samples());
  CHECK(reasons == std::vector<std::pair<std::string, int64_t>>{{"long_sb", 1668}, {"barrier", 1040},
                                                               {"short_sb", 405},  {"dispatch", 135},
                                                               {"not_selected", 86}, {"wait", 85}});
  CHECK(k.stall_reasons(0).share_pct() == Approx(100.0 * 1668 / 3564));

  REQUIRE(k.hot_spots_size() == 5);
  const kernelseek::v1::HotSpot& top = k.hot_spots(0);
  CHECK(top.sass_index() == 22);
  CHECK(top.address() == "0x7f13817af850");
  CHECK(top.instruction() == "@!P0 BRA 0x7f13817afc60");
  CHECK(top.samples() == 489);
  CHECK(top.share_pct() == Approx(100.0 * 489 / 3564));
  REQUIRE(top.reasons_size() == 3);
  CHECK(top.reasons(0).reason() == "long_sb");
  CHECK(top.reasons(0).samples() == 469);
  CHECK(top.reasons(0).share_pct() == Approx(100.0 * 469 / 3564));
  CHECK(top.reasons(1).reason() == "dispatch");
  CHECK(top.reasons(1).samples() == 11);
  CHECK(top.reasons(2).reason() == "not_selected");
  CHECK(top.reasons(2).samples() == 9);
  std::vector<std::pair<int, int64_t>> order;
  for (const auto& h : k.hot_spots()) order.emplace_back(h.sass_index(), h.samples());
  CHECK(order == std::vector<std::pair<int, int64_t>>{{22, 489}, {21, 435}, {17, 341}, {10, 335}, {13, 270}});
  CHECK(k.hot_spots(4).instruction() == "WARPGROUP.DEPBAR.LE gsb0, 0x1");
  // A line with a single reason lists only that one.
  absl::StatusOr<NcuSourceReport> all = ParseNcuSourceCsv(kNcuSourceCsvH200, 50);
  REQUIRE(all.ok());
  // 19 of the 24 rows have samples; rows without any are never hot spots.
  CHECK(all->kernels[0].hot_spots_size() == 19);
  CHECK(all->kernels[0].hot_spots(5).instruction() == "WARPGROUP.DEPBAR.LE gsb0, 0x0");
  CHECK(all->kernels[0].hot_spots(5).reasons_size() == 1);
}

TEST_CASE("ParseNcuSourceCsv matches an independent count over a whole kernel") {
  // The same capture with all 3464 rows, cut to the columns the parser reads
  // (plus one "(Not Issued)" column it must ignore).
  std::ifstream in(KSEEK_SOURCE_DIR "/tests/worker/testdata/ncu_source_v9s_columns.csv");
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<NcuSourceReport> report = ParseNcuSourceCsv(text.str(), 3);
  REQUIRE(report.ok());
  REQUIRE(report->kernels.size() == 1);
  const kernelseek::v1::KernelHotSpots& k = report->kernels[0];
  CHECK(k.total_samples() == 15791);
  std::vector<std::pair<std::string, int64_t>> reasons;
  for (const auto& r : k.stall_reasons()) reasons.emplace_back(r.reason(), r.samples());
  CHECK(reasons == std::vector<std::pair<std::string, int64_t>>{{"wait", 4404}, {"long_sb", 2841},
                                                               {"selected", 2576}, {"dispatch", 1499},
                                                               {"barrier", 1385}, {"short_sb", 1096}});
  REQUIRE(k.hot_spots_size() == 3);
  CHECK(k.hot_spots(0).sass_index() == 3333);
  CHECK(k.hot_spots(0).samples() == 489);
  CHECK(k.hot_spots(0).share_pct() == Approx(3.097).margin(0.001));
  CHECK(k.hot_spots(1).sass_index() == 3297);
  CHECK(k.hot_spots(1).samples() == 435);
  CHECK(k.hot_spots(2).sass_index() == 2753);
  CHECK(k.hot_spots(2).address() == "0x7f13817ad410");
  CHECK(k.hot_spots(2).instruction() == "@P0 BRA 0x7f13817ad6f0");
  CHECK(k.hot_spots(2).samples() == 341);
  REQUIRE(k.hot_spots(2).reasons_size() == 3);
  CHECK(k.hot_spots(2).reasons(0).reason() == "long_sb");
  CHECK(k.hot_spots(2).reasons(0).samples() == 330);
  CHECK(k.hot_spots(2).reasons(1).reason() == "wait");
  CHECK(k.hot_spots(2).reasons(1).samples() == 8);
  CHECK(k.hot_spots(2).reasons(2).reason() == "selected");
  CHECK(k.hot_spots(2).reasons(2).samples() == 2);
}

TEST_CASE("ParseNcuSourceCsv reads each kernel's block with its own header") {
  std::string text = std::string(kNcuSourceCsvH200) + kSecondKernelBlock;
  absl::StatusOr<NcuSourceReport> report = ParseNcuSourceCsv(text, 2);
  REQUIRE(report.ok());
  REQUIRE(report->kernels.size() == 2);
  CHECK(report->kernels[0].total_samples() == 3564);
  CHECK(report->kernels[0].hot_spots(0).samples() == 489);
  const kernelseek::v1::KernelHotSpots& k = report->kernels[1];
  CHECK(k.kernel() == "void Reduce<(int)4>(float *)");
  CHECK(k.total_samples() == 4200);
  REQUIRE(k.stall_reasons_size() == 3);
  CHECK(k.stall_reasons(0).reason() == "long_sb");
  CHECK(k.stall_reasons(0).samples() == 2000);
  CHECK(k.stall_reasons(1).reason() == "wait");
  CHECK(k.stall_reasons(1).samples() == 1200);
  CHECK(k.stall_reasons(2).reason() == "math");
  CHECK(k.stall_reasons(2).share_pct() == Approx(100.0 * 1000 / 4200));
  REQUIRE(k.hot_spots_size() == 2);
  CHECK(k.hot_spots(0).sass_index() == 0);
  CHECK(k.hot_spots(0).instruction() == "LDG.E R2, [R4.64]");
  CHECK(k.hot_spots(0).samples() == 3000);
  REQUIRE(k.hot_spots(0).reasons_size() == 2);
  CHECK(k.hot_spots(0).reasons(0).reason() == "long_sb");
  CHECK(k.hot_spots(0).reasons(1).reason() == "wait");
  CHECK(k.hot_spots(1).sass_index() == 2);
  CHECK(k.hot_spots(1).share_pct() == Approx(100.0 * 1200 / 4200));
}

TEST_CASE("ParseNcuSourceCsv collects ncu's errors and refuses what is not a source page") {
  absl::StatusOr<NcuSourceReport> denied = ParseNcuSourceCsv(
      "==PROF== Connected to process 1\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n", 10);
  REQUIRE(denied.ok());
  CHECK(denied->kernels.empty());
  REQUIRE(denied->errors.size() == 1);
  CHECK(denied->errors[0] == "ERR_NVGPUCTRPERM - The user does not have permission");

  CHECK(ParseNcuSourceCsv("\"ID\",\"Kernel Name\"\n\"0\",\"k\"\n", 10).status().code() ==
        absl::StatusCode::kInvalidArgument);
  absl::StatusOr<NcuSourceReport> no_samples =
      ParseNcuSourceCsv("\"Kernel Name\",\"k\",\n\"Address\",\"Source\",\"stall_wait\"\n", 10);
  REQUIRE_FALSE(no_samples.ok());
  CHECK_THAT(std::string(no_samples.status().message()), Catch::Contains("Warp Stall Sampling (All Samples)"));
}

TEST_CASE("ParseNcuSourceCsv with no hot spots asked still totals the kernel's stalls") {
  absl::StatusOr<NcuSourceReport> report = ParseNcuSourceCsv(kSecondKernelBlock, 0);
  REQUIRE(report.ok());
  REQUIRE(report->kernels.size() == 1);
  CHECK(report->kernels[0].total_samples() == 4200);
  CHECK(report->kernels[0].hot_spots().empty());
}

TEST_CASE("the H200 excerpt's hot spots as the profile text shows them") {
  absl::StatusOr<NcuSourceReport> report = ParseNcuSourceCsv(kNcuSourceCsvH200, 5);
  REQUIRE(report.ok());
  kernelseek::v1::ProfileResult profile;
  profile.mutable_compile()->set_success(true);
  profile.set_scenario("perf-bf16-d128-full-s512");
  kernelseek::v1::KernelProfile* k = profile.add_kernels();
  k->set_kernel(FunctionBaseName(report->kernels[0].kernel()));
  k->set_launches(1);
  *k->mutable_hot_spots() = report->kernels[0];
  std::string text = FormatProfileText(profile, ProfileTextOptions{.subject = "v9.cu"});
  // Shares of the excerpt's 3564 samples, formatted by Python from the CSV.
  CHECK_THAT(text, Catch::EndsWith(
      "  stall reasons (3564 samples): long_sb 46.8%, barrier 29.2%, short_sb 11.4%, dispatch 3.8%, "
      "not_selected 2.4%, wait 2.4%\n"
      "  hot spots (share of this kernel's stall samples):\n"
      "   13.7%  #22 @!P0 BRA 0x7f13817afc60  (long_sb 13.2%, dispatch 0.3%, not_selected 0.3%)\n"
      "   12.2%  #21 @!P0 BRA 0x7f13817afc30  (long_sb 12.0%, not_selected 0.1%, wait 0.1%)\n"
      "    9.6%  #17 @P0 BRA 0x7f13817ad6f0  (long_sb 9.3%, wait 0.2%, selected 0.1%)\n"
      "    9.4%  #10 @!P0 WARPSYNC.ALL  (barrier 6.3%, dispatch 1.6%, not_selected 1.2%)\n"
      "    7.6%  #13 WARPGROUP.DEPBAR.LE gsb0, 0x1  (barrier 7.2%, dispatch 0.2%, not_selected 0.1%)\n"));
  CHECK_THAT(text, Catch::StartsWith("profile of v9.cu on perf-bf16-d128-full-s512\nkernel AttentionFwdKernel block"));
}

TEST_CASE("NcuSourceArgv asks for the SASS source page with stall sampling of one launch") {
  std::vector<std::string> runner = {"/bin/kseek-runner", "--mode", "verify", "--scenarios", "s1"};
  std::vector<std::string> argv =
      NcuSourceArgv("/usr/local/cuda/bin/ncu", {"attn_fwd"}, "/tmp/w/ncu_source.csv", runner);
  std::vector<std::string> expected = {"/usr/local/cuda/bin/ncu",
                                       "--clock-control", "none",
                                       "--section", "SourceCounters",
                                       "--section", "WarpStateStats",
                                       "--page", "source",
                                       "--print-source", "sass",
                                       "--csv",
                                       "--kernel-name-base", "mangled",
                                       "--kernel-name", "regex:^(attn_fwd)$",
                                       "--launch-count", "1",
                                       "--log-file", "/tmp/w/ncu_source.csv"};
  expected.insert(expected.end(), runner.begin(), runner.end());
  CHECK(argv == expected);
}

TEST_CASE("FunctionBaseName gives the name ncu prints with --print-kernel-base function") {
  CHECK(FunctionBaseName("void <unnamed>::AttentionFwdKernel<(int)128, (int)128, (bool)1>(CUtensorMap_st, "
                         "CUtensorMap_st, CUtensorMap_st, <unnamed>::FwdParams)") == "AttentionFwdKernel");
  CHECK(FunctionBaseName("attn_fwd(const float *, float *, int)") == "attn_fwd");
  CHECK(FunctionBaseName("void ns::inner::Tile<(int)64, Foo<(int)2>>(float *)") == "Tile");
  CHECK(FunctionBaseName("attn_fwd") == "attn_fwd");
}

}  // namespace
}  // namespace kseek
