#include "server/agent_tools.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/profile_text.h"
#include "server/job_validation.h"
#include "common/untrusted_json.h"

namespace kseek {
namespace {

using kernelseek::v1::CompileResult;
using kernelseek::v1::Job;
using kernelseek::v1::RunResult;
using nlohmann::json;

ToolOutcome Error(std::string text) { return ToolOutcome{std::move(text), true, ToolSignal::kNone, 0}; }

// The error outcome of a tool whose job did not succeed (it could not be
// queued or run, or it failed on the worker); nullopt when it succeeded. A
// cancelled job is no outcome: the caller returns its status.
std::optional<ToolOutcome> JobFailure(absl::string_view tool, const absl::StatusOr<Job>& job) {
  if (!job.ok()) return Error(absl::StrCat(tool, " could not run: ", job.status().message()));
  if (job->state() != kernelseek::v1::JOB_STATE_SUCCEEDED) {
    return Error(absl::StrCat(tool, " job ", job->id(), " failed on the worker: ", job->failure()));
  }
  return std::nullopt;
}

// Cuts `text` to `limit` bytes with a note saying how much was left out.
std::string Cut(std::string text, size_t limit) {
  if (text.size() <= limit) return text;
  const size_t total = text.size();
  text.resize(limit);
  absl::StrAppend(&text, "\n[cut: ", total - limit, " more bytes of ", total, " not shown]");
  return text;
}

// The string field `name` of `args`, or an error text for the model.
std::string StringArg(const json& args, const std::string& name, std::string* out) {
  auto it = args.find(name);
  if (it == args.end()) return absl::StrCat("missing required argument \"", name, "\"");
  if (!it->is_string()) return absl::StrCat("argument \"", name, "\" must be a string");
  *out = it->get<std::string>();
  return "";
}

std::string Diagnostics(const CompileResult& compile, int limit) {
  std::string out;
  int shown = 0;
  for (const kernelseek::v1::Diagnostic& d : compile.diagnostics()) {
    if (shown++ == limit) {
      absl::StrAppend(&out, "  [", compile.diagnostics_size() - limit, " more diagnostics not shown]\n");
      break;
    }
    const char* severity = d.severity() == kernelseek::v1::Diagnostic::SEVERITY_ERROR     ? "error"
                           : d.severity() == kernelseek::v1::Diagnostic::SEVERITY_WARNING ? "warning"
                                                                                           : "note";
    absl::StrAppend(&out, "  ", d.file(), d.line() > 0 ? absl::StrCat(":", d.line()) : "", ": ", severity, ": ",
                    d.message(), "\n");
  }
  return out;
}

std::string CompileSummary(const CompileResult& compile) {
  std::string out = compile.success() ? absl::StrFormat("compile OK (%.1f s)\n", compile.seconds())
                                      : std::string("compile FAILED\n");
  if (!compile.diagnostics().empty()) absl::StrAppend(&out, "diagnostics:\n", Diagnostics(compile, 30));
  if (!compile.success() && compile.diagnostics().empty() && !compile.log().empty()) {
    absl::StrAppend(&out, "log:\n", Cut(compile.log(), 4096), "\n");
  }
  for (const kernelseek::v1::KernelResources& r : compile.resources()) {
    absl::StrAppend(&out, "resources ", r.function(), " (", r.arch(), "): ", r.registers(), " registers, ",
                    r.spill_store_bytes(), " B spill stores, ", r.spill_load_bytes(), " B spill loads, ",
                    r.stack_frame_bytes(), " B stack, ", r.shared_bytes(), " B static shared, ", r.barriers(),
                    " barriers\n");
  }
  for (const kernelseek::v1::SassSummary& s : compile.sass()) {
    std::vector<kernelseek::v1::InstructionCount> classes(s.classes().begin(), s.classes().end());
    std::stable_sort(classes.begin(), classes.end(),
                     [](const auto& a, const auto& b) { return a.count() > b.count(); });
    std::vector<std::string> top;
    for (const auto& c : classes) {
      if (c.count() > 0 && top.size() < 8) top.push_back(absl::StrCat(c.name(), " ", c.count()));
    }
    absl::StrAppend(&out, "SASS ", s.function(), ": ", s.total(), " instructions; most frequent: ",
                    top.empty() ? "-" : absl::StrJoin(top, ", "), " (show_sass for all classes)\n");
  }
  return out;
}

// Per-scenario lines of a run. Hidden-seed scenarios are reported like any
// other: id, verdict and timings only, never their inputs.
std::string RunSummary(const RunResult& run, bool bench) {
  std::string out = absl::StrCat(run.passed(), "/", run.passed() + run.failed(), " scenarios passed");
  if (!run.gpu().empty()) absl::StrAppend(&out, " on ", run.gpu());
  absl::StrAppend(&out, "\n");
  if (!run.runner_error().empty()) absl::StrAppend(&out, "runner error: ", run.runner_error(), "\n");
  int failures = 0;
  for (const kernelseek::v1::ScenarioResult& s : run.scenarios()) {
    if (!s.passed()) {
      if (++failures <= 20) absl::StrAppend(&out, "FAIL ", s.id(), ": ", s.reason(), "\n");
      continue;
    }
    if (!bench) continue;
    if (s.baseline_median_ms() > 0) {
      absl::StrAppend(&out, absl::StrFormat("%s: %.4f ms vs baseline %.4f ms, speedup %.3fx, %.1f TFLOP/s\n", s.id(),
                                            s.median_ms(), s.baseline_median_ms(), s.speedup(), s.tflops()));
    } else {
      absl::StrAppend(&out, absl::StrFormat("%s: %.4f ms, %.1f TFLOP/s (baseline: %s)\n", s.id(), s.median_ms(),
                                            s.tflops(), s.baseline_error().empty() ? "none" : s.baseline_error()));
    }
  }
  if (failures > 20) absl::StrAppend(&out, "[", failures - 20, " more failures not shown]\n");
  return out;
}

json ToolSchema(std::vector<std::pair<std::string, std::string>> string_params, std::vector<std::string> required) {
  json properties = json::object();
  for (auto& [name, description] : string_params) {
    properties[name] = {{"type", "string"}, {"description", description}};
  }
  return {{"type", "object"}, {"properties", properties}, {"required", required}};
}

}  // namespace

AgentTools::AgentTools(SessionStore* store, JobRunner* jobs, int64_t session_id, std::string user, std::string team,
                       kernelseek::v1::SessionSpec spec, EventAppender append_event)
    : store_(store),
      jobs_(jobs),
      session_id_(session_id),
      user_(std::move(user)),
      team_(std::move(team)),
      spec_(std::move(spec)),
      append_event_(std::move(append_event)) {}

absl::Status AgentTools::Load() {
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> files = store_->ListSessionFiles(session_id_);
  if (!files.ok()) return files.status();
  files_.clear();
  for (auto& [name, content] : *files) files_[name] = std::move(content);
  absl::StatusOr<std::vector<kernelseek::v1::KernelVersion>> versions =
      store_->ListKernelVersions(session_id_, /*with_source=*/true);
  if (!versions.ok()) return versions.status();
  if (versions->empty()) {
    return absl::DataLossError(absl::StrCat("session ", session_id_, " has no kernel version"));
  }
  best_version_.clear();
  best_speedup_ = 0;
  for (const kernelseek::v1::KernelVersion& v : *versions) {
    if (v.counted() && v.geomean_speedup() > best_speedup_) {
      best_speedup_ = v.geomean_speedup();
      best_version_ = v.id();
    }
  }
  current_.record = versions->back();
  current_.source = current_.record.source();
  current_.record.clear_source();
  return absl::OkStatus();
}

std::vector<llm::ToolDefinition> AgentTools::Definitions() {
  std::vector<llm::ToolDefinition> tools;
  auto add = [&](std::string name, std::string description, json schema) {
    tools.push_back({std::move(name), std::move(description), schema.dump()});
  };
  add("read_file", "Read a file of the session workspace. Long files are shown in parts: pass start_line.",
      {{"type", "object"},
       {"properties",
        {{"path", {{"type", "string"}, {"description", "file name in the workspace"}}},
         {"start_line", {{"type", "integer"}, {"description", "first line to show, 1-based (default 1)"}}}}},
       {"required", {"path"}}});
  add("write_file", "Create or replace a whole file of the workspace.",
      ToolSchema({{"path", "file name in the workspace"}, {"content", "the complete new text"}}, {"path", "content"}));
  add("edit_file",
      "Replace one exact occurrence of old_text by new_text in a workspace file. old_text must occur exactly once.",
      ToolSchema({{"path", "file name in the workspace"},
                  {"old_text", "text to replace, exactly as in the file"},
                  {"new_text", "replacement text"}},
                 {"path", "old_text", "new_text"}));
  add("list_files", "List the workspace files and their sizes.", ToolSchema({}, {}));
  add("compile",
      "Compile the kernel file on a worker: diagnostics, ptxas resource report (registers, spills, shared memory) "
      "and a summary of the SASS instruction classes.",
      ToolSchema({}, {}));
  add("verify", "Check the current kernel on a GPU against the reference on every verification scenario.",
      ToolSchema({}, {}));
  add("bench",
      "Time the current kernel on a GPU against the session's baseline on the benchmark scenarios. The version must "
      "have passed verify first.",
      ToolSchema({}, {}));
  add("show_sass", "Show the SASS instruction class counts of one kernel function (compiles if needed).",
      ToolSchema({{"function", "function name or part of it"}}, {"function"}));
  json profile_schema = ToolSchema({{"scenario", "one scenario id"}}, {"scenario"});
  profile_schema["properties"]["hotspots"] = {
      {"type", "integer"},
      {"description", absl::StrCat("how many SASS instructions with the most warp-stall samples to show per "
                                   "kernel, with their stall reasons (default ",
                                   kDefaultProfileHotSpots, ", 0 to ", kMaxProfileHotSpots, "; 0 skips the sampling)")}};
  add("profile",
      "Profile the current kernel with Nsight Compute on one scenario: per kernel, duration, SM and memory "
      "throughput, occupancy, registers, shared memory and a few memory metrics, then where its warps stall: the "
      "top stall reasons and the SASS instructions with the most stall samples. Needs a GPU worker with ncu.",
      profile_schema);
  add("finish",
      "End the session. Accepted only when a counted version (compiled, verified, benchmarked) meets the target.",
      ToolSchema({{"summary", "what was done and what was measured"}}, {"summary"}));
  return tools;
}

std::string AgentTools::PathError(const std::string& path) {
  if (path.empty()) return "the path is empty";
  if (path.size() > 128) return absl::StrCat("the path is ", path.size(), " bytes long; the limit is 128");
  if (path.find('/') != std::string::npos || path.find('\\') != std::string::npos) {
    return absl::StrCat("\"", path, "\" is outside the workspace: use a plain file name (no '/')");
  }
  if (path == "." || path == ".." || path[0] == '.') {
    return absl::StrCat("\"", path, "\" is not allowed: names may not start with '.'");
  }
  for (char c : path) {
    if (static_cast<unsigned char>(c) < 0x20) return "the path contains a control character";
  }
  return "";
}

absl::StatusOr<ToolOutcome> AgentTools::Execute(const llm::ToolCall& call, int64_t call_seq,
                                                const std::function<bool()>& cancelled) {
  json args = ParseUntrustedJson(call.arguments.empty() ? "{}" : call.arguments);
  if (args.is_discarded() || !args.is_object()) {
    return Error(absl::StrCat("the arguments of ", call.name, " are not a JSON object: ", Cut(call.arguments, 200),
                              "\nCall the tool again with valid JSON arguments."));
  }
  absl::StatusOr<ToolOutcome> outcome;
  if (call.name == "read_file") {
    outcome = ReadFile(args);
  } else if (call.name == "write_file") {
    outcome = WriteFile(args, call_seq);
  } else if (call.name == "edit_file") {
    outcome = EditFile(args, call_seq);
  } else if (call.name == "list_files") {
    outcome = ListFiles();
  } else if (call.name == "compile") {
    outcome = Compile(cancelled);
  } else if (call.name == "verify") {
    outcome = Verify(cancelled);
  } else if (call.name == "bench") {
    outcome = Bench(cancelled);
  } else if (call.name == "show_sass") {
    outcome = ShowSass(args, cancelled);
  } else if (call.name == "profile") {
    outcome = Profile(args, cancelled);
  } else if (call.name == "finish") {
    outcome = Finish(args);
  } else {
    std::vector<std::string> names;
    for (const llm::ToolDefinition& d : Definitions()) names.push_back(d.name);
    return Error(absl::StrCat("unknown tool \"", Cut(call.name, 100), "\"; the tools are ", absl::StrJoin(names, ", ")));
  }
  if (outcome.ok()) outcome->content = Cut(std::move(outcome->content), kMaxResultBytes);
  return outcome;
}

absl::StatusOr<ToolOutcome> AgentTools::ReadFile(const json& args) {
  std::string path;
  if (std::string e = StringArg(args, "path", &path); !e.empty()) return Error(e);
  if (std::string e = PathError(path); !e.empty()) return Error(e);
  auto it = files_.find(path);
  if (it == files_.end()) return Error(absl::StrCat("no file \"", path, "\" in the workspace; list_files shows them"));
  int64_t start_line = 1;
  if (auto s = args.find("start_line"); s != args.end()) {
    if (!s->is_number_integer() || s->get<int64_t>() < 1) return Error("start_line must be an integer >= 1");
    start_line = s->get<int64_t>();
  }
  std::vector<absl::string_view> lines = absl::StrSplit(it->second, '\n');
  if (start_line > static_cast<int64_t>(lines.size())) {
    return Error(absl::StrCat("\"", path, "\" has ", lines.size(), " lines; start_line ", start_line, " is past its end"));
  }
  std::string out;
  int64_t line = start_line;
  for (; line <= static_cast<int64_t>(lines.size()); ++line) {
    if (out.size() + lines[line - 1].size() + 1 > kMaxReadBytes) break;
    absl::StrAppend(&out, lines[line - 1], "\n");
  }
  if (line <= static_cast<int64_t>(lines.size())) {
    absl::StrAppend(&out, "[shown lines ", start_line, "-", line - 1, " of ", lines.size(),
                    "; read_file with start_line ", line, " for the rest]\n");
  }
  return ToolOutcome{out, false, ToolSignal::kNone, 0};
}

absl::StatusOr<ToolOutcome> AgentTools::WriteFile(const json& args, int64_t call_seq) {
  std::string path;
  std::string content;
  if (std::string e = StringArg(args, "path", &path); !e.empty()) return Error(e);
  if (std::string e = StringArg(args, "content", &content); !e.empty()) return Error(e);
  if (std::string e = PathError(path); !e.empty()) return Error(e);
  if (content.size() > kMaxSourceBytes) {
    return Error(absl::StrCat("content is ", content.size(), " bytes; a workspace file may hold at most ",
                              kMaxSourceBytes));
  }
  if (!files_.contains(path) && files_.size() >= kMaxFiles) {
    return Error(absl::StrCat("the workspace already holds ", kMaxFiles, " files; overwrite one instead"));
  }
  if (absl::Status s = StoreFile(path, content, call_seq); !s.ok()) return s;
  std::string note = path == spec_.kernel_name() ? absl::StrCat(" (kernel version ", current_.record.id(), ")") : "";
  return ToolOutcome{absl::StrCat("wrote ", path, ": ", content.size(), " bytes", note), false, ToolSignal::kNone, 0};
}

absl::StatusOr<ToolOutcome> AgentTools::EditFile(const json& args, int64_t call_seq) {
  std::string path;
  std::string old_text;
  std::string new_text;
  if (std::string e = StringArg(args, "path", &path); !e.empty()) return Error(e);
  if (std::string e = StringArg(args, "old_text", &old_text); !e.empty()) return Error(e);
  if (std::string e = StringArg(args, "new_text", &new_text); !e.empty()) return Error(e);
  if (std::string e = PathError(path); !e.empty()) return Error(e);
  auto it = files_.find(path);
  if (it == files_.end()) return Error(absl::StrCat("no file \"", path, "\" in the workspace; list_files shows them"));
  if (old_text.empty()) return Error("old_text is empty; to replace the whole file use write_file");
  const std::string& text = it->second;
  size_t first = text.find(old_text);
  if (first == std::string::npos) {
    return Error(absl::StrCat("old_text was not found in ", path,
                              "; it must match the file exactly, whitespace included (read_file shows it)"));
  }
  size_t count = 0;
  for (size_t at = first; at != std::string::npos; at = text.find(old_text, at + 1)) ++count;
  if (count > 1) {
    return Error(absl::StrCat("old_text occurs ", count, " times in ", path,
                              "; include more surrounding text so that it matches exactly once"));
  }
  std::string updated = text.substr(0, first) + new_text + text.substr(first + old_text.size());
  if (updated.size() > kMaxSourceBytes) {
    return Error(absl::StrCat("the edit would make ", path, " ", updated.size(), " bytes; the limit is ",
                              kMaxSourceBytes));
  }
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + first, '\n'));
  if (absl::Status s = StoreFile(path, updated, call_seq); !s.ok()) return s;
  std::string note = path == spec_.kernel_name() ? absl::StrCat("; kernel version ", current_.record.id()) : "";
  return ToolOutcome{absl::StrCat("edited ", path, " at line ", line, note), false, ToolSignal::kNone, 0};
}

