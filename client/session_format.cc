#include "client/session_format.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "client/report_format.h"
#include "client/text_table.h"

namespace kseek {
namespace {

using kernelseek::v1::KernelVersion;
using kernelseek::v1::QuestionAsked;
using kernelseek::v1::Session;
using kernelseek::v1::SessionDetails;
using kernelseek::v1::SessionSpec;

std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }

std::string FormatTimeWithAge(const google::protobuf::Timestamp& ts, absl::Time now) {
  absl::Time t = TimeFromProto(ts);
  if (t == absl::InfinitePast()) return "-";
  return absl::StrCat(absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", t, absl::UTCTimeZone()), " (",
                      FormatAge(now - t), " ago)");
}

// "attention_fwd on sm_90a: 1.10x cudnn".
std::string FormatGoal(const SessionSpec& spec) {
  return absl::StrCat(OrDash(spec.problem()), " on ", OrDash(spec.arch()), ": ",
                      FormatSpeedup(spec.target_speedup()), " ", OrDash(spec.baseline()));
}

std::string FormatSteps(const Session& session) {
  if (session.spec().max_steps() <= 0) return absl::StrCat(session.steps());
  return absl::StrCat(session.steps(), "/", session.spec().max_steps());
}

// "v4 at 1.07x (target 1.10x, 0.03x to go)"; "none counted yet".
std::string FormatBest(const Session& session) {
  if (session.best_version().empty()) return "none counted yet";
  double target = session.spec().target_speedup();
  std::string against;
  if (target > 0 && session.best_speedup() >= target) {
    against = absl::StrCat(" (target ", FormatSpeedup(target), ", met)");
  } else if (target > 0) {
    against = absl::StrFormat(" (target %s, %.2fx to go)", FormatSpeedup(target),
                              target - session.best_speedup());
  }
  return absl::StrCat(session.best_version(), " at ", FormatSpeedup(session.best_speedup()), " ",
                      session.spec().baseline(), against);
}

// Versions the speedup history lists: those a benchmark measured.
bool WasBenchmarked(const KernelVersion& version) {
  return version.counted() || version.status() == "benchmarked";
}

std::string VersionTable(const SessionDetails& details) {
  std::vector<std::vector<std::string>> rows;
  int others = 0;
  for (const KernelVersion& v : details.versions()) {
    if (!WasBenchmarked(v)) {
      ++others;
      continue;
    }
    bool best = v.id() == details.session().best_version();
    rows.push_back({best ? v.id() + " *" : v.id(), OrDash(v.parent()), OrDash(v.status()),
                    FormatSpeedup(v.geomean_speedup()),
                    v.geomean_tflops() > 0 ? absl::StrFormat("%.1f", v.geomean_tflops()) : "-",
                    v.counted() ? "yes" : "no", absl::StrCat("#", v.seq())});
  }
  std::string out = "speedup history (benchmarked versions; * the best):\n";
  if (rows.empty()) {
    absl::StrAppend(&out, "  no version benchmarked yet\n");
  } else {
    absl::StrAppend(
        &out, FormatTable({"VERSION", "PARENT", "STATUS", "SPEEDUP", "TFLOP/s", "COUNTED", "EVENT"},
                          {Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight, Align::kRight,
                           Align::kLeft, Align::kRight},
                          rows));
  }
  if (others > 0) {
    absl::StrAppend(&out, others, " other version(s) did not reach a benchmark (edited, failed ",
                    "to compile or verify)\n");
  }
  return out;
}

std::string QuestionList(const SessionDetails& details) {
  std::string out = "questions asked:\n";
  if (details.questions().empty()) return out + "  none\n";
  for (const QuestionAsked& q : details.questions()) {
    absl::StrAppend(&out, "#", q.seq(), "  ", OrDash(q.trigger()), "  from ", OrDash(q.source()),
                    "  best ", FormatSpeedup(q.best_speedup_before()), " → ",
                    FormatSpeedup(q.best_speedup_after()), "\n");
    for (absl::string_view line : absl::StrSplit(q.text(), '\n')) {
      absl::StrAppend(&out, "    ", line, "\n");
    }
  }
  return out;
}

}  // namespace

std::string SessionStateLabel(kernelseek::v1::SessionState state) {
  switch (state) {
    case kernelseek::v1::SESSION_STATE_RUNNING:
      return "running";
    case kernelseek::v1::SESSION_STATE_SUCCEEDED:
      return "succeeded";
    case kernelseek::v1::SESSION_STATE_EXHAUSTED:
      return "exhausted";
    case kernelseek::v1::SESSION_STATE_STOPPED:
      return "stopped";
    case kernelseek::v1::SESSION_STATE_FAILED:
      return "failed";
    default:
      return "unknown";
  }
}

std::string QuestionModeLabel(kernelseek::v1::QuestionMode mode) {
  switch (mode) {
    case kernelseek::v1::QUESTION_MODE_HUMAN:
      return "human";
    case kernelseek::v1::QUESTION_MODE_BANK:
      return "bank";
    case kernelseek::v1::QUESTION_MODE_SELF:
      return "self";
    case kernelseek::v1::QUESTION_MODE_OFF:
      return "off";
    default:
      return "unknown";
  }
}

std::string FormatSpeedup(double speedup) {
  if (!(speedup > 0) || !std::isfinite(speedup)) return "-";
  return absl::StrFormat("%.2fx", speedup);
}

std::string FormatLlm(const kernelseek::v1::LlmConfig& llm) {
  if (llm.provider() == "replay") {
    return llm.replay_trace().empty() ? "replay of an uploaded trace" : absl::StrCat("replay ", llm.replay_trace());
  }
  if (!llm.endpoint().empty()) return absl::StrCat(llm.endpoint(), " ", OrDash(llm.model()));
  std::string out = absl::StrCat(OrDash(llm.provider()), " ", OrDash(llm.model()));
  if (!llm.base_url().empty()) absl::StrAppend(&out, " at ", llm.base_url());
  return out;
}

std::string FormatSessionSummary(const Session& session) {
  const SessionSpec& spec = session.spec();
  std::string steps =
      spec.max_steps() > 0 ? absl::StrCat(", at most ", spec.max_steps(), " steps") : std::string();
  return absl::StrCat("session ", session.id(), " ", SessionStateLabel(session.state()), ": ",
                      OrDash(spec.kernel_name()), " toward ", FormatGoal(spec), " with ",
                      FormatLlm(spec.llm()), ", questions ", QuestionModeLabel(spec.questions()),
                      steps);
}

std::string FormatSessionStarted(const Session& session) {
  return absl::StrCat(FormatSessionSummary(session), "\n", session.id(), "\n");
}

std::string FormatSessionTable(const std::vector<Session>& sessions, absl::Time now) {
  std::vector<std::vector<std::string>> rows;
  for (const Session& s : sessions) {
    absl::Time created = TimeFromProto(s.created());
    rows.push_back({s.id(), SessionStateLabel(s.state()), OrDash(s.spec().problem()),
                    OrDash(s.spec().arch()), FormatSteps(s),
                    absl::StrCat(FormatSpeedup(s.best_speedup()), " / ",
                                 FormatSpeedup(s.spec().target_speedup())),
                    OrDash(s.user()),
                    created == absl::InfinitePast() ? "-" : FormatAge(now - created)});
  }
  std::vector<Align> align(8, Align::kLeft);
  align[4] = Align::kRight;
  align[5] = Align::kRight;
  align[7] = Align::kRight;
  return FormatTable({"ID", "STATE", "PROBLEM", "ARCH", "STEPS", "BEST / TARGET", "USER", "AGE"},
                     align, rows);
}

std::string FormatSessionDetails(const SessionDetails& details, absl::Time now) {
  const Session& s = details.session();
  const SessionSpec& spec = s.spec();
  std::vector<std::pair<std::string, std::string>> fields = {
      {"session", s.id()},
      {"state", SessionStateLabel(s.state())},
      {"status", OrDash(s.status())},
      {"goal", FormatGoal(spec)},
      {"scenarios",
       absl::StrCat("verify on ", spec.verify_scenarios().empty() ? "all" : spec.verify_scenarios(),
                    ", bench on ",
                    spec.bench_scenarios().empty() ? "perf" : spec.bench_scenarios(),
                    spec.bench_rounds() > 1 ? absl::StrCat(", best of ", spec.bench_rounds(), " rounds")
                                            : "")},
      {"kernel", OrDash(spec.kernel_name())},
      {"llm", FormatLlm(spec.llm())},
      {"questions", QuestionModeLabel(spec.questions())},
      {"steps", FormatSteps(s)},
      {"best", FormatBest(s)},
      {"user", OrDash(s.user())},
      {"created", FormatTimeWithAge(s.created(), now)},
      {"updated", FormatTimeWithAge(s.updated(), now)},
      {"events", absl::StrCat(s.last_seq())},
  };
  std::string out;
  for (const auto& [name, value] : fields) {
    absl::StrAppend(&out, absl::StrFormat("%-10s %s\n", name, value));
  }
  absl::StrAppend(&out, "\n", VersionTable(details), "\n", QuestionList(details));
  return out;
}

std::string FormatSessionEnd(const Session& session) {
  std::string out = absl::StrCat("session ", session.id(), " ", SessionStateLabel(session.state()),
                                 " after ", session.steps(), " steps: best ", FormatBest(session));
  if (!session.status().empty()) absl::StrAppend(&out, ": ", session.status());
  return out + "\n";
}

}  // namespace kseek
