#include "worker/capabilities.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "problem/problem_catalog.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

constexpr char kNvccPath[] = "/usr/local/cuda/bin/nvcc";

// Captured from nvcc 13.0 (V13.0.88).
constexpr char kNvccVersion[] = R"(nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2025 NVIDIA Corporation
Built on Wed_Aug_20_01:58:59_PM_PDT_2025
Cuda compilation tools, release 13.0, V13.0.88
Build cuda_13.0.r13.0/compiler.36424714_0
)";
constexpr char kNvccListGpuCode[] =
    "sm_75\nsm_80\nsm_86\nsm_87\nsm_88\nsm_89\nsm_90\nsm_100\nsm_110\nsm_103\nsm_120\nsm_121\n";

// Captured from an NVIDIA H200 node, driver 580.159.04.
constexpr char kSmiQuery[] = "NVIDIA H200, 9.0, 580.159.04\n";
constexpr char kSmiHeader[] = R"(Mon Nov 30 03:41:56 2026
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |
+-----------------------------------------+------------------------+----------------------+
)";

TEST_CASE("ParseNvccRelease reads the release number") {
  CHECK(ParseNvccRelease(kNvccVersion) == "13.0");
  CHECK_FALSE(ParseNvccRelease("bash: nvcc: command not found").has_value());
}

TEST_CASE("CompileArchsFromGpuCodeList keeps the allowed archs nvcc lists, with a variants") {
  std::vector<std::string> archs = CompileArchsFromGpuCodeList(kNvccListGpuCode);
  CHECK(archs == std::vector<std::string>{"sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90",
                                          "sm_90a", "sm_100", "sm_100a", "sm_103", "sm_103a",
                                          "sm_110", "sm_110a", "sm_120", "sm_120a", "sm_121",
                                          "sm_121a"});
  // An nvcc without Blackwell cannot claim sm_100a.
  archs = CompileArchsFromGpuCodeList("sm_80\nsm_90\n");
  CHECK(archs == std::vector<std::string>{"sm_80", "sm_90", "sm_90a"});
  CHECK(CompileArchsFromGpuCodeList("").empty());
}

TEST_CASE("ParseNvidiaSmi reads the first GPU and the CUDA driver version") {
  std::optional<GpuInfo> gpu = ParseNvidiaSmi(kSmiQuery, kSmiHeader);
  REQUIRE(gpu.has_value());
  CHECK(gpu->name == "NVIDIA H200");
  CHECK(gpu->arch == "sm_90");
  CHECK(gpu->driver == "13.0");
  gpu = ParseNvidiaSmi("NVIDIA B200, 10.0\nNVIDIA B200, 10.0\n", "");
  REQUIRE(gpu.has_value());
  CHECK(gpu->arch == "sm_100");
  CHECK(gpu->driver.empty());
  CHECK_FALSE(ParseNvidiaSmi("No devices were found\n", kSmiHeader).has_value());
  CHECK_FALSE(ParseNvidiaSmi("", "").has_value());
}

TEST_CASE("DetectCapabilities without nvcc or nvidia-smi advertises nothing and says why") {
  CapabilityProbeConfig config;
  config.nvcc_path = "/nonexistent/nvcc";
  config.nvidia_smi_path = "/nonexistent/nvidia-smi";
  DetectedCapabilities caps = DetectCapabilities(config);
  CHECK(caps.properties.empty());
  CHECK(caps.compile_archs.empty());
  CHECK(caps.nvcc_note.find("/nonexistent/nvcc") != std::string::npos);
  CHECK(caps.gpu_note.find("/nonexistent/nvidia-smi") != std::string::npos);
}

TEST_CASE("DetectCapabilities with the real nvcc advertises sm_90a and sm_100a") {
  if (access(kNvccPath, X_OK) != 0) {
    WARN("skipped: no nvcc at " << kNvccPath);
    return;
  }
  CapabilityProbeConfig config;
  config.nvcc_path = kNvccPath;
  config.nvidia_smi_path = "/nonexistent/nvidia-smi";
  DetectedCapabilities caps = DetectCapabilities(config);
  CHECK(ValidateProperties(caps.properties).ok());
  REQUIRE(caps.properties.size() == 2);
  CHECK(caps.properties[0].key() == "compile");
  CHECK(caps.properties[1].key() == "nvcc");
  std::vector<std::string> archs = absl::StrSplit(caps.properties[0].value(), ',');
  CHECK(archs == caps.compile_archs);
  CHECK(std::find(archs.begin(), archs.end(), "sm_90a") != archs.end());
  CHECK(std::find(archs.begin(), archs.end(), "sm_100a") != archs.end());
  CHECK(caps.nvcc_note.empty());
  CHECK_FALSE(caps.gpu_note.empty());
}

// Nsight Compute's version banner, written by hand after the format of
// `ncu --version` in Nsight Compute 2025.x (no ncu on this machine).
constexpr char kNcuVersion[] = R"(NVIDIA (R) Nsight Compute Command Line Profiler
Copyright (c) 2018-2025 NVIDIA Corporation
Version 2025.3.1.0 (build 36398880) (public-release)
)";