ToolOutcome AgentTools::ListFiles() {
  std::string out;
  for (const auto& [name, content] : files_) {
    absl::StrAppend(&out, name, " (", content.size(), " bytes", name == spec_.kernel_name() ? ", the kernel" : "",
                    ")\n");
  }
  return ToolOutcome{out, false, ToolSignal::kNone, 0};
}

absl::Status AgentTools::StoreFile(const std::string& path, const std::string& content, int64_t call_seq) {
  if (absl::Status s = store_->PutSessionFile(session_id_, path, content); !s.ok()) return s;
  files_[path] = content;
  if (path != spec_.kernel_name() || content == current_.source) return absl::OkStatus();
  kernelseek::v1::KernelVersion version;
  version.set_parent(current_.record.id());
  version.set_status("edited");
  version.set_seq(call_seq);
  version.set_source(content);
  absl::StatusOr<int64_t> id = store_->InsertKernelVersion(session_id_, version);
  if (!id.ok()) return id.status();
  version.set_id(absl::StrCat(*id));
  version.clear_source();
  current_ = Version{version, content};
  kernelseek::v1::SessionEvent event;
  kernelseek::v1::KernelVersionEvent* body = event.mutable_kernel_version();
  body->set_version(version.id());
  body->set_parent(version.parent());
  body->set_status("edited");
  return append_event_("harness", std::move(event)).status();
}

