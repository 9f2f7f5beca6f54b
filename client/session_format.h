// Text renderings of optimization sessions for the kseek CLI: the line
// `kseek session start` prints, the `kseek sessions` table, `kseek session
// show` and the end-of-session line of `kseek watch`.
//
// Plain functions of their arguments (the current time is passed in, never
// read), so tests build Session protos by hand and compare text. Thread-safe.
#ifndef KERNELSEEK_CLIENT_SESSION_FORMAT_H_
#define KERNELSEEK_CLIENT_SESSION_FORMAT_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

// Lower-case names as users type and read them: "running", "succeeded", ...;
// "human", "bank", "self", "off".
std::string SessionStateLabel(kernelseek::v1::SessionState state);
std::string QuestionModeLabel(kernelseek::v1::QuestionMode mode);

// "1.07x", or "-" for no measurement (zero or less).
std::string FormatSpeedup(double speedup);

// "openai gpt-4o at http://127.0.0.1:8000/v1", "anthropic claude-x",
// "replay /path/trace.jsonl".
std::string FormatLlm(const kernelseek::v1::LlmConfig& llm);

// One line without a newline: "session s1 running: naive.cu toward
// attention_fwd on sm_90a: 1.10x cudnn with openai gpt-4o, questions bank, at
// most 40 steps".
std::string FormatSessionSummary(const kernelseek::v1::Session& session);

// A started session: its summary line, then the session id alone on the last
// line so that scripts can take it with `tail -n1`.
std::string FormatSessionStarted(const kernelseek::v1::Session& session);

// One row per session: id, state, problem, arch, steps (of the budget), best
// speedup against the target, user and age (since creation, relative to `now`).
std::string FormatSessionTable(const std::vector<kernelseek::v1::Session>& sessions,
                               absl::Time now);

// Goal, state and status line, steps, best version; the speedup history (the
// versions that were benchmarked: id, parent, status, geomean speedup,
// TFLOP/s); and the questions asked with the best speedup before and after each.
std::string FormatSessionDetails(const kernelseek::v1::SessionDetails& details, absl::Time now);

// The line `kseek watch` ends with, e.g. "session s1 succeeded after 12 steps:
// best v4 at 1.12x cudnn (target 1.10x): goal met".
std::string FormatSessionEnd(const kernelseek::v1::Session& session);

}  // namespace kseek

#endif  // KERNELSEEK_CLIENT_SESSION_FORMAT_H_
