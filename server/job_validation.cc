#include "server/job_validation.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/baseline_list.h"
#include "common/profile_text.h"
#include "common/properties.h"
#include "common/run_limits.h"
#include "problem/arch.h"
#include "problem/compile_policy.h"

namespace kseek {

namespace {

kernelseek::v1::Property MakeProperty(std::string key, std::string value) {
  kernelseek::v1::Property p;
  p.set_key(std::move(key));
  p.set_value(std::move(value));
  return p;
}

absl::Status ValidateRunOptions(kernelseek::v1::JobSpec* spec, const ProblemCatalog& problems) {
  const bool bench = spec->kind() == kernelseek::v1::JOB_KIND_BENCH;
  kernelseek::v1::RunOptions* run = spec->mutable_run();
  absl::StatusOr<const Problem*> problem = problems.Find(run->problem());
  if (!problem.ok()) return absl::InvalidArgumentError(problem.status().message());
  // What the worker checks its own files against: the scenario ids below are
  // checked against these files, and mean these shapes.
  *run->mutable_problem_digest() = (*problem)->digest();
  if (!bench && run->rounds() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("rounds (", run->rounds(), ") are for bench jobs only, not a ",
                     spec->kind() == kernelseek::v1::JOB_KIND_PROFILE ? "profile" : "verify", " job"));
  }
  if (!bench && run->shards() != 0) {
    return absl::InvalidArgumentError(absl::StrCat("shards (", run->shards(), ") are for bench jobs only, not a ",
                                                   spec->kind() == kernelseek::v1::JOB_KIND_PROFILE ? "profile" : "verify",
                                                   " job"));
  }
  if (run->shards() < kAutoBenchShards || run->shards() > kMaxBenchShards) {
    return absl::InvalidArgumentError(absl::StrCat("shards ", run->shards(), " is outside [1, ", kMaxBenchShards,
                                                   "] (or auto)"));
  }
  if (spec->kind() == kernelseek::v1::JOB_KIND_PROFILE) {
    // ncu replays every profiled launch many times, so a profile is of one
    // scenario the caller chose by id, never of a set.
    absl::StatusOr<std::vector<const kernelseek::v1::ScenarioSpec*>> selected =
        (*problem)->Select(run->scenarios());
    if (run->scenarios().empty() || !selected.ok() || selected->size() != 1 ||
        selected->front()->id() != run->scenarios()) {
      return absl::InvalidArgumentError(absl::StrCat("a profile job needs exactly one scenario id of problem \"",
                                                     run->problem(), "\", not \"", run->scenarios(), "\""));
    }
    if (!run->baseline().empty()) return absl::InvalidArgumentError("a profile job takes no baseline");
    if (run->hotspots() < 0 || run->hotspots() > kMaxProfileHotSpots) {
      return absl::InvalidArgumentError(
          absl::StrCat("hotspots ", run->hotspots(), " is outside [0, ", kMaxProfileHotSpots, "]"));
    }
    return absl::OkStatus();
  }
  if (run->hotspots() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("hotspots (", run->hotspots(), ") is for profile jobs only, not a ",
                     bench ? "bench" : "verify", " job"));
  }
  if (run->scenarios().empty()) run->set_scenarios((*problem)->DefaultScenarios(bench));
  absl::StatusOr<std::vector<const kernelseek::v1::ScenarioSpec*>> selected = (*problem)->Select(run->scenarios());
  if (!selected.ok()) return absl::InvalidArgumentError(selected.status().message());
  if (selected->empty()) {
    return absl::InvalidArgumentError(absl::StrCat("scenario selection \"", run->scenarios(), "\" selects nothing"));
  }
  if (!bench) {
    if (!run->baseline().empty()) return absl::InvalidArgumentError("a verify job takes no baseline");
    return absl::OkStatus();
  }
  if (run->rounds() == 0) run->set_rounds(1);
  if (run->rounds() < 1 || run->rounds() > kMaxBenchRounds) {
    return absl::InvalidArgumentError(
        absl::StrCat("rounds ", run->rounds(), " is outside [1, ", kMaxBenchRounds, "]"));
  }
  if (run->baseline().empty()) run->set_baseline((*problem)->DefaultBaseline());
  // The names this problem's manifest declares, each with the program that times it.
  if (absl::StatusOr<std::vector<std::string>> baselines =
          ParseBaselineList(run->baseline(), (*problem)->BaselineNames());
      !baselines.ok()) {
    return baselines.status();
  }
  if (run->max_seconds_per_scenario() == 0) run->set_max_seconds_per_scenario(kDefaultSecondsPerScenario);
  if (!(run->max_seconds_per_scenario() > 0 && run->max_seconds_per_scenario() <= kMaxSecondsPerScenario)) {
    return absl::InvalidArgumentError(absl::StrCat("max_seconds_per_scenario ", run->max_seconds_per_scenario(),
                                                   " is outside (0, ", kMaxSecondsPerScenario, "]"));
  }
  return absl::OkStatus();
}

}  // namespace

