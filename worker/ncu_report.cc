#include "worker/ncu_report.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace kseek {
namespace {

using kernelseek::v1::HotSpot;
using kernelseek::v1::KernelHotSpots;
using kernelseek::v1::KernelProfile;
using kernelseek::v1::StallReasonShare;

constexpr absl::string_view kAllSamples = "Warp Stall Sampling (All Samples)";
constexpr absl::string_view kStallPrefix = "stall_";
constexpr absl::string_view kNotIssuedSuffix = "(Not Issued)";

constexpr absl::string_view kSpeedOfLight = "GPU Speed Of Light Throughput";
constexpr absl::string_view kOccupancy = "Occupancy";
constexpr absl::string_view kLaunchStats = "Launch Statistics";
constexpr absl::string_view kMemoryWorkload = "Memory Workload Analysis";

// Metrics kept beside the headline fields, in this order: the ones that say
// which unit or limit a kernel is bound by.
constexpr std::array<std::pair<absl::string_view, absl::string_view>, 13> kNotableMetrics = {{
    {kSpeedOfLight, "DRAM Throughput"},
    {kSpeedOfLight, "L1/TEX Cache Throughput"},
    {kSpeedOfLight, "L2 Cache Throughput"},
    {kMemoryWorkload, "Memory Throughput"},
    {kMemoryWorkload, "Mem Busy"},
    {kMemoryWorkload, "Max Bandwidth"},
    {kMemoryWorkload, "L1/TEX Hit Rate"},
    {kMemoryWorkload, "L2 Hit Rate"},
    {kOccupancy, "Block Limit Registers"},
    {kOccupancy, "Block Limit Shared Mem"},
    {kOccupancy, "Block Limit Warps"},
    {kOccupancy, "Achieved Active Warps Per SM"},
    {kLaunchStats, "Waves Per SM"},
}};

// ncu's own lines ("==PROF== ...", "==WARNING== ...") sit among the CSV
// records of both pages. If the text at `*pos` is one, moves `*pos` past it,
// keeps an "==ERROR==" line's message in `errors`, and returns true.
bool ConsumeToolLine(absl::string_view text, size_t* pos, std::vector<std::string>* errors) {
  absl::string_view rest = text.substr(*pos);
  if (!absl::StartsWith(rest, "==")) return false;
  size_t end = rest.find('\n');
  absl::string_view line = rest.substr(0, end);
  *pos = end == absl::string_view::npos ? text.size() : *pos + end + 1;
  if (absl::ConsumePrefix(&line, "==ERROR==")) errors->emplace_back(absl::StripAsciiWhitespace(line));
  return true;
}

// Reads one CSV record from `text` at `*pos` ("" quoted, "" as an escaped
// quote, newlines allowed inside quotes) and moves `*pos` past its newline.
std::vector<std::string> ReadRecord(absl::string_view text, size_t* pos) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  size_t i = *pos;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        fields.back().push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back().push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c == '\n') {
      break;
    } else if (c != '\r') {
      fields.back().push_back(c);
    }
  }
  *pos = i < text.size() ? i + 1 : text.size();
  return fields;
}

// ncu prints large numbers with thousands separators ("1,234,567").
bool ParseNumber(absl::string_view value, double* out) {
  std::string plain = absl::StrReplaceAll(absl::StripAsciiWhitespace(value), {{",", ""}});
  return absl::SimpleAtod(plain, out);
}

// A count as ncu prints it: thousands separators, "-" or "" for none. Not a
// count (negative, NaN, or past kMaxCount, which no profile comes near) reads
// as 0, so that sums over a page of any length cannot overflow: the page is
// at most a few million lines (the worker caps ncu's output).
constexpr double kMaxCount = 1e12;
int64_t ParseCount(absl::string_view value) {
  double number = 0;
  if (!ParseNumber(value, &number) || !(number >= 0 && number <= kMaxCount)) return 0;
  return static_cast<int64_t>(std::llround(number));
}