absl::Status AgentTools::SetStatus(const std::string& status, double speedup, double tflops, bool counted) {
  current_.record.set_status(status);
  current_.record.set_geomean_speedup(speedup);
  current_.record.set_geomean_tflops(tflops);
  current_.record.set_counted(counted);
  if (absl::Status s = store_->UpdateKernelVersion(current_.record); !s.ok()) return s;
  if (counted && speedup > best_speedup_) {
    best_speedup_ = speedup;
    best_version_ = current_.record.id();
  }
  kernelseek::v1::SessionEvent event;
  kernelseek::v1::KernelVersionEvent* body = event.mutable_kernel_version();
  body->set_version(current_.record.id());
  body->set_status(status);
  body->set_counted(counted);
  if (speedup > 0) body->set_geomean_speedup(speedup);
  return append_event_("harness", std::move(event)).status();
}

absl::StatusOr<Job> AgentTools::RunJob(kernelseek::v1::JobKind kind, const std::function<bool()>& cancelled,
                                       const std::string& scenarios, int hotspots) {
  kernelseek::v1::JobSpec spec;
  spec.set_kind(kind);
  spec.set_source_name(spec_.kernel_name());
  spec.set_source(current_.source);
  spec.mutable_compile()->set_arch(spec_.arch());
  if (kind != kernelseek::v1::JOB_KIND_COMPILE) {
    spec.mutable_run()->set_problem(spec_.problem());
    const bool bench = kind == kernelseek::v1::JOB_KIND_BENCH;
    spec.mutable_run()->set_scenarios(!scenarios.empty() ? scenarios
                                      : bench            ? spec_.bench_scenarios()
                                                         : spec_.verify_scenarios());
    if (bench) {
      spec.mutable_run()->set_baseline(spec_.baseline());
      spec.mutable_run()->set_rounds(spec_.bench_rounds());
    }
    if (kind == kernelseek::v1::JOB_KIND_PROFILE) spec.mutable_run()->set_hotspots(hotspots);
  }
  return jobs_->Run(user_, team_, std::move(spec), cancelled);
}