std::optional<size_t> FirstInvalidUtf8(std::string_view text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = bytes[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) low = 0xA0;   // no overlong forms
      if (c == 0xED) high = 0x9F;  // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) low = 0x90;   // no overlong forms
      if (c == 0xF4) high = 0x8F;  // nothing past U+10FFFF
    } else {
      return i;
    }
    if (i + length > n) return i;
    if (bytes[i + 1] < low || bytes[i + 1] > high) return i;
    for (size_t k = 2; k < length; ++k) {
      if (bytes[i + k] < 0x80 || bytes[i + k] > 0xBF) return i;
    }
    i += length;
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<kernelseek::v1::Property>> ValidateJobSpec(kernelseek::v1::JobSpec* spec_ptr,
                                                                     const ProblemCatalog& problems) {
  const kernelseek::v1::JobSpec& spec = *spec_ptr;
  const bool profile = spec.kind() == kernelseek::v1::JOB_KIND_PROFILE;
  const bool runs =
      spec.kind() == kernelseek::v1::JOB_KIND_VERIFY || spec.kind() == kernelseek::v1::JOB_KIND_BENCH || profile;
  if (spec.kind() != kernelseek::v1::JOB_KIND_COMPILE && !runs) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported job kind ", kernelseek::v1::JobKind_Name(spec.kind())));
  }
  if (!runs && spec.has_run()) return absl::InvalidArgumentError("a compile job takes no run options");
  if (spec.source().empty()) return absl::InvalidArgumentError("the kernel source is empty");
  if (spec.source().size() > kMaxSourceBytes) {
    return absl::InvalidArgumentError(absl::StrCat("the kernel source is ", spec.source().size(),
                                                   " bytes; the limit is ", kMaxSourceBytes));
  }
  if (std::optional<size_t> bad = FirstInvalidUtf8(spec.source()); bad.has_value()) {
    const size_t line = 1 + static_cast<size_t>(std::count(spec.source().begin(), spec.source().begin() + *bad, '\n'));
    return absl::InvalidArgumentError(absl::StrFormat(
        "the kernel source is not UTF-8: byte 0x%02X at byte offset %d (line %d) does not start a valid character",
        static_cast<unsigned char>(spec.source()[*bad]), *bad, line));
  }
  const std::string& name = spec.source_name();
  if (name.empty() || name.size() > 128 || name.find('/') != std::string::npos || name[0] == '.') {
    return absl::InvalidArgumentError(
        absl::StrCat("source_name \"", name, "\" must be a plain file name (no '/', not hidden, <= 128 bytes)"));
  }
  const KnownArch* arch = FindKnownArch(spec.compile().arch());
  if (arch == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown arch \"", spec.compile().arch(), "\"; known: ", KnownArchNames()));
  }
  // The same checks the worker makes, against every known arch, so that a
  // bad option is refused here rather than failing on a worker later.
  if (absl::Status s = ValidateCompileOptions(spec.compile()); !s.ok()) return s;

  if (!runs) return std::vector<kernelseek::v1::Property>{MakeProperty("compile", std::string(arch->name))};
  if (absl::Status s = ValidateRunOptions(spec_ptr, problems); !s.ok()) return s;
  // Sorted by key: a GPU of the arch's compute capability that can also build
  // for it, for a profile any version of Nsight Compute, and the problem's
  // files as the server has them.
  std::vector<kernelseek::v1::Property> requirements = {MakeProperty("arch", std::string(arch->base)),
                                                        MakeProperty("compile", std::string(arch->name))};
  if (profile) requirements.push_back(MakeProperty("ncu", std::string(kAnyValue)));
  requirements.push_back(
      MakeProperty("problems", ProblemCapability(spec_ptr->run().problem(), spec_ptr->run().problem_digest())));
  return requirements;
}

}  // namespace kseek
