#include "worker/capabilities.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/subprocess.h"
#include "problem/arch.h"
#include "problem/problem_catalog.h"

namespace kseek {
namespace {

void AddProperty(PropertyList* list, std::string key, std::string value) {
  kernelseek::v1::Property* p = list->Add();
  p->set_key(std::move(key));
  p->set_value(std::move(value));
}

// Runs a probe; an empty optional and `*why` set when it could not run or failed.
std::optional<std::string> RunProbe(const std::vector<std::string>& argv, absl::Duration limit,
                                    std::string* why,
                                    const std::vector<std::pair<std::string, std::string>>& env = {}) {
  SubprocessSpec spec;
  spec.argv = argv;
  spec.extra_env = env;
  spec.time_limit = limit;
  spec.max_output_bytes = 1 << 20;
  absl::StatusOr<SubprocessResult> run = RunSubprocess(spec);
  if (!run.ok()) {
    *why = std::string(run.status().message());
    return std::nullopt;
  }
  if (!run->Succeeded()) {
    std::string detail(absl::StripAsciiWhitespace(run->stdout_text + run->stderr_text));
    if (detail.size() > 200) detail.resize(200);
    *why = absl::StrCat("'", FormatCommandLine(argv), "' failed with ", run->Describe(),
                        detail.empty() ? "" : ": ", detail);
    return std::nullopt;
  }
  return run->stdout_text;
}

}  // namespace

std::optional<std::string> ParseBaselineProbe(absl::string_view probe_output, std::string* missing) {
  nlohmann::json doc = nlohmann::json::parse(probe_output, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("available") || !doc["available"].is_object()) {
    *missing = absl::StrCat("the probe printed no {\"available\": ...} document: ",
                            OutputTail(std::string(probe_output), 200));
    return std::nullopt;
  }
  std::set<std::string> available;  // sorted: the order `kseek workers` lists them in
  std::vector<std::string> absent;
  for (const auto& [name, version] : doc["available"].items()) {
    const bool is_name = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    });
    if (is_name) available.insert(name);
  }
  if (doc.contains("missing") && doc["missing"].is_object()) {
    for (const auto& [name, why] : doc["missing"].items()) {
      absent.push_back(absl::StrCat(name, ": ", why.is_string() ? why.get<std::string>() : why.dump()));
    }
  }
  *missing = absl::StrJoin(absent, "; ");
  if (available.empty()) return std::nullopt;
  return absl::StrJoin(available, ",");
}

std::optional<std::string> ParseNvccRelease(absl::string_view version_output) {
  static const std::regex kRelease(R"(release (\d+\.\d+))");
  std::string text(version_output);
  std::smatch m;
  if (!std::regex_search(text, m, kRelease)) return std::nullopt;
  return m[1].str();
}

std::optional<std::string> ParseNcuVersion(absl::string_view version_output) {
  static const std::regex kVersion(R"(Version (\d+\.\d+(\.\d+)?))");
  std::string text(version_output);
  std::smatch m;
  if (!std::regex_search(text, m, kVersion)) return std::nullopt;
  return m[1].str();
}

std::string FindNcu(absl::string_view path_env, const std::vector<std::string>& fixed_candidates,
                    const std::string& versions_dir) {
  std::vector<std::string> candidates;
  for (absl::string_view dir : absl::StrSplit(path_env, ':', absl::SkipEmpty())) {
    candidates.push_back(absl::StrCat(dir, "/ncu"));
  }
  candidates.insert(candidates.end(), fixed_candidates.begin(), fixed_candidates.end());
  // Nsight Compute installs side by side as versions_dir/<version>/ncu; the
  // greatest name is taken, which for its YYYY.N.N names is the newest.
  std::vector<std::string> installed;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(versions_dir, error)) {
    installed.push_back((entry.path() / "ncu").string());
  }
  std::sort(installed.rbegin(), installed.rend());
  candidates.insert(candidates.end(), installed.begin(), installed.end());
  for (const std::string& candidate : candidates) {
    if (access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate, error)) {
      return candidate;
    }
  }
  return "";
}