absl::StatusOr<ToolOutcome> AgentTools::Compile(const std::function<bool()>& cancelled) {
  absl::StatusOr<Job> job = RunJob(kernelseek::v1::JOB_KIND_COMPILE, cancelled);
  if (job.status().code() == absl::StatusCode::kCancelled) return job.status();
  if (std::optional<ToolOutcome> failure = JobFailure("compile", job)) return *failure;
  const CompileResult& compile = job->result().compile();
  compiled_[current_.record.id()] = compile;
  const bool ok = compile.success();
  if (absl::Status s = SetStatus(ok ? "compiled" : "compile_failed", 0, 0, false); !s.ok()) return s;
  return ToolOutcome{absl::StrCat("version ", current_.record.id(), ": ", CompileSummary(compile)), !ok,
                     ok ? ToolSignal::kCompileOk : ToolSignal::kCompileFailed, 0};
}

absl::StatusOr<ToolOutcome> AgentTools::Verify(const std::function<bool()>& cancelled) {
  absl::StatusOr<Job> job = RunJob(kernelseek::v1::JOB_KIND_VERIFY, cancelled);
  if (job.status().code() == absl::StatusCode::kCancelled) return job.status();
  if (std::optional<ToolOutcome> failure = JobFailure("verify", job)) return *failure;
  const RunResult& run = job->result().run();
  if (!run.compile().success()) {
    if (absl::Status s = SetStatus("compile_failed", 0, 0, false); !s.ok()) return s;
    return ToolOutcome{absl::StrCat("version ", current_.record.id(), ": ", CompileSummary(run.compile())), true,
                       ToolSignal::kCompileFailed, 0};
  }
  const bool passed = run.failed() == 0 && run.passed() > 0 && run.runner_error().empty();
  if (absl::Status s = SetStatus(passed ? "verified" : "verify_failed", 0, 0, false); !s.ok()) return s;
  return ToolOutcome{absl::StrCat("verify version ", current_.record.id(), " on \"", spec_.verify_scenarios(),
                                  "\": ", RunSummary(run, /*bench=*/false)),
                     !passed, passed ? ToolSignal::kVerifyOk : ToolSignal::kVerifyFailed, 0};
}

