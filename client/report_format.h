// Text and JSON renderings of jobs, compile results and workers for the kseek CLI.
//
// Plain functions of their arguments (the current time is passed in, never
// read), so tests build Job protos by hand and compare text. Thread-safe.
#ifndef KERNELSEEK_CLIENT_REPORT_FORMAT_H_
#define KERNELSEEK_CLIENT_REPORT_FORMAT_H_

#include <google/protobuf/message.h>
#include <google/protobuf/timestamp.pb.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

// SASS instruction classes that get their own column in the SASS summary, in
// column order. Other classes are shown as the few most frequent "others".
inline constexpr const char* kTrackedSassClasses[] = {"HGMMA", "HMMA", "LDL", "STL", "BAR",
                                                      "MUFU",  "LDS",  "STS", "LDG", "STG"};

// Lower-case names as users see them: "compile", "bench", "queued", "leased", ...
std::string JobKindLabel(kernelseek::v1::JobKind kind);
std::string JobStateLabel(kernelseek::v1::JobState state);
// The state a label of JobStateLabel names, any case; INVALID_ARGUMENT listing
// the labels for anything else.
absl::StatusOr<kernelseek::v1::JobState> ParseJobStateLabel(absl::string_view label);

// "5s", "3m", "2h", "4d": the coarsest unit that is at least 1. Negative
// durations (clock skew between client and server) show as "0s".
std::string FormatAge(absl::Duration age);

// What a waiting user should read about the job now, e.g. "queued, position
// 2: 1 job ahead", "queued: no connected worker has arch=sm_90 (...)" or
// "compiling on worker-a".
std::string FormatProgress(const kernelseek::v1::Job& job);

// The user-chosen nvcc options, e.g. "sm_90a -O2 -lineinfo -DTILE=64 -maxrregcount=128".
std::string FormatCompileOptions(const kernelseek::v1::CompileOptions& options);

// The report of a finished compile job: outcome, diagnostics as
// "file:line: severity: message", the ptxas resource table and the SASS
// instruction-count table, one row per kernel function. A job without a
// compile result gets one line saying so.
std::string FormatCompileReport(const kernelseek::v1::Job& job);

// How much of a compile result to show: a verify or bench report needs only
// whether the shared object built and the compiler's messages.
enum class CompileReportDetail { kFull, kOutcomeAndDiagnostics };

// The report of one compile result of `spec` (a compile job's, or the shared
// object build of a verify/bench job), as FormatCompileReport describes;
// kOutcomeAndDiagnostics leaves out the resource and SASS tables.
std::string FormatCompileResult(const kernelseek::v1::JobSpec& spec, const std::string& worker,
                                const kernelseek::v1::CompileResult& result,
                                CompileReportDetail detail);

// Everything known about one job, followed by its compile, run or profile
// report once it has one.
std::string FormatJobDetails(const kernelseek::v1::Job& job, absl::Time now);

// Tables with a header row; ages are relative to `now`.
std::string FormatJobTable(const std::vector<kernelseek::v1::Job>& jobs, absl::Time now);
std::string FormatWorkerTable(const std::vector<kernelseek::v1::WorkerInfo>& workers,
                              absl::Time now);
// Tokens of a team: id, name, role, created (and by whom), expiry, revocation.
std::string FormatTokenTable(const std::vector<kernelseek::v1::TokenInfo>& tokens, absl::Time now);

// Protobuf JSON with the .proto field names (source_name, not sourceName),
// fields at their default values included so scripts can read `success: false`.
absl::StatusOr<std::string> MessageToJson(const google::protobuf::Message& message);

// InfinitePast for an unset timestamp.
absl::Time TimeFromProto(const google::protobuf::Timestamp& timestamp);

}  // namespace kseek

#endif  // KERNELSEEK_CLIENT_REPORT_FORMAT_H_