std::vector<std::vector<std::string>> BaselineProbeArgvs(const std::string& python,
                                                         const std::string& baselines_dir) {
  std::vector<std::string> programs;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(baselines_dir, error)) {
    if (absl::EndsWith(entry.path().filename().string(), "_baseline.py")) programs.push_back(entry.path().string());
  }
  std::sort(programs.begin(), programs.end());
  std::vector<std::vector<std::string>> probes;
  for (const std::string& program : programs) probes.push_back({python, program, "--probe"});
  return probes;
}

std::string FindNcu(absl::string_view path_env) {
  return FindNcu(path_env, {"/usr/local/cuda/bin/ncu"}, "/opt/nvidia/nsight-compute");
}

std::vector<std::string> CompileArchsFromGpuCodeList(absl::string_view list_gpu_code_output) {
  std::set<std::string, std::less<>> listed;
  for (absl::string_view line : absl::StrSplit(list_gpu_code_output, '\n')) {
    absl::string_view name = absl::StripAsciiWhitespace(line);
    if (!name.empty()) listed.insert(std::string(name));
  }
  std::vector<std::string> archs;
  for (const KnownArch& arch : KnownArchs()) {
    if (listed.count(arch.base) > 0) archs.emplace_back(arch.name);
  }
  return archs;
}

std::optional<GpuInfo> ParseNvidiaSmi(absl::string_view query_output,
                                      absl::string_view header_output) {
  for (absl::string_view line : absl::StrSplit(query_output, '\n')) {
    std::vector<std::string> fields;
    for (absl::string_view f : absl::StrSplit(line, ',')) {
      fields.emplace_back(absl::StripAsciiWhitespace(f));
    }
    if (fields.size() < 2 || fields[0].empty()) continue;
    // compute_cap "9.0" -> "sm_90", "10.0" -> "sm_100", "12.1" -> "sm_121".
    std::vector<std::string> cap = absl::StrSplit(fields[1], '.');
    auto digits = [](const std::string& s) {
      return !s.empty() && std::all_of(s.begin(), s.end(), absl::ascii_isdigit);
    };
    if (cap.size() != 2 || !digits(cap[0]) || !digits(cap[1])) continue;
    GpuInfo info;
    info.name = fields[0];
    info.arch = absl::StrCat("sm_", cap[0], cap[1]);
    static const std::regex kCudaVersion(R"(CUDA Version:\s*(\d+\.\d+))");
    std::string header(header_output);
    std::smatch m;
    if (std::regex_search(header, m, kCudaVersion)) info.driver = m[1].str();
    return info;
  }
  return std::nullopt;
}

absl::StatusOr<std::string> AddProblemsCapability(const std::string& scenarios_dir, DetectedCapabilities* detected) {
  PropertyList& properties = detected->properties;
  if (std::none_of(properties.begin(), properties.end(),
                   [](const kernelseek::v1::Property& p) { return p.key() == "arch"; })) {
    return std::string();
  }
  absl::StatusOr<ProblemCatalog> catalog = ProblemCatalog::Load(scenarios_dir);
  if (!catalog.ok()) return catalog.status();
  std::string value = catalog->Capability();
  if (value.empty()) return absl::StrCat("no problems in ", scenarios_dir, ": no verify, bench or profile job will come");
  AddProperty(&properties, "problems", value);
  SortProperties(&properties);
  return std::string();
}

