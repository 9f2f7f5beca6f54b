#include "client/report_format.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "client/run_report.h"
#include "client/text_table.h"
#include "common/job_state.h"

namespace kseek {
namespace {

using kernelseek::v1::CompileOptions;
using kernelseek::v1::CompileResult;
using kernelseek::v1::Diagnostic;
using kernelseek::v1::Job;
using kernelseek::v1::JobState;
using kernelseek::v1::KernelResources;
using kernelseek::v1::Property;
using kernelseek::v1::SassSummary;
using kernelseek::v1::WorkerInfo;

// How many untracked SASS classes a row names, and how much of a failed
// compile's log is shown when it produced no parsed diagnostics.
constexpr int kTopOtherSassClasses = 3;
constexpr int kLogTailLines = 30;

std::string FormatProperties(const google::protobuf::RepeatedPtrField<Property>& properties) {
  std::vector<std::string> parts;
  for (const Property& p : properties) parts.push_back(absl::StrCat(p.key(), "=", p.value()));
  return absl::StrJoin(parts, "; ");
}

std::string SeverityLabel(Diagnostic::Severity severity) {
  switch (severity) {
    case Diagnostic::SEVERITY_ERROR:
      return "error";
    case Diagnostic::SEVERITY_WARNING:
      return "warning";
    case Diagnostic::SEVERITY_NOTE:
      return "note";
    default:
      return "message";
  }
}

std::string FormatDiagnostic(const Diagnostic& d, const std::string& default_file) {
  const std::string& file = d.file().empty() ? default_file : d.file();
  std::string where = d.line() > 0 ? absl::StrCat(file, ":", d.line()) : file;
  return absl::StrCat(where, ": ", SeverityLabel(d.severity()), ": ", d.message(), "\n");
}

std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }

std::string FormatTimeWithAge(const google::protobuf::Timestamp& ts, absl::Time now) {
  absl::Time t = TimeFromProto(ts);
  if (t == absl::InfinitePast()) return "-";
  return absl::StrCat(absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", t, absl::UTCTimeZone()), " (",
                      FormatAge(now - t), " ago)");
}

std::string LastLines(absl::string_view text, int count) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  size_t first = lines.size() > static_cast<size_t>(count) ? lines.size() - count : 0;
  std::string out;
  if (first > 0) absl::StrAppend(&out, "  ... (", first, " earlier lines not shown)\n");
  for (size_t i = first; i < lines.size(); ++i) absl::StrAppend(&out, "  ", lines[i], "\n");
  return out;
}

std::string ResourceTable(const google::protobuf::RepeatedPtrField<KernelResources>& resources) {
  std::vector<std::vector<std::string>> rows;
  for (const KernelResources& r : resources) {
    rows.push_back({r.function(), absl::StrCat(r.registers()), absl::StrCat(r.spill_store_bytes()),
                    absl::StrCat(r.spill_load_bytes()), absl::StrCat(r.stack_frame_bytes()),
                    absl::StrCat(r.shared_bytes()), absl::StrCat(r.constant_bytes()),
                    absl::StrCat(r.barriers())});
  }
  std::vector<Align> align(8, Align::kRight);
  align[0] = Align::kLeft;
  return FormatTable(
      {"FUNCTION", "REGS", "SPILL ST", "SPILL LD", "STACK", "SMEM", "CMEM", "BARRIERS"}, align,
      rows);
}

std::string SassTable(const google::protobuf::RepeatedPtrField<SassSummary>& summaries) {
  std::vector<std::string> header = {"FUNCTION", "TOTAL"};
  for (const char* name : kTrackedSassClasses) header.push_back(name);
  header.push_back("TOP OTHERS");
  std::vector<Align> align(header.size(), Align::kRight);
  align.front() = Align::kLeft;
  align.back() = Align::kLeft;

  std::vector<std::vector<std::string>> rows;
  for (const SassSummary& s : summaries) {
    std::vector<std::string> row = {s.function(), absl::StrCat(s.total())};
    for (const char* name : kTrackedSassClasses) {
      auto it = std::find_if(s.classes().begin(), s.classes().end(),
                             [&](const auto& c) { return c.name() == name; });
      // "-" rather than 0: the worker did not count this class, which is not
      // the same as the function having none.
      row.push_back(it == s.classes().end() ? "-" : absl::StrCat(it->count()));
    }
    std::vector<std::pair<int, std::string>> others;
    for (const auto& c : s.classes()) {
      bool tracked = std::any_of(std::begin(kTrackedSassClasses), std::end(kTrackedSassClasses),
                                 [&](const char* name) { return c.name() == name; });
      if (!tracked && c.count() > 0) others.emplace_back(c.count(), c.name());
    }
    std::sort(others.begin(), others.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    if (others.size() > kTopOtherSassClasses) others.resize(kTopOtherSassClasses);
    std::vector<std::string> other_text;
    for (const auto& [count, name] : others) other_text.push_back(absl::StrCat(name, " ", count));
    row.push_back(absl::StrJoin(other_text, ", "));
    rows.push_back(std::move(row));
  }
  return FormatTable(header, align, rows);
}

// "gemm.cu (sm_90a -lineinfo)": what was compiled and how.
std::string CompileTitle(const kernelseek::v1::JobSpec& spec) {
  const std::string& source = spec.source_name();
  return absl::StrCat(source.empty() ? "(unnamed source)" : source, " (",
                      FormatCompileOptions(spec.compile()), ")");
}

}  // namespace

std::string JobKindLabel(kernelseek::v1::JobKind kind) {
  switch (kind) {
    case kernelseek::v1::JOB_KIND_COMPILE:
      return "compile";
    case kernelseek::v1::JOB_KIND_VERIFY:
      return "verify";
    case kernelseek::v1::JOB_KIND_BENCH:
      return "bench";
    case kernelseek::v1::JOB_KIND_PROFILE:
      return "profile";
    default:
      return absl::StrCat("kind-", static_cast<int>(kind));
  }
}

std::string JobStateLabel(JobState state) {
  switch (state) {
    case kernelseek::v1::JOB_STATE_QUEUED:
      return "queued";
    case kernelseek::v1::JOB_STATE_LEASED:
      return "leased";
    case kernelseek::v1::JOB_STATE_SUCCEEDED:
      return "succeeded";
    case kernelseek::v1::JOB_STATE_FAILED:
      return "failed";
    case kernelseek::v1::JOB_STATE_CANCELLED:
      return "cancelled";
    default:
      return absl::StrCat("state-", static_cast<int>(state));
  }
}

absl::StatusOr<JobState> ParseJobStateLabel(absl::string_view label) {
  constexpr JobState kStates[] = {
      kernelseek::v1::JOB_STATE_QUEUED, kernelseek::v1::JOB_STATE_LEASED,
      kernelseek::v1::JOB_STATE_SUCCEEDED, kernelseek::v1::JOB_STATE_FAILED,
      kernelseek::v1::JOB_STATE_CANCELLED};
  std::vector<std::string> labels;
  for (JobState state : kStates) {
    if (absl::EqualsIgnoreCase(label, JobStateLabel(state))) return state;
    labels.push_back(JobStateLabel(state));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown job state \"", label, "\"; the states are ", absl::StrJoin(labels, ", ")));
}

