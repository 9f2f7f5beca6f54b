// DetectCapabilities: what this worker can do, as the sorted Property list it
// advertises to the server (keys and meaning in proto/kernelseek.proto):
// `nvcc` and `compile` from the local nvcc, `gpu`, `arch`, `driver` from
// nvidia-smi when a GPU is visible, `ncu` when Nsight Compute runs,
// `baselines` for the bench baselines the baseline program can import. Runs
// the tools once; call it at start-up.
// Thread-safe (no shared state).
#ifndef KERNELSEEK_WORKER_CAPABILITIES_H_
#define KERNELSEEK_WORKER_CAPABILITIES_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/properties.h"

namespace kseek {

struct CapabilityProbeConfig {
  // Empty: no compile capability.
  std::string nvcc_path = "/usr/local/cuda/bin/nvcc";
  // Searched in PATH unless it contains '/'. Empty: do not look for a GPU.
  std::string nvidia_smi_path = "nvidia-smi";
  // >= 0: look only at this GPU (nvidia-smi -i N), the worker's --gpu.
  int gpu_index = -1;
  // Nsight Compute's CLI (see FindNcu). Empty: no `ncu` capability.
  std::string ncu_path;
  // The baseline programs' probes, one per PROBLEM_baseline.py (python,
  // PROBLEM_baseline.py, --probe), and what they add to the environment (the
  // wheel site's PYTHONPATH). Empty: no `baselines` capability.
  std::vector<std::vector<std::string>> baseline_probes;
  std::vector<std::pair<std::string, std::string>> baseline_probe_env;
  absl::Duration tool_time_limit = absl::Seconds(30);
  // Importing PyTorch and the FlashAttention packages takes a while.
  absl::Duration baseline_probe_limit = absl::Seconds(120);
};

struct DetectedCapabilities {
  PropertyList properties;  // sorted by key
  // The architectures of the `compile` property, in KnownArchs() order; what
  // CompilerConfig::supported_archs wants.
  std::vector<std::string> compile_archs;
  // One human line each for the worker's log when nvcc or a GPU was not
  // found, e.g. "no GPU: nvidia-smi not found". Empty when found.
  std::string nvcc_note;
  std::string gpu_note;
  std::string ncu_note;
  // Which baselines did not import and why, or why there was no probe.
  std::string baselines_note;
};

DetectedCapabilities DetectCapabilities(const CapabilityProbeConfig& config);

// Adds the `problems` property for the problems in `scenarios_dir` (one
// NAME@DIGEST each, see ProblemCatalog::Capability) to a GPU worker's
// properties, keeping them sorted; nothing for a worker without a GPU (no
// `arch`: it runs no verify, bench or profile) or an empty folder, which the
// returned note then says. INVALID_ARGUMENT with the file and line for a
// manifest that does not parse: a GPU worker refuses to start on it.
absl::StatusOr<std::string> AddProblemsCapability(const std::string& scenarios_dir, DetectedCapabilities* detected);

// The probe command of every PROBLEM_baseline.py in `baselines_dir`, by
// name, run with `python`: {python, PATH, "--probe"} each; empty when the
// folder holds none. Every problem's program is asked, so a new problem's
// baselines are advertised without a change here.
std::vector<std::vector<std::string>> BaselineProbeArgvs(const std::string& python,
                                                         const std::string& baselines_dir);

// Where Nsight Compute's `ncu` is: the first executable `ncu` in `path_env`
// (a PATH value), then /usr/local/cuda/bin/ncu, then the newest-named
// /opt/nvidia/nsight-compute/*/ncu; "" when none is. The second form takes
// the fixed candidates and the versions folder in place of those two, for tests.
std::string FindNcu(absl::string_view path_env);
std::string FindNcu(absl::string_view path_env, const std::vector<std::string>& fixed_candidates,
                    const std::string& versions_dir);

// Parsers of the tools' output, exposed for tests.

// "2025.3.1" from `ncu --version` ("Version 2025.3.1.0 (build ...)"): the
// first three components; nullopt if absent.
std::optional<std::string> ParseNcuVersion(absl::string_view version_output);

// "13.0" from `nvcc --version` ("... release 13.0, V13.0.88"); nullopt if absent.
std::optional<std::string> ParseNvccRelease(absl::string_view version_output);

// The KnownArchs() names that nvcc can build for, given its
// `--list-gpu-code` output (one sm_XX per line): a base name when listed, and
// its `a` variant when the base is listed (nvcc has had the `a` variants of
// every listed arch from sm_90 on).
std::vector<std::string> CompileArchsFromGpuCodeList(absl::string_view list_gpu_code_output);

// The `baselines` value from a baseline program's `--probe` output
// ({"available": {"cudnn": "torch ...", ...}, "missing": {"fa4": "why"}}):
// the available names (letters, digits, '-', '_', '.'), comma-separated in
// sorted order; nullopt when none is or the output is not such a document.
// `*missing` gets "fa4: why; ..." (or what was wrong with the output).
std::optional<std::string> ParseBaselineProbe(absl::string_view probe_output, std::string* missing);

struct GpuInfo {
  std::string name;    // "NVIDIA H200"
  std::string arch;    // "sm_90"
  std::string driver;  // CUDA driver version, "13.0"
};

// The first GPU of `nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader`
// ("NVIDIA H200, 9.0"), with the CUDA version from plain `nvidia-smi`'s header
// ("CUDA Version: 13.0"). nullopt when no GPU line parses.
std::optional<GpuInfo> ParseNvidiaSmi(absl::string_view query_output,
                                      absl::string_view header_output);

}  // namespace kseek

#endif  // KERNELSEEK_WORKER_CAPABILITIES_H_