DetectedCapabilities DetectCapabilities(const CapabilityProbeConfig& config) {
  DetectedCapabilities out;
  std::vector<std::pair<std::string, std::string>> found;

  if (config.nvcc_path.empty()) {
    out.nvcc_note = "no compile capability: no nvcc configured";
  } else {
    std::string why;
    std::optional<std::string> version =
        RunProbe({config.nvcc_path, "--version"}, config.tool_time_limit, &why);
    std::optional<std::string> release;
    if (version) release = ParseNvccRelease(*version);
    std::optional<std::string> codes;
    if (release)
      codes = RunProbe({config.nvcc_path, "--list-gpu-code"}, config.tool_time_limit, &why);
    if (!version) {
      out.nvcc_note = absl::StrCat("no compile capability: ", why);
    } else if (!release) {
      out.nvcc_note = absl::StrCat("no compile capability: no release number in '",
                                   config.nvcc_path, " --version' output");
    } else if (!codes) {
      out.nvcc_note = absl::StrCat("no compile capability: ", why);
    } else {
      out.compile_archs = CompileArchsFromGpuCodeList(*codes);
      found.emplace_back("nvcc", *release);
      if (out.compile_archs.empty()) {
        out.nvcc_note = absl::StrCat("no compile capability: nvcc ", *release,
                                     " supports none of the architectures this worker allows");
      } else {
        found.emplace_back("compile", absl::StrJoin(out.compile_archs, ","));
      }
    }
  }

  if (config.nvidia_smi_path.empty()) {
    out.gpu_note = "no GPU: GPU detection is off (no nvidia-smi configured)";
  } else {
    std::string why;
    std::vector<std::string> select;
    if (config.gpu_index >= 0) select = {"-i", absl::StrCat(config.gpu_index)};
    std::vector<std::string> query_argv = {config.nvidia_smi_path, "--query-gpu=name,compute_cap", "--format=csv,noheader"};
    query_argv.insert(query_argv.end(), select.begin(), select.end());
    std::vector<std::string> header_argv = {config.nvidia_smi_path};
    header_argv.insert(header_argv.end(), select.begin(), select.end());
    std::optional<std::string> query = RunProbe(query_argv, config.tool_time_limit, &why);
    std::optional<std::string> header;
    if (query) header = RunProbe(header_argv, config.tool_time_limit, &why);
    std::optional<GpuInfo> gpu;
    if (query && header) gpu = ParseNvidiaSmi(*query, *header);
    if (!query || !header) {
      out.gpu_note = absl::StrCat("no GPU: ", why);
    } else if (!gpu) {
      out.gpu_note = "no GPU: nvidia-smi lists no device";
    } else {
      found.emplace_back("gpu", gpu->name);
      found.emplace_back("arch", gpu->arch);
      if (gpu->driver.empty()) {
        out.gpu_note = "GPU found, but nvidia-smi shows no CUDA Version: no driver property";
      } else {
        found.emplace_back("driver", gpu->driver);
      }
    }
  }

  if (config.ncu_path.empty()) {
    out.ncu_note = "no profiling: Nsight Compute (ncu) not found";
  } else {
    std::string why;
    std::optional<std::string> version =
        RunProbe({config.ncu_path, "--version"}, config.tool_time_limit, &why);
    std::optional<std::string> parsed;
    if (version) parsed = ParseNcuVersion(*version);
    if (!version) {
      out.ncu_note = absl::StrCat("no profiling: ", why);
    } else if (!parsed) {
      out.ncu_note = absl::StrCat("no profiling: no version in '", config.ncu_path, " --version' output");
    } else {
      found.emplace_back("ncu", *parsed);
    }
  }

  if (config.baseline_probes.empty()) {
    out.baselines_note = "no baselines: no baseline program to probe";
  } else {
    // The union over every problem's program; each says what it lacks.
    std::set<std::string> names;
    std::vector<std::string> whys;
    for (const std::vector<std::string>& probe : config.baseline_probes) {
      std::string why;
      std::optional<std::string> printed = RunProbe(probe, config.baseline_probe_limit, &why, config.baseline_probe_env);
      std::optional<std::string> these;
      if (printed) these = ParseBaselineProbe(*printed, &why);
      if (these) {
        for (absl::string_view name : absl::StrSplit(*these, ',')) names.emplace(name);
      }
      if (!why.empty()) whys.push_back(why);
    }
    if (!names.empty()) found.emplace_back("baselines", absl::StrJoin(names, ","));
    if (!whys.empty()) {
      out.baselines_note = absl::StrCat(names.empty() ? "no baselines: " : "baselines missing: ", absl::StrJoin(whys, "; "));
    }
  }

  std::sort(found.begin(), found.end());
  for (auto& [key, value] : found) AddProperty(&out.properties, key, value);
  return out;
}

}  // namespace kseek