double SharePct(int64_t part, int64_t total) { return total > 0 ? 100.0 * part / total : 0; }

// One kernel's block of the source page while it is being read.
struct SourceBlock {
  std::string kernel;
  size_t address = 0, source = 0, samples = 0;  // column indices, once the header is seen
  std::vector<std::pair<std::string, size_t>> reasons;  // name without "stall_" -> column
  bool has_header = false;
  struct Line {
    int32_t index;
    std::string address;
    std::string instruction;
    int64_t samples;
    std::vector<int64_t> reason_samples;  // parallel to `reasons`
  };
  std::vector<Line> lines;
};

// The `limit` largest (name, samples) pairs with samples > 0, largest first;
// ties keep their column order.
std::vector<std::pair<std::string, int64_t>> TopReasons(const std::vector<std::pair<std::string, size_t>>& reasons,
                                                        const std::vector<int64_t>& samples, int limit) {
  std::vector<std::pair<std::string, int64_t>> top;
  for (size_t i = 0; i < reasons.size(); ++i) {
    if (samples[i] > 0) top.emplace_back(reasons[i].first, samples[i]);
  }
  std::stable_sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (top.size() > static_cast<size_t>(limit)) top.resize(limit);
  return top;
}

KernelHotSpots ToHotSpots(const SourceBlock& block, int max_hot_spots) {
  KernelHotSpots k;
  k.set_kernel(block.kernel);
  int64_t total = 0;
  std::vector<int64_t> reason_totals(block.reasons.size());
  for (const SourceBlock::Line& line : block.lines) {
    total += line.samples;
    for (size_t i = 0; i < reason_totals.size(); ++i) reason_totals[i] += line.reason_samples[i];
  }
  k.set_total_samples(total);
  for (const auto& [name, samples] : TopReasons(block.reasons, reason_totals, kKernelStallReasons)) {
    StallReasonShare* r = k.add_stall_reasons();
    r->set_reason(name);
    r->set_samples(samples);
    r->set_share_pct(SharePct(samples, total));
  }
  std::vector<const SourceBlock::Line*> hottest;
  for (const SourceBlock::Line& line : block.lines) {
    if (line.samples > 0) hottest.push_back(&line);
  }
  std::stable_sort(hottest.begin(), hottest.end(),
                   [](const SourceBlock::Line* a, const SourceBlock::Line* b) { return a->samples > b->samples; });
  if (hottest.size() > static_cast<size_t>(std::max(0, max_hot_spots))) hottest.resize(std::max(0, max_hot_spots));
  for (const SourceBlock::Line* line : hottest) {
    HotSpot* h = k.add_hot_spots();
    h->set_sass_index(line->index);
    h->set_address(line->address);
    h->set_instruction(line->instruction);
    h->set_samples(line->samples);
    h->set_share_pct(SharePct(line->samples, total));
    for (const auto& [name, samples] : TopReasons(block.reasons, line->reason_samples, kHotSpotStallReasons)) {
      StallReasonShare* r = h->add_reasons();
      r->set_reason(name);
      r->set_samples(samples);
      r->set_share_pct(SharePct(samples, total));
    }
  }
  return k;
}

// Seconds-based units scaled to microseconds; 0 for an unknown unit.
double MicrosecondsPer(absl::string_view unit) {
  if (unit == "nsecond" || unit == "ns") return 1e-3;
  if (unit == "usecond" || unit == "us") return 1;
  if (unit == "msecond" || unit == "ms") return 1e3;
  if (unit == "second" || unit == "s") return 1e6;
  return 0;
}

// Byte units to bytes. ncu's scaled units are decimal (its "Kbyte" is 1000
// bytes); the command asks for base units, so these are a fallback. The
// per-block shared memory metrics carry a "/block" qualifier ("byte/block").
double BytesPer(absl::string_view unit) {
  absl::ConsumeSuffix(&unit, "/block");
  if (unit == "byte" || unit == "B") return 1;
  if (unit == "Kbyte" || unit == "KB") return 1e3;
  if (unit == "Mbyte" || unit == "MB") return 1e6;
  return 0;
}