// Writes an executable shell script `name` into `dir` that prints `output`.
std::string WriteScript(const std::string& dir, const std::string& name, const std::string& output) {
  std::string path = dir + "/" + name;
  std::ofstream(path) << "#!/bin/sh\ncat <<'EOF'\n" << output << "EOF\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

TEST_CASE("ParseNcuVersion reads the first three version components") {
  CHECK(ParseNcuVersion(kNcuVersion) == "2025.3.1");
  CHECK(ParseNcuVersion("Version 2024.1 (build 1)") == "2024.1");
  CHECK_FALSE(ParseNcuVersion("ncu: command not found").has_value());
}

TEST_CASE("DetectCapabilities advertises ncu when a fake ncu prints its version") {
  testing::TempDir dir;
  CapabilityProbeConfig config;
  config.nvcc_path = "";
  config.nvidia_smi_path = "";
  config.ncu_path = WriteScript(dir.path(), "ncu", kNcuVersion);
  DetectedCapabilities caps = DetectCapabilities(config);
  REQUIRE(caps.properties.size() == 1);
  CHECK(caps.properties[0].key() == "ncu");
  CHECK(caps.properties[0].value() == "2025.3.1");
  CHECK(ValidateProperties(caps.properties).ok());
  CHECK(caps.ncu_note.empty());

  // A tool that runs but prints no version is not Nsight Compute.
  config.ncu_path = WriteScript(dir.path(), "not-ncu", "hello\n");
  caps = DetectCapabilities(config);
  CHECK(caps.properties.empty());
  CHECK(caps.ncu_note.find("no version") != std::string::npos);

  config.ncu_path = "/nonexistent/ncu";
  caps = DetectCapabilities(config);
  CHECK(caps.properties.empty());
  CHECK(caps.ncu_note.find("/nonexistent/ncu") != std::string::npos);
}

TEST_CASE("FindNcu looks in PATH, then the fixed places, then the newest versioned install") {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.File("bin"));
  std::filesystem::create_directories(dir.File("opt/2024.1.0"));
  std::filesystem::create_directories(dir.File("opt/2025.3.1"));
  const std::string old_install = WriteScript(dir.File("opt/2024.1.0"), "ncu", kNcuVersion);
  const std::string new_install = WriteScript(dir.File("opt/2025.3.1"), "ncu", kNcuVersion);
  CHECK(FindNcu("/nonexistent", {"/nonexistent/ncu"}, dir.File("opt")) == new_install);
  const std::string fixed = WriteScript(dir.path(), "ncu", kNcuVersion);
  CHECK(FindNcu("/nonexistent", {fixed}, dir.File("opt")) == fixed);
  const std::string in_path = WriteScript(dir.File("bin"), "ncu", kNcuVersion);
  CHECK(FindNcu(absl::StrCat("/nonexistent:", dir.File("bin")), {fixed}, dir.File("opt")) == in_path);
  CHECK(FindNcu("/nonexistent", {"/nonexistent/ncu"}, dir.File("nothing")).empty());
}

TEST_CASE("ParseBaselineProbe lists the importable baselines in sorted order and says why others are missing") {
  std::string missing;
  CHECK(ParseBaselineProbe(R"({"available": {"fa3": "torch 2.11 fa3-fwd 0.0.3", "cudnn": "torch 2.11 cudnn 91900"},
                               "missing": {"fa4": "ModuleNotFoundError: No module named 'flash_attn'"}})",
                           &missing) == "cudnn,fa3");
  CHECK(missing == "fa4: ModuleNotFoundError: No module named 'flash_attn'");
  CHECK_FALSE(ParseBaselineProbe(R"({"available": {}, "missing": {"cudnn": "no torch"}})", &missing).has_value());
  CHECK(missing == "cudnn: no torch");
  // A name no list knows (a new problem's baseline) is listed as it is; one
  // that is not a name is not.
  CHECK(ParseBaselineProbe(R"({"available": {"cublas": "torch 2.11 cuda 13.0", "bad name": "v"}, "missing": {}})",
                           &missing) == "cublas");
  CHECK_FALSE(ParseBaselineProbe("Traceback (most recent call last):", &missing).has_value());
  CHECK(missing.find("no {\"available\"") != std::string::npos);
}

TEST_CASE("DetectCapabilities advertises the baselines the probe found, with the probe's environment") {
  testing::TempDir dir;
  const std::string probe = dir.File("probe.sh");
  // Offers fa3 only when the wheel site is on PYTHONPATH, as the real probe would.
  std::ofstream(probe) << "#!/bin/sh\ncase \"$PYTHONPATH\" in\n"
                          "  /site*) echo '{\"available\": {\"cudnn\": \"v\", \"fa3\": \"v\"}, \"missing\": {}}' ;;\n"
                          "  *) echo '{\"available\": {\"cudnn\": \"v\"}, \"missing\": {\"fa3\": \"no fa3_fwd_interface\"}}' ;;\n"
                          "esac\n";
  std::filesystem::permissions(probe, std::filesystem::perms::owner_all);
  CapabilityProbeConfig config;
  config.nvcc_path = "";
  config.nvidia_smi_path = "";
  config.baseline_probes = {{probe}};
  DetectedCapabilities caps = DetectCapabilities(config);
  REQUIRE(caps.properties.size() == 1);
  CHECK(caps.properties[0].key() == "baselines");
  CHECK(caps.properties[0].value() == "cudnn");
  CHECK(caps.baselines_note == "baselines missing: fa3: no fa3_fwd_interface");
  CHECK(ValidateProperties(caps.properties).ok());

  config.baseline_probe_env = {{"PYTHONPATH", "/site-1"}};
  caps = DetectCapabilities(config);
  REQUIRE(caps.properties.size() == 1);
  CHECK(caps.properties[0].value() == "cudnn,fa3");
  CHECK(caps.baselines_note.empty());
}

