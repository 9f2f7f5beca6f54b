#include "worker/ncu_report.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace kseek {
namespace {

// Captured from Nsight Compute 2025.3.1 on an H200 on 2026-11-30, by the
// command NcuProfileArgv builds (worker/ncu_report.cc), run against a test
// program that launches one attention kernel twice; trimmed to the rows the
// parser reads plus a few it must pass over (an unread metric, a "no data"
// value, rule rows), every kept line verbatim. What the hand-made sample this
// replaced got wrong: metric rows stop after "Metric Value" with a trailing
// comma (16 fields) while the header has 20 columns, only rule rows have all
// 20 and name their section by identifier ("SpeedOfLight"), and shared
// memory per block is in "byte/block".
constexpr char kNcuCsvH200[] = R"csv(==WARNING== Note: Running with unmodified GPU clocks. If not controlled otherwise, profiling results may be inconsistent.
==PROF== Connected to process 1276 (/usr/bin/python3.12)
==PROF== Disconnected from process 1276
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value","Rule Name","Rule Type","Rule Description","Estimated Speedup Type","Estimated Speedup"
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","DRAM Frequency","hz","3,199,420,145.79",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Memory Throughput","%","43.19",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","DRAM Throughput","%","33.45",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Duration","ns","160,960",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","L1/TEX Cache Throughput","%","46.78",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","L2 Cache Throughput","%","49.70",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Compute (SM) Throughput","%","48.14",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","SpeedOfLight","","","","SOLBottleneck","OPT","This workload exhibits low compute throughput and memory bandwidth utilization relative to the peak performance of this device. Achieved compute throughput and/or memory bandwidth below 60.0% of peak typically indicate latency issues. Look at Scheduler Statistics and Warp State Statistics for potential reasons.","",""
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Memory Workload Analysis","Local Memory Spilling Request Overhead","%","no data",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Memory Workload Analysis","Memory Throughput","byte/s","1,609,549,105,367.79",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Memory Workload Analysis","Mem Busy","%","43.19",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Memory Workload Analysis","Max Bandwidth","%","33.45",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Memory Workload Analysis","L1/TEX Hit Rate","%","59.62",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Memory Workload Analysis","L2 Hit Rate","%","62.62",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Launch Statistics","Registers Per Thread","register/thread","168",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Launch Statistics","Driver Shared Memory Per Block","byte/block","1,024",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Launch Statistics","Dynamic Shared Memory Per Block","byte/block","214,096",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Launch Statistics","Static Shared Memory Per Block","byte/block","0",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Launch Statistics","Waves Per SM","","1",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","Block Limit Registers","block","1",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","Block Limit Shared Mem","block","1",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","Block Limit Warps","block","5",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","Theoretical Occupancy","%","18.75",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","Achieved Occupancy","%","14.02",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","Achieved Active Warps Per SM","warp","8.97",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","","","","TheoreticalOccupancy","OPT","The 3.00 theoretical warps per scheduler this kernel can issue according to its occupancy are below the hardware maximum of 16. This kernel's theoretical occupancy (18.8%) is limited by the number of required registers, and the required amount of shared memory.","local","81.25"
"1","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Duration","ns","161,504",
"1","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Compute (SM) Throughput","%","47.94",
"1","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Launch Statistics","Registers Per Thread","register/thread","168",
"1","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","Achieved Occupancy","%","13.98",
"1","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","","","","TheoreticalOccupancy","OPT","The 3.00 theoretical warps per scheduler this kernel can issue according to its occupancy are below the hardware maximum of 16. This kernel's theoretical occupancy (18.8%) is limited by the number of required registers, and the required amount of shared memory.","local","81.25"
)csv";

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

}  // namespace
}  // namespace kseek