absl::StatusOr<ToolOutcome> AgentTools::Bench(const std::function<bool()>& cancelled) {
  if (current_.record.status() != "verified" && current_.record.status() != "benchmarked") {
    return Error(absl::StrCat("version ", current_.record.id(), " is \"", current_.record.status(),
                              "\": run verify first; a version counts only when it passed every verification "
                              "scenario and was benchmarked"));
  }
  absl::StatusOr<Job> job = RunJob(kernelseek::v1::JOB_KIND_BENCH, cancelled);
  if (job.status().code() == absl::StatusCode::kCancelled) return job.status();
  if (std::optional<ToolOutcome> failure = JobFailure("bench", job)) return *failure;
  const RunResult& run = job->result().run();
  const std::string summary = RunSummary(run, /*bench=*/true);
  const bool passed = run.compile().success() && run.failed() == 0 && run.passed() > 0 && run.runner_error().empty();
  if (!passed || run.geomean_speedup() <= 0) {
    if (absl::Status s = SetStatus("bench_failed", 0, 0, false); !s.ok()) return s;
    return Error(absl::StrCat("bench of version ", current_.record.id(), " did not produce a speedup: ", summary));
  }
  if (absl::Status s = SetStatus("benchmarked", run.geomean_speedup(), run.geomean_tflops(), true); !s.ok()) return s;
  std::string out = absl::StrFormat("bench version %s vs %s on \"%s\": geomean speedup %.3fx, %.1f TFLOP/s\n%s",
                                    current_.record.id(), run.baseline().empty() ? spec_.baseline() : run.baseline(),
                                    spec_.bench_scenarios(), run.geomean_speedup(), run.geomean_tflops(), summary);
  absl::StrAppend(&out, GoalLine());
  return ToolOutcome{out, false, ToolSignal::kBenched, run.geomean_speedup()};
}

