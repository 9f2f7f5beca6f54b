#include "worker/baseline_timer.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/subprocess.h"
#include "worker/wheel_site.h"

namespace kseek {
namespace {

using nlohmann::json;

// File-name-safe: letters, digits, '.', '-', others become '_'.
std::string Safe(const std::string& text) {
  std::string out;
  for (char c : text) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-') ? c : '_';
  return out;
}

json ReadJson(const std::string& path) {
  std::ifstream in(path);
  if (!in) return json();
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str(), nullptr, false);
}

// Written to a temp file and renamed, so a crash never leaves half a cache.
void WriteJsonAtomically(const std::string& path, const json& doc) {
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
  std::string temp = path + ".tmp";
  {
    std::ofstream out(temp);
    out << doc.dump(1);
    if (!out) return;
  }
  std::filesystem::rename(temp, path, error);
}

}  // namespace

std::string BaselineTimer::CachePath(const std::string& problem, const std::string& backend, const std::string& gpu,
                                     const std::string& driver) const {
  return absl::StrCat(config_.cache_dir, "/", Safe(gpu), "_driver-", Safe(driver), "_", Safe(problem), "_",
                      Safe(backend), ".json");
}

BaselineTimings BaselineTimer::Time(const Problem& problem,
                                    const std::vector<const kernelseek::v1::ScenarioSpec*>& scenarios,
                                    const std::string& backend, double max_seconds, const std::string& gpu,
                                    const std::string& driver, bool reuse_cached) const {
  BaselineTimings timings;
  const std::string& problem_name = problem.manifest().name();
  const std::string cache_path =
      config_.cache_dir.empty() ? "" : CachePath(problem_name, backend, gpu, driver);
  json cache = cache_path.empty() ? json() : ReadJson(cache_path);
  if (!cache.is_object()) cache = {{"gpu", gpu}, {"driver", driver}, {"baseline", backend}, {"results", json::object()}};

  json request = {{"backend", backend}, {"max_seconds", max_seconds}, {"scenarios", json::array()}};
  size_t cached = 0;
  for (const auto* s : scenarios) {
    const json* hit = nullptr;
    if (reuse_cached && cache["results"].contains(s->id())) hit = &cache["results"][s->id()];
    if (hit != nullptr) {
      BaselineTiming& t = timings.by_id[s->id()];
      t.ok = true;
      t.cached = true;
      t.median_ms = hit->value("median_ms", 0.0);
      ++cached;
      continue;
    }
    json item = {{"id", s->id()}, {"dtype", s->dtype() == kernelseek::v1::DTYPE_BF16 ? "bf16" : "fp16"}};
    if (auto bindings = problem.BindingsFor(*s); bindings.ok()) {
      for (const auto& [name, value] : *bindings) item[name] = value;
    }
    request["scenarios"].push_back(item);
  }
  if (request["scenarios"].empty()) {
    timings.baseline = absl::StrCat(cache.value("version_line", backend), ", cached");
    return timings;
  }

  auto fail_all = [&](const std::string& why) {
    for (const json& item : request["scenarios"]) timings.by_id[item["id"].get<std::string>()].error = why;
  };
  // The program the manifest names for this baseline.
  const kernelseek::v1::BaselineSpec* declared = problem.FindBaseline(backend);
  if (declared == nullptr) {
    fail_all(absl::StrCat("problem ", problem_name, " declares no baseline \"", backend, "\""));
    return timings;
  }
  const std::string script = absl::StrCat(config_.baselines_dir, "/", declared->program());
  if (!std::filesystem::exists(script)) {
    fail_all(absl::StrCat("no baseline program for ", problem_name, " (", script, ")"));
    return timings;
  }
  const std::string request_path = absl::StrCat(config_.work_dir, "/baseline_request.json");
  {
    std::ofstream out(request_path);
    out << request.dump();
    if (!out) {
      fail_all(absl::StrCat("cannot write ", request_path));
      return timings;
    }
  }
  SubprocessSpec run;
  run.argv = {config_.python, script, "--request", request_path};
  if (!config_.python_path.empty()) run.extra_env = {PythonPathEnv(config_.python_path)};
  run.time_limit = config_.startup_allowance +
                   (absl::Seconds(max_seconds) + absl::Seconds(30)) * static_cast<int64_t>(request["scenarios"].size());
  run.max_output_bytes = 16 << 20;
  absl::StatusOr<SubprocessResult> ran = RunSubprocess(run);
  json answer = ran.ok() ? json::parse(ran->stdout_text, nullptr, false) : json();
  if (!ran.ok()) {
    fail_all(std::string(ran.status().message()));
    return timings;
  }
  if (!ran->Succeeded() || !answer.is_object()) {
    fail_all(absl::StrCat("baseline program ", ran->Describe(), ": ", OutputTail(ran->stderr_text, 500)));
    return timings;
  }
  const std::string version_line = absl::StrCat(answer.value("baseline", backend), " (", answer.value("version", ""), ")");
  timings.baseline = cached == 0 ? version_line
                                 : absl::StrCat(version_line, ", ", cached, " of ", scenarios.size(), " cached");
  // A different version invalidates what the cache held.
  if (cache.value("version_line", "") != version_line) cache["results"] = json::object();
  cache["version_line"] = version_line;
  const std::string now = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
  for (const json& r : answer.value("results", json::array())) {
    const std::string id = r.value("id", "");
    BaselineTiming& t = timings.by_id[id];
    t.ok = r.value("ok", false);
    t.error = t.ok ? "" : r.value("error", "baseline failed");
    t.median_ms = r.value("median_ms", 0.0);
    if (t.ok) cache["results"][id] = {{"median_ms", t.median_ms}, {"min_ms", r.value("min_ms", 0.0)}, {"measured", now}};
  }
  for (const json& item : request["scenarios"]) {
    BaselineTiming& t = timings.by_id[item["id"].get<std::string>()];
    if (!t.ok && t.error.empty()) t.error = "no baseline result";
  }
  if (!cache_path.empty()) WriteJsonAtomically(cache_path, cache);
  return timings;
}

}  // namespace kseek