std::string FormatAge(absl::Duration age) {
  if (age < absl::ZeroDuration()) age = absl::ZeroDuration();
  int64_t seconds = absl::ToInt64Seconds(age);
  if (seconds < 60) return absl::StrCat(seconds, "s");
  if (seconds < 3600) return absl::StrCat(seconds / 60, "m");
  if (seconds < 86400) return absl::StrCat(seconds / 3600, "h");
  return absl::StrCat(seconds / 86400, "d");
}

std::string FormatProgress(const Job& job) {
  switch (job.state()) {
    case kernelseek::v1::JOB_STATE_QUEUED: {
      std::string text = job.attempts() > 0
                             ? absl::StrCat("queued again after ", job.attempts(), " attempt(s)")
                             : "queued";
      if (job.queue_position() > 0) absl::StrAppend(&text, ", position ", job.queue_position());
      if (!job.waiting_for().empty()) {
        absl::StrAppend(&text, ": ", job.waiting_for());
      } else if (job.requirements_size() > 0) {
        absl::StrAppend(&text, ", waiting for a worker with ",
                        FormatProperties(job.requirements()));
      }
      return text;
    }
    case kernelseek::v1::JOB_STATE_LEASED: {
      std::string worker = job.worker().empty() ? "a worker" : job.worker();
      return job.stage().empty() ? absl::StrCat("leased to ", worker)
                                 : absl::StrCat(job.stage(), " on ", worker);
    }
    case kernelseek::v1::JOB_STATE_SUCCEEDED:
      return "finished";
    case kernelseek::v1::JOB_STATE_FAILED:
      return "failed";
    default:
      return JobStateLabel(job.state());
  }
}

std::string FormatCompileOptions(const CompileOptions& options) {
  std::vector<std::string> parts = {options.arch().empty() ? "(no arch)" : options.arch()};
  if (options.opt_level() > 0) parts.push_back(absl::StrCat("-O", options.opt_level()));
  if (options.line_info()) parts.push_back("-lineinfo");
  for (const std::string& d : options.defines()) parts.push_back(absl::StrCat("-D", d));
  if (options.max_registers() > 0) {
    parts.push_back(absl::StrCat("-maxrregcount=", options.max_registers()));
  }
  return absl::StrJoin(parts, " ");
}