TEST_CASE("BaselineProbeArgvs runs every problem's baseline program with --probe") {
  testing::TempDir dir;
  CHECK(BaselineProbeArgvs("python3", dir.path()).empty());
  std::ofstream(dir.File("gemm_baseline.py")) << "\n";
  std::ofstream(dir.File("attention_fwd_baseline.py")) << "\n";
  std::ofstream(dir.File("helpers.py")) << "\n";
  CHECK(BaselineProbeArgvs("python3", dir.path()) ==
        std::vector<std::vector<std::string>>{{"python3", dir.File("attention_fwd_baseline.py"), "--probe"},
                                              {"python3", dir.File("gemm_baseline.py"), "--probe"}});
}

TEST_CASE("DetectCapabilities advertises the union of every baseline program's probe") {
  testing::TempDir dir;
  auto write_probe = [&](const std::string& name, const std::string& output) {
    const std::string path = dir.File(name);
    std::ofstream(path) << "#!/bin/sh\necho '" << output << "'\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path;
  };
  CapabilityProbeConfig config;
  config.nvcc_path = "";
  config.nvidia_smi_path = "";
  config.baseline_probes = {
      {write_probe("attention.sh", R"({"available": {"fa3": "v", "cudnn": "v"}, "missing": {"fa4": "no cutlass"}})")},
      {write_probe("gemm.sh", R"({"available": {"cublas": "v"}, "missing": {}})")}};
  DetectedCapabilities caps = DetectCapabilities(config);
  REQUIRE(caps.properties.size() == 1);
  CHECK(caps.properties[0].value() == "cublas,cudnn,fa3");
  CHECK(caps.baselines_note == "baselines missing: fa4: no cutlass");
  CHECK(ValidateProperties(caps.properties).ok());
}

void AddProperty(PropertyList* list, const std::string& key, const std::string& value) {
  kernelseek::v1::Property* p = list->Add();
  p->set_key(key);
  p->set_value(value);
}

TEST_CASE("AddProblemsCapability advertises a GPU worker's problems with their digests, and nothing without a GPU") {
  const std::string scenarios = std::string(KSEEK_SOURCE_DIR) + "/scenarios";
  absl::StatusOr<ProblemCatalog> catalog = ProblemCatalog::Load(scenarios);
  REQUIRE(catalog.ok());
  REQUIRE_FALSE(catalog->Names().empty());

  DetectedCapabilities gpu;
  AddProperty(&gpu.properties, "arch", "sm_90");
  AddProperty(&gpu.properties, "nvcc", "13.0");
  absl::StatusOr<std::string> note = AddProblemsCapability(scenarios, &gpu);
  REQUIRE(note.ok());
  CHECK(note->empty());
  REQUIRE(ValidateProperties(gpu.properties).ok());  // still sorted: problems after nvcc
  REQUIRE(gpu.properties.size() == 3);
  CHECK(gpu.properties[2].key() == "problems");
  CHECK(gpu.properties[2].value() == catalog->Capability());
  for (const std::string& name : catalog->Names()) {
    CHECK_THAT(gpu.properties[2].value(), Catch::Contains(ProblemCapability(name, (*catalog->Find(name))->digest())));
  }

  DetectedCapabilities cpu;
  AddProperty(&cpu.properties, "compile", "sm_90a");
  REQUIRE(AddProblemsCapability(scenarios, &cpu).ok());
  CHECK(cpu.properties.size() == 1);

  testing::TempDir empty;
  DetectedCapabilities bare;
  AddProperty(&bare.properties, "arch", "sm_90");
  note = AddProblemsCapability(empty.path(), &bare);
  REQUIRE(note.ok());
  CHECK_THAT(*note, Catch::Contains("no problems in"));
  CHECK(bare.properties.size() == 1);
}

TEST_CASE("AddProblemsCapability refuses a GPU worker a manifest that does not parse, with its file and line") {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.File("broken"));
  std::ofstream(dir.File("broken/problem.textproto")) << "name: \"broken\"\nentry_point: 12 12\n";
  DetectedCapabilities gpu;
  AddProperty(&gpu.properties, "arch", "sm_90");
  absl::StatusOr<std::string> note = AddProblemsCapability(dir.path(), &gpu);
  REQUIRE_FALSE(note.ok());
  CHECK_THAT(std::string(note.status().message()), Catch::Contains("problem.textproto"));
}

}  // namespace
}  // namespace kseek