struct Launch {
  std::string kernel;
  std::string block_size;
  std::string grid_size;
  // (section, name) -> (unit, value as printed)
  std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>> metrics;
};

KernelProfile ToProfile(const Launch& launch) {
  KernelProfile p;
  p.set_kernel(launch.kernel);
  p.set_block_size(launch.block_size);
  p.set_grid_size(launch.grid_size);
  auto number = [&](absl::string_view section, absl::string_view name, double* value, std::string* unit) {
    auto it = launch.metrics.find({std::string(section), std::string(name)});
    if (it == launch.metrics.end()) return false;
    if (unit != nullptr) *unit = it->second.first;
    return ParseNumber(it->second.second, value);
  };
  double value = 0;
  std::string unit;
  if (number(kSpeedOfLight, "Duration", &value, &unit)) p.set_duration_us(value * MicrosecondsPer(unit));
  if (number(kSpeedOfLight, "Compute (SM) Throughput", &value, nullptr)) p.set_sm_throughput_pct(value);
  if (number(kSpeedOfLight, "Memory Throughput", &value, nullptr)) p.set_memory_throughput_pct(value);
  if (number(kOccupancy, "Achieved Occupancy", &value, nullptr)) p.set_achieved_occupancy_pct(value);
  if (number(kOccupancy, "Theoretical Occupancy", &value, nullptr)) p.set_theoretical_occupancy_pct(value);
  // Converted only when in range: a cast of any other double is undefined.
  if (number(kLaunchStats, "Registers Per Thread", &value, nullptr) && value >= 0 && value <= 65536) {
    p.set_registers_per_thread(static_cast<int32_t>(value));
  }
  double shared = 0;
  for (absl::string_view name : {"Static Shared Memory Per Block", "Dynamic Shared Memory Per Block"}) {
    if (number(kLaunchStats, name, &value, &unit)) shared += value * BytesPer(unit);
  }
  if (shared >= 0 && shared <= kMaxCount) p.set_shared_memory_per_block_bytes(static_cast<int64_t>(shared));
  for (const auto& [section, name] : kNotableMetrics) {
    auto it = launch.metrics.find({std::string(section), std::string(name)});
    if (it == launch.metrics.end()) continue;
    kernelseek::v1::ProfileMetric* m = p.add_metrics();
    m->set_section(std::string(section));
    m->set_name(std::string(name));
    m->set_unit(it->second.first);
    m->set_value(absl::StrReplaceAll(it->second.second, {{",", ""}}));
  }
  return p;
}

}  // namespace

std::string NcuKernelFilter(const std::vector<std::string>& mangled_functions) {
  std::vector<std::string> escaped;
  for (const std::string& name : mangled_functions) {
    std::string e;
    for (char c : name) {
      if (!absl::ascii_isalnum(c) && c != '_') e.push_back('\\');
      e.push_back(c);
    }
    escaped.push_back(std::move(e));
  }
  return absl::StrCat("regex:^(", absl::StrJoin(escaped, "|"), ")$");
}

std::vector<std::string> NcuProfileArgv(const std::string& ncu_path, const std::vector<std::string>& functions,
                                        const std::string& log_path, const std::vector<std::string>& runner_argv) {
  const int launches =
      std::min(kNcuMaxLaunches, kNcuLaunchesPerKernel * std::max(1, static_cast<int>(functions.size())));
  std::vector<std::string> argv = {ncu_path,
                                   "--clock-control", "none",
                                   "--csv",
                                   "--page", "details",
                                   "--print-units", "base",
                                   "--section", "SpeedOfLight",
                                   "--section", "Occupancy",
                                   "--section", "LaunchStats",
                                   "--section", "MemoryWorkloadAnalysis",
                                   "--kernel-name-base", "mangled",
                                   "--kernel-name", NcuKernelFilter(functions),
                                   "--print-kernel-base", "function",
                                   "--launch-count", absl::StrCat(launches),
                                   "--log-file", log_path};
  argv.insert(argv.end(), runner_argv.begin(), runner_argv.end());
  return argv;
}