std::string FormatCompileReport(const Job& job) {
  if (!job.result().has_compile()) {
    return absl::StrCat(CompileTitle(job.spec()), ": job ", job.id(), " has no compile result (",
                        JobStateLabel(job.state()), ")\n");
  }
  return FormatCompileResult(job.spec(), job.worker(), job.result().compile(),
                             CompileReportDetail::kFull);
}

std::string FormatCompileResult(const kernelseek::v1::JobSpec& spec, const std::string& worker,
                                const CompileResult& result, CompileReportDetail detail) {
  const std::string& source = spec.source_name();
  std::string title = CompileTitle(spec);
  std::string where = worker.empty() ? "" : absl::StrCat(" on ", worker);
  std::string out =
      result.success()
          ? absl::StrFormat("%s: compiled in %.2f s%s\n", title, result.seconds(), where)
          : absl::StrFormat("%s: did not compile (%.2f s%s)\n", title, result.seconds(), where);
  if (!result.cache().empty()) absl::StrAppend(&out, "compile: cache ", result.cache(), "\n");

  if (result.diagnostics_size() > 0) {
    absl::StrAppend(&out, "\ndiagnostics:\n");
    for (const Diagnostic& d : result.diagnostics()) {
      absl::StrAppend(&out, FormatDiagnostic(d, source));
    }
  } else if (!result.success() && !result.log().empty()) {
    absl::StrAppend(&out, "\ncompiler output:\n", LastLines(result.log(), kLogTailLines));
  }
  if (!result.success() || detail == CompileReportDetail::kOutcomeAndDiagnostics) return out;

  if (result.resources_size() == 0 && result.sass_size() == 0) {
    absl::StrAppend(&out, "\nno kernel functions in the output\n");
    return out;
  }
  if (result.resources_size() > 0) {
    absl::StrAppend(&out, "\nresources per kernel (ptxas; bytes except REGS and BARRIERS):\n",
                    ResourceTable(result.resources()));
  }
  if (result.sass_size() > 0) {
    absl::StrAppend(&out, "\nSASS instructions per kernel (static counts):\n",
                    SassTable(result.sass()));
  }
  return out;
}

std::string FormatJobDetails(const Job& job, absl::Time now) {
  std::vector<std::pair<std::string, std::string>> fields = {
      {"job", job.id()},
      {"kind", JobKindLabel(job.spec().kind())},
      {"state", JobStateLabel(job.state())},
      {"stage", OrDash(job.stage())},
      {"user", OrDash(job.user())},
      {"worker", OrDash(job.worker())},
      {"attempts", absl::StrCat(job.attempts())},
      {"requires", OrDash(FormatProperties(job.requirements()))},
      {"source",
       absl::StrCat(OrDash(job.spec().source_name()), " (", job.spec().source().size(), " bytes)")},
  };
  fields.emplace_back("options", FormatCompileOptions(job.spec().compile()));
  if (job.spec().kind() == kernelseek::v1::JOB_KIND_VERIFY ||
      job.spec().kind() == kernelseek::v1::JOB_KIND_BENCH ||
      job.spec().kind() == kernelseek::v1::JOB_KIND_PROFILE) {
    fields.emplace_back("run", FormatRunOptions(job.spec().kind(), job.spec().run()));
  }
  fields.emplace_back("created", FormatTimeWithAge(job.created(), now));
  fields.emplace_back("finished", FormatTimeWithAge(job.finished(), now));
  if (job.state() == kernelseek::v1::JOB_STATE_QUEUED) {
    fields.emplace_back("position",
                        job.queue_position() > 0 ? absl::StrCat(job.queue_position()) : "-");
    fields.emplace_back("waiting", OrDash(job.waiting_for()));
  }
  if (job.state() == kernelseek::v1::JOB_STATE_FAILED ||
      job.state() == kernelseek::v1::JOB_STATE_CANCELLED) {
    fields.emplace_back("failure", OrDash(job.failure()));
  }
  const CompileResult* compile = job.result().has_compile()   ? &job.result().compile()
                                 : job.result().has_run()     ? &job.result().run().compile()
                                 : job.result().has_profile() ? &job.result().profile().compile()
                                                              : nullptr;
  if (compile != nullptr && !compile->command().empty()) {
    fields.emplace_back("command", compile->command());
  }
  if (job.state() == kernelseek::v1::JOB_STATE_LEASED && job.progress().total() > 0) {
    fields.emplace_back(
        "progress", absl::StrCat(job.progress().done(), "/", job.progress().total(), " scenarios",
                                 job.progress().shards() > 1 ? absl::StrCat(", ", job.progress().shards_done(), "/",
                                                                            job.progress().shards(), " shards done")
                                                             : ""));
  }
  std::string out;
  for (const auto& [name, value] : fields)
    absl::StrAppend(&out, absl::StrFormat("%-9s %s\n", name, value));
  if (job.result().has_compile()) absl::StrAppend(&out, "\n", FormatCompileReport(job));
  if (job.result().has_run()) absl::StrAppend(&out, "\n", FormatRunReport(job));
  if (job.result().has_profile()) absl::StrAppend(&out, "\n", FormatProfileReport(job));
  return out;
}

