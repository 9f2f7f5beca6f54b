#include "common/profile_text.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace kseek {
namespace {

std::string VerdictLine(const kernelseek::v1::ScenarioResult& verdict) {
  // Both are zero when the scenario failed before any output was compared.
  const bool compared = verdict.max_abs_error() != 0 || verdict.error_bar() != 0;
  std::string error =
      compared ? absl::StrFormat(" (max error %.1e %s bar %.1e)", verdict.max_abs_error(),
                                 verdict.max_abs_error() <= verdict.error_bar() ? "<=" : ">",
                                 verdict.error_bar())
               : "";
  if (verdict.passed()) return absl::StrCat("verify: passed", error, "\n");
  return absl::StrCat("verify: FAIL ",
                      verdict.reason().empty() ? "(no reason given)" : verdict.reason(), error,
                      "\n");
}

// One metric as "name value unit". ncu's base unit for bandwidth is byte/s,
// which prints as a 13-digit number; that one is scaled to GB/s.
std::string MetricText(const kernelseek::v1::ProfileMetric& m) {
  double bytes_per_second = 0;
  if ((m.unit() == "byte/s" || m.unit() == "byte/second") &&
      absl::SimpleAtod(m.value(), &bytes_per_second)) {
    return absl::StrFormat("%s %.1f GB/s", m.name(), bytes_per_second / 1e9);
  }
  return absl::StrCat(m.name(), " ", m.value(), m.unit().empty() ? "" : " ", m.unit());
}

// SASS past this many characters is cut, so that a hot spot stays one line.
constexpr size_t kMaxInstructionChars = 72;

std::string ReasonsText(const google::protobuf::RepeatedPtrField<kernelseek::v1::StallReasonShare>& reasons) {
  std::vector<std::string> parts;
  for (const kernelseek::v1::StallReasonShare& r : reasons) {
    if (r.share_pct() < 0.05) continue;  // would read "0.0%": noise beside the others
    parts.push_back(absl::StrFormat("%s %.1f%%", r.reason(), r.share_pct()));
  }
  return absl::StrJoin(parts, ", ");
}

std::string HotSpotLines(const kernelseek::v1::KernelHotSpots& h) {
  if (h.total_samples() == 0) return "  stall reasons: ncu took no warp stall samples\n";
  std::string out = absl::StrCat("  stall reasons (", h.total_samples(), " samples): ", ReasonsText(h.stall_reasons()),
                                 "\n");
  if (h.hot_spots().empty()) return out;
  absl::StrAppend(&out, "  hot spots (share of this kernel's stall samples):\n");
  for (const kernelseek::v1::HotSpot& spot : h.hot_spots()) {
    std::string instruction = spot.instruction();
    if (instruction.size() > kMaxInstructionChars) {
      instruction = absl::StrCat(instruction.substr(0, kMaxInstructionChars - 3), "...");
    }
    absl::StrAppendFormat(&out, "   %4.1f%%  #%d %s", spot.share_pct(), spot.sass_index(), instruction);
    if (std::string reasons = ReasonsText(spot.reasons()); !reasons.empty()) {
      absl::StrAppend(&out, "  (", reasons, ")");
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

std::string KernelLines(const kernelseek::v1::KernelProfile& k) {
  if (k.has_hot_spots() && k.launches() == 0 && k.block_size().empty() && k.duration_us() == 0) {
    // Only the source page's run saw this kernel; there are no other numbers.
    return absl::StrCat("kernel ", k.kernel(), " (warp stall sampling only):\n", HotSpotLines(k.hot_spots()));
  }
  std::string out = absl::StrFormat(
      "kernel %s block %s grid %s: %.1f us, SM throughput %.1f%%, memory throughput %.1f%%, "
      "occupancy %.1f%% achieved / %.1f%% theoretical, %d registers/thread, %d B shared/block",
      k.kernel(), k.block_size(), k.grid_size(), k.duration_us(), k.sm_throughput_pct(),
      k.memory_throughput_pct(), k.achieved_occupancy_pct(), k.theoretical_occupancy_pct(),
      k.registers_per_thread(), k.shared_memory_per_block_bytes());
  if (k.launches() > 1) absl::StrAppend(&out, ", first of ", k.launches(), " profiled launches");
  absl::StrAppend(&out, "\n");
  std::vector<std::string> metrics;
  for (const kernelseek::v1::ProfileMetric& m : k.metrics()) {
    metrics.push_back(MetricText(m));
  }
  if (!metrics.empty()) absl::StrAppend(&out, "  ", absl::StrJoin(metrics, ", "), "\n");
  if (k.has_hot_spots()) absl::StrAppend(&out, HotSpotLines(k.hot_spots()));
  return out;
}

}  // namespace

std::string FormatProfileText(const kernelseek::v1::ProfileResult& profile,
                              const ProfileTextOptions& options) {
  std::string out = absl::StrCat("profile of ", options.subject, " on ",
                                 profile.scenario().empty() ? "(no scenario)" : profile.scenario());
  if (!profile.gpu().empty()) absl::StrAppend(&out, " on ", profile.gpu());
  if (!profile.ncu_version().empty())
    absl::StrAppend(&out, " (Nsight Compute ", profile.ncu_version(), ")");
  absl::StrAppend(&out, "\n");
  if (profile.has_compile() && !profile.compile().success()) {
    absl::StrAppend(&out, "the build failed, so nothing was profiled\n");
    return out;
  }
  if (profile.has_verdict()) absl::StrAppend(&out, VerdictLine(profile.verdict()));
  for (const kernelseek::v1::KernelProfile& k : profile.kernels())
    absl::StrAppend(&out, KernelLines(k));
  if (profile.kernels().empty()) absl::StrAppend(&out, "no candidate kernel was profiled\n");
  if (!profile.error().empty()) absl::StrAppend(&out, "profile error: ", profile.error(), "\n");
  if (options.show_command_line && !profile.command().empty()) {
    absl::StrAppend(&out, "ncu command: ", profile.command(), "\n");
  }
  return out;
}

}  // namespace kseek