absl::StatusOr<NcuReport> ParseNcuCsv(absl::string_view log_text) {
  NcuReport report;
  std::map<std::string, size_t> column;
  size_t fields_needed = 0;  // one past the last column read, once the header is seen
  std::vector<std::string> launch_order;
  std::map<std::string, Launch> launches;  // by ncu's launch ID
  size_t pos = 0;
  while (pos < log_text.size()) {
    if (ConsumeToolLine(log_text, &pos, &report.errors)) continue;
    std::vector<std::string> fields = ReadRecord(log_text, &pos);
    if (column.empty()) {
      if (fields.front() != "ID") continue;  // tool chatter before the header
      for (size_t i = 0; i < fields.size(); ++i) column[fields[i]] = i;
      for (const char* needed : {"ID", "Kernel Name", "Block Size", "Grid Size", "Section Name", "Metric Name",
                                 "Metric Unit", "Metric Value"}) {
        auto it = column.find(needed);
        if (it == column.end()) {
          return absl::InvalidArgumentError(absl::StrCat("ncu's CSV header has no \"", needed, "\" column"));
        }
        fields_needed = std::max(fields_needed, it->second + 1);
      }
      continue;
    }
    auto field = [&](const char* name) -> const std::string& {
      static const std::string kEmpty;
      size_t i = column[name];
      return i < fields.size() ? fields[i] : kEmpty;
    };
    // Only a rule's row fills the columns after "Metric Value" (Nsight Compute
    // 2025.3 ends a metric's row right after its value, with a trailing
    // comma), so a row is whole when it reaches the columns read here.
    if (fields.size() < fields_needed || field("ID").empty()) continue;  // a blank or cut line
    auto [it, inserted] = launches.try_emplace(field("ID"));
    Launch& launch = it->second;
    if (inserted) {
      launch_order.push_back(field("ID"));
      launch.kernel = field("Kernel Name");
      launch.block_size = field("Block Size");
      launch.grid_size = field("Grid Size");
    }
    if (field("Metric Name").empty()) continue;  // a rule's row, with no metric
    launch.metrics.try_emplace({field("Section Name"), field("Metric Name")}, field("Metric Unit"),
                               field("Metric Value"));
  }
  if (column.empty() && report.errors.empty()) {
    return absl::InvalidArgumentError("ncu's output has no CSV header (\"ID\",...) and no error line");
  }
  std::map<std::string, size_t> by_kernel;  // kernel name -> index in report.kernels
  for (const std::string& id : launch_order) {
    const Launch& launch = launches[id];
    auto [it, inserted] = by_kernel.try_emplace(launch.kernel, report.kernels.size());
    if (inserted) report.kernels.push_back(ToProfile(launch));
    KernelProfile& profile = report.kernels[it->second];
    profile.set_launches(profile.launches() + 1);
  }
  return report;
}

std::vector<std::string> NcuSourceArgv(const std::string& ncu_path, const std::vector<std::string>& functions,
                                       const std::string& log_path, const std::vector<std::string>& runner_argv) {
  std::vector<std::string> argv = {ncu_path,
                                   "--clock-control", "none",
                                   "--section", "SourceCounters",
                                   "--section", "WarpStateStats",
                                   "--page", "source",
                                   "--print-source", "sass",
                                   "--csv",
                                   "--kernel-name-base", "mangled",
                                   "--kernel-name", NcuKernelFilter(functions),
                                   "--launch-count", "1",
                                   "--log-file", log_path};
  argv.insert(argv.end(), runner_argv.begin(), runner_argv.end());
  return argv;
}