std::string FormatJobTable(const std::vector<Job>& jobs, absl::Time now) {
  std::vector<std::vector<std::string>> rows;
  for (const Job& job : jobs) {
    absl::Time created = TimeFromProto(job.created());
    std::string stage = job.stage();
    if (job.state() == kernelseek::v1::JOB_STATE_QUEUED && job.queue_position() > 0) {
      stage = absl::StrCat("queued #", job.queue_position());
    } else if (job.state() == kernelseek::v1::JOB_STATE_QUEUED && !job.waiting_for().empty()) {
      stage = "queued, no worker can run it";
    }
    rows.push_back({job.id(), JobKindLabel(job.spec().kind()), JobStateLabel(job.state()),
                    OrDash(stage), OrDash(job.user()), OrDash(job.worker()),
                    absl::StrCat(job.attempts()),
                    created == absl::InfinitePast() ? "-" : FormatAge(now - created)});
  }
  std::vector<Align> align(8, Align::kLeft);
  align[6] = Align::kRight;
  align[7] = Align::kRight;
  return FormatTable({"ID", "KIND", "STATE", "STAGE", "USER", "WORKER", "ATTEMPTS", "AGE"}, align,
                     rows);
}

std::string FormatWorkerTable(const std::vector<WorkerInfo>& workers, absl::Time now) {
  std::vector<std::vector<std::string>> rows;
  for (const WorkerInfo& w : workers) {
    absl::Time seen = TimeFromProto(w.last_seen());
    rows.push_back({w.name(), OrDash(w.state()), OrDash(FormatProperties(w.capabilities())),
                    seen == absl::InfinitePast() ? "never" : FormatAge(now - seen) + " ago"});
  }
  return FormatTable({"NAME", "STATE", "CAPABILITIES", "LAST SEEN"},
                     std::vector<Align>(4, Align::kLeft), rows);
}

std::string FormatTokenTable(const std::vector<kernelseek::v1::TokenInfo>& tokens, absl::Time now) {
  std::vector<std::vector<std::string>> rows;
  for (const kernelseek::v1::TokenInfo& t : tokens) {
    absl::Time created = TimeFromProto(t.created());
    absl::Time expires = TimeFromProto(t.expires());
    absl::Time revoked = TimeFromProto(t.revoked());
    std::string created_text = absl::StrCat(FormatAge(now - created), " ago",
                                            t.created_by().empty() ? "" : " by ", t.created_by());
    std::string expires_text = "never";
    if (expires != absl::InfinitePast()) {
      expires_text = expires <= now ? absl::StrCat("expired ", FormatAge(now - expires), " ago")
                                    : absl::StrCat("in ", FormatAge(expires - now));
    }
    std::string revoked_text = "-";
    if (revoked != absl::InfinitePast()) {
      revoked_text = absl::StrCat(FormatAge(now - revoked), " ago", t.revoked_by().empty() ? "" : " by ",
                                  t.revoked_by());
    }
    rows.push_back({absl::StrCat(t.id()), t.name(), OrDash(t.role()), created_text, expires_text, revoked_text});
  }
  std::vector<Align> align(6, Align::kLeft);
  align[0] = Align::kRight;
  return FormatTable({"ID", "NAME", "ROLE", "CREATED", "EXPIRES", "REVOKED"}, align, rows);
}

absl::StatusOr<std::string> MessageToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  options.add_whitespace = true;
  std::string json;
  if (auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
      !status.ok()) {
    return absl::InternalError(
        absl::StrCat("cannot print ", message.GetTypeName(), " as JSON: ", status.ToString()));
  }
  if (json.empty() || json.back() != '\n') json += '\n';
  return json;
}

absl::Time TimeFromProto(const google::protobuf::Timestamp& timestamp) {
  if (timestamp.seconds() == 0 && timestamp.nanos() == 0) return absl::InfinitePast();
  return absl::FromUnixSeconds(timestamp.seconds()) + absl::Nanoseconds(timestamp.nanos());
}

}  // namespace kseek