absl::StatusOr<ToolOutcome> AgentTools::ShowSass(const json& args, const std::function<bool()>& cancelled) {
  std::string function;
  if (std::string e = StringArg(args, "function", &function); !e.empty()) return Error(e);
  if (!compiled_.contains(current_.record.id())) {
    absl::StatusOr<ToolOutcome> compiled = Compile(cancelled);
    if (!compiled.ok()) return compiled;
    if (compiled->is_error) return compiled;
  }
  const CompileResult& compile = compiled_[current_.record.id()];
  std::string out;
  std::vector<std::string> names;
  for (const kernelseek::v1::SassSummary& s : compile.sass()) {
    names.push_back(s.function());
    if (s.function().find(function) == std::string::npos) continue;
    absl::StrAppend(&out, "SASS ", s.function(), " (version ", current_.record.id(), "): ", s.total(),
                    " instructions\n");
    for (const kernelseek::v1::InstructionCount& c : s.classes()) absl::StrAppend(&out, "  ", c.name(), " ", c.count(), "\n");
  }
  if (out.empty()) {
    return Error(absl::StrCat("no function matching \"", function, "\"; the compiled functions are: ",
                              names.empty() ? "none (no SASS summary from the worker)" : absl::StrJoin(names, ", ")));
  }
  return ToolOutcome{out, false, ToolSignal::kNone, 0};
}