absl::StatusOr<NcuSourceReport> ParseNcuSourceCsv(absl::string_view log_text, int max_hot_spots) {
  NcuSourceReport report;
  std::vector<SourceBlock> blocks;
  size_t pos = 0;
  while (pos < log_text.size()) {
    if (ConsumeToolLine(log_text, &pos, &report.errors)) continue;
    std::vector<std::string> fields = ReadRecord(log_text, &pos);
    if (fields.front() == "Kernel Name") {
      blocks.emplace_back().kernel = fields.size() > 1 ? fields[1] : "";
      continue;
    }
    if (blocks.empty()) continue;  // tool chatter before the first kernel
    SourceBlock& block = blocks.back();
    if (!block.has_header) {
      if (fields.front() != "Address") continue;
      std::map<std::string, size_t> column;
      for (size_t i = 0; i < fields.size(); ++i) {
        column.try_emplace(fields[i], i);
        absl::string_view name = fields[i];
        if (absl::ConsumePrefix(&name, kStallPrefix) && !absl::EndsWith(name, kNotIssuedSuffix)) {
          block.reasons.emplace_back(std::string(name), i);
        }
      }
      for (absl::string_view needed : {absl::string_view("Address"), absl::string_view("Source"), kAllSamples}) {
        if (!column.contains(std::string(needed))) {
          return absl::InvalidArgumentError(absl::StrCat("the source page's header for kernel ", block.kernel,
                                                         " has no \"", needed, "\" column"));
        }
      }
      block.address = column["Address"];
      block.source = column["Source"];
      block.samples = column[std::string(kAllSamples)];
      block.has_header = true;
      continue;
    }
    const size_t needed = std::max({block.address, block.source, block.samples}) + 1;
    if (fields.size() < needed || fields[block.address].empty()) continue;  // a blank or cut line
    SourceBlock::Line& line = block.lines.emplace_back();
    line.index = static_cast<int32_t>(block.lines.size() - 1);
    line.address = std::string(absl::StripAsciiWhitespace(fields[block.address]));
    // ncu aligns operands with runs of spaces; one is enough to read them.
    line.instruction = absl::StrJoin(
        absl::StrSplit(fields[block.source], absl::ByAnyChar(" \t"), absl::SkipEmpty()), " ");
    line.samples = ParseCount(fields[block.samples]);
    for (const auto& [name, i] : block.reasons) {
      line.reason_samples.push_back(i < fields.size() ? ParseCount(fields[i]) : 0);
    }
  }
  if (blocks.empty() && report.errors.empty()) {
    return absl::InvalidArgumentError("ncu's source page has no \"Kernel Name\" line and no error line");
  }
  for (const SourceBlock& block : blocks) report.kernels.push_back(ToHotSpots(block, max_hot_spots));
  return report;
}

std::string FunctionBaseName(absl::string_view demangled) {
  absl::string_view name = absl::StripAsciiWhitespace(demangled);
  // Drops a trailing bracketed group, e.g. "(float *)" or "<(int)1>", that
  // opens with `open` and closes at the end of `name`.
  auto drop_trailing = [&name](char open, char close) {
    if (name.empty() || name.back() != close) return;
    int depth = 0;
    for (size_t i = name.size(); i-- > 0;) {
      if (name[i] == close) ++depth;
      if (name[i] == open && --depth == 0) {
        name = absl::StripTrailingAsciiWhitespace(name.substr(0, i));
        return;
      }
    }
  };
  drop_trailing('(', ')');
  drop_trailing('<', '>');
  size_t scope = name.rfind("::");
  if (scope != absl::string_view::npos) name.remove_prefix(scope + 2);
  size_t space = name.rfind(' ');
  if (space != absl::string_view::npos) name.remove_prefix(space + 1);
  return name.empty() ? std::string(demangled) : std::string(name);
}

}  // namespace kseek
