#include "worker/ncu_report.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace kseek {
namespace {

// Hand-written after the documented layout of `ncu --csv --page details
// --print-units base --log-file F` (Nsight Compute 2025.x): tool lines
// prefixed "==PROF==", then one row per (launch, section, metric). Not
// captured from a real run: there is no GPU or ncu on this machine. Kernel
// "attn_fwd" is launched twice (IDs 0 and 2), "attn_combine" once; the
// "Rule Name" column stands for the extra columns newer versions add.
constexpr char kNcuCsv[] = R"csv(==PROF== Connected to process 4242 (/opt/kseek/bin/kseek-runner)
==PROF== Profiling "attn_fwd" - 0: 0%....50%....100% - 40 passes
==PROF== Profiling "attn_combine" - 1: 0%....50%....100% - 40 passes
==PROF== Profiling "attn_fwd" - 2: 0%....50%....100% - 40 passes
==PROF== Disconnected from process 4242
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value","Rule Name"
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","GPU Speed Of Light Throughput","DRAM Frequency","hz","2,619,000,000",""
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","GPU Speed Of Light Throughput","Elapsed Cycles","cycle","1,234,567",""
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","GPU Speed Of Light Throughput","Memory Throughput","%","41.27",""
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","GPU Speed Of Light Throughput","DRAM Throughput","%","12.05",""
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","GPU Speed Of Light Throughput","Duration","nsecond","845,312",""
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","GPU Speed Of Light Throughput","L2 Cache Throughput","%","20.50",""
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","GPU Speed Of Light Throughput","Compute (SM) Throughput","%","63.80",""
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","GPU Speed Of Light Throughput","","","","SOLBottleneck"
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","Launch Statistics","Block Size","","128",""
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","Launch Statistics","Registers Per Thread","register/thread","168",""
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","Launch Statistics","Static Shared Memory Per Block","byte","16,384",""
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","Launch Statistics","Dynamic Shared Memory Per Block","byte","49,152",""
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","Launch Statistics","Waves Per SM","","1.94",""
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","Occupancy","Block Limit Registers","block","3",""
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","Occupancy","Theoretical Occupancy","%","18.75",""
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","Occupancy","Achieved Occupancy","%","17.92",""
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","Memory Workload Analysis","Memory Throughput","byte/second","581,234,000,000",""
"0","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","Memory Workload Analysis","L2 Hit Rate","%","88.10",""
"1","4242","kseek-runner","127.0.0.1","attn_combine","1","7","(256, 1, 1)","(512, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Duration","usecond","12.5",""
"1","4242","kseek-runner","127.0.0.1","attn_combine","1","7","(256, 1, 1)","(512, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Memory Throughput","%","71.00",""
"1","4242","kseek-runner","127.0.0.1","attn_combine","1","7","(256, 1, 1)","(512, 1, 1)","0","9.0","Launch Statistics","Registers Per Thread","register/thread","32",""
"2","4242","kseek-runner","127.0.0.1","attn_fwd","1","7","(128, 1, 1)","(64, 16, 1)","0","9.0","GPU Speed Of Light Throughput","Duration","nsecond","999,999",""
)csv";

TEST_CASE("ParseNcuCsv gives one compact profile per kernel, from its first launch") {
  absl::StatusOr<NcuReport> report = ParseNcuCsv(kNcuCsv);
  REQUIRE(report.ok());
  CHECK(report->errors.empty());
  REQUIRE(report->kernels.size() == 2);

  const kernelseek::v1::KernelProfile& fwd = report->kernels[0];
  CHECK(fwd.kernel() == "attn_fwd");
  CHECK(fwd.launches() == 2);
  CHECK(fwd.block_size() == "(128, 1, 1)");
  CHECK(fwd.grid_size() == "(64, 16, 1)");
  CHECK(fwd.duration_us() == Approx(845.312));  // launch 0's, not launch 2's
  CHECK(fwd.sm_throughput_pct() == Approx(63.80));
  CHECK(fwd.memory_throughput_pct() == Approx(41.27));  // Speed Of Light's %, not MWA's bytes/s
  CHECK(fwd.achieved_occupancy_pct() == Approx(17.92));
  CHECK(fwd.theoretical_occupancy_pct() == Approx(18.75));
  CHECK(fwd.registers_per_thread() == 168);
  CHECK(fwd.shared_memory_per_block_bytes() == 16384 + 49152);
  std::vector<std::string> metrics;
  for (const auto& m : fwd.metrics()) metrics.push_back(m.name() + "=" + m.value() + m.unit());
  CHECK(metrics == std::vector<std::string>{"DRAM Throughput=12.05%", "L2 Cache Throughput=20.50%",
                                            "Memory Throughput=581234000000byte/second", "L2 Hit Rate=88.10%",
                                            "Block Limit Registers=3block", "Waves Per SM=1.94"});

  const kernelseek::v1::KernelProfile& combine = report->kernels[1];
  CHECK(combine.kernel() == "attn_combine");
  CHECK(combine.launches() == 1);
  CHECK(combine.duration_us() == Approx(12.5));
  CHECK(combine.registers_per_thread() == 32);
  CHECK(combine.achieved_occupancy_pct() == 0);  // section absent: left unset
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
