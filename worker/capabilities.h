// DetectCapabilities: what this worker can do, as the sorted Property list it
// advertises to the server (keys and meaning in proto/kernelseek.proto):
// `nvcc` and `compile` from the local nvcc, `gpu`, `arch`, `driver` from
// nvidia-smi when a GPU is visible. Runs the tools once; call it at start-up.
// Thread-safe (no shared state).
#ifndef KERNELSEEK_WORKER_CAPABILITIES_H_
#define KERNELSEEK_WORKER_CAPABILITIES_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/properties.h"

namespace kseek {

struct CapabilityProbeConfig {
  // Empty: no compile capability.
  std::string nvcc_path = "/usr/local/cuda/bin/nvcc";
  // Searched in PATH unless it contains '/'. Empty: do not look for a GPU.
  std::string nvidia_smi_path = "nvidia-smi";
  absl::Duration tool_time_limit = absl::Seconds(30);
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
};

DetectedCapabilities DetectCapabilities(const CapabilityProbeConfig& config);

// Parsers of the tools' output, exposed for tests.

// "13.0" from `nvcc --version` ("... release 13.0, V13.0.88"); nullopt if absent.
std::optional<std::string> ParseNvccRelease(absl::string_view version_output);

// The KnownArchs() names that nvcc can build for, given its
// `--list-gpu-code` output (one sm_XX per line): a base name when listed, and
// its `a` variant when the base is listed (nvcc has had the `a` variants of
// every listed arch from sm_90 on).
std::vector<std::string> CompileArchsFromGpuCodeList(absl::string_view list_gpu_code_output);

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