absl::StatusOr<ToolOutcome> AgentTools::Profile(const json& args, const std::function<bool()>& cancelled) {
  std::string scenario;
  if (std::string e = StringArg(args, "scenario", &scenario); !e.empty()) return Error(e);
  int hotspots = kDefaultProfileHotSpots;
  if (auto h = args.find("hotspots"); h != args.end() && !h->is_null()) {
    if (!h->is_number()) return Error("hotspots must be an integer from 0 to 50");
    // A model may write 10.0 or 500; what it meant is clear enough.
    hotspots = static_cast<int>(std::clamp<double>(std::round(h->get<double>()), 0, kMaxProfileHotSpots));
  }
  absl::StatusOr<Job> job = RunJob(kernelseek::v1::JOB_KIND_PROFILE, cancelled, scenario, hotspots);
  if (job.status().code() == absl::StatusCode::kCancelled) return job.status();
  if (job.status().code() == absl::StatusCode::kFailedPrecondition) {
    return Error(absl::StrCat("profile could not run: no worker with Nsight Compute is connected (",
                              job.status().message(), ")"));
  }
  if (std::optional<ToolOutcome> failure = JobFailure("profile", job)) return *failure;
  const kernelseek::v1::ProfileResult& profile = job->result().profile();
  if (!profile.compile().success()) {
    return Error(absl::StrCat("version ", current_.record.id(), ": ", CompileSummary(profile.compile())));
  }
  const std::string out =
      FormatProfileText(profile, ProfileTextOptions{.subject = absl::StrCat("version ", current_.record.id())});
  return ToolOutcome{out, profile.kernels().empty(), ToolSignal::kNone, 0};
}

std::string AgentTools::GoalLine() const {
  if (best_version_.empty()) {
    return absl::StrFormat("session best: none yet; target %.3fx\n", spec_.target_speedup());
  }
  return absl::StrFormat("session best: %.3fx (version %s); target %.3fx\n", best_speedup_, best_version_,
                         spec_.target_speedup());
}

ToolOutcome AgentTools::Finish(const json& args) {
  std::string summary;
  if (std::string e = StringArg(args, "summary", &summary); !e.empty()) return Error(e);
  if (!best_version_.empty() && best_speedup_ >= spec_.target_speedup()) {
    return ToolOutcome{absl::StrFormat("finish accepted: version %s measured %.3fx >= target %.3fx", best_version_,
                                       best_speedup_, spec_.target_speedup()),
                       false, ToolSignal::kFinishAccepted, best_speedup_};
  }
  std::string why =
      best_version_.empty()
          ? absl::StrFormat("no version has been measured toward the goal yet (none has compiled, passed every "
                            "verification scenario and been benchmarked); the target is %.3fx vs %s",
                            spec_.target_speedup(), spec_.baseline())
          : absl::StrFormat("the best measured version %s is at %.3fx vs %s; the target is %.3fx, a gap of %.3fx",
                            best_version_, best_speedup_, spec_.baseline(), spec_.target_speedup(),
                            spec_.target_speedup() - best_speedup_);
  return ToolOutcome{absl::StrCat("finish refused: ", why, ". Keep working."), true, ToolSignal::kFinishRefused,
                     best_speedup_};
}

}  // namespace kseek
