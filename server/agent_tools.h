// AgentTools: the tools a session's agent may call, and the harness state
// they change: the session workspace (a set of files stored in SQLite) and
// the kernel versions with their compile, verify and bench status.
//
// Tools: read_file, write_file, edit_file, list_files, compile, verify, bench,
// show_sass, profile (Nsight Compute, where a connected worker has it), finish. Every number in a result comes from a worker's job;
// results are cut to kMaxResultBytes with a note. Bad input from the model
// (malformed JSON, unknown tool, a path outside the workspace, absent search
// text) is a tool error for the model, never a session error. The goal is
// enforced here: a version counts only when it compiled, passed every
// verification scenario and was benchmarked; finish below the target is
// refused with the measured gap.
//
// Not thread-safe: one per session, used by its loop thread. Does not own the
// store or the job runner.
#ifndef KERNELSEEK_SERVER_AGENT_TOOLS_H_
#define KERNELSEEK_SERVER_AGENT_TOOLS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "proto/kernelseek.pb.h"
#include "server/job_runner.h"
#include "server/llm/chat_types.h"
#include "server/question_policy.h"
#include "server/session_store.h"

namespace kseek {

// What one tool call produced: the text the model sees and what the policy
// and the session learn from it.
struct ToolOutcome {
  std::string content;
  bool is_error = false;
  ToolSignal signal = ToolSignal::kNone;
  double speedup = 0;  // kBenched: the version's geomean speedup
};

// Appends one event (its body set) to the session's trace and returns its seq.
using EventAppender =
    std::function<absl::StatusOr<int64_t>(const std::string& author, kernelseek::v1::SessionEvent event)>;

class AgentTools {
 public:
  static constexpr size_t kMaxResultBytes = 16 << 10;
  static constexpr size_t kMaxReadBytes = 48 << 10;
  static constexpr size_t kMaxFiles = 16;
  // Hot spots per kernel when the model's profile call names none: enough to
  // see where the waits gather, few enough to stay under kMaxResultBytes.
  static constexpr int kDefaultProfileHotSpots = 10;

  // `spec` must already be validated (SessionManager does).
  // Jobs run as the session's `user` of `team`.
  AgentTools(SessionStore* store, JobRunner* jobs, int64_t session_id, std::string user, std::string team,
             kernelseek::v1::SessionSpec spec, EventAppender append_event);

  // Reads the workspace files and kernel versions from the store.
  absl::Status Load();

  // The tool definitions offered to the model.
  static std::vector<llm::ToolDefinition> Definitions();

  // Runs one call. `call_seq` is the seq of its tool_call event (recorded as
  // the seq of any kernel version it makes). `cancelled` aborts job waits.
  // An error Status only for a store failure; everything the model did wrong
  // comes back as an outcome with is_error.
  absl::StatusOr<ToolOutcome> Execute(const llm::ToolCall& call, int64_t call_seq,
                                      const std::function<bool()>& cancelled);

  // "" when `path` is a plain file name allowed in the workspace, else why not.
  static std::string PathError(const std::string& path);

  const std::string& best_version() const { return best_version_; }
  double best_speedup() const { return best_speedup_; }
  const std::map<std::string, std::string>& files() const { return files_; }

 private:
  struct Version {
    kernelseek::v1::KernelVersion record;  // without source
    std::string source;
  };

  absl::StatusOr<ToolOutcome> ReadFile(const nlohmann::json& args);
  absl::StatusOr<ToolOutcome> WriteFile(const nlohmann::json& args, int64_t call_seq);
  absl::StatusOr<ToolOutcome> EditFile(const nlohmann::json& args, int64_t call_seq);
  ToolOutcome ListFiles();
  absl::StatusOr<ToolOutcome> Compile(const std::function<bool()>& cancelled);
  absl::StatusOr<ToolOutcome> Verify(const std::function<bool()>& cancelled);
  absl::StatusOr<ToolOutcome> Bench(const std::function<bool()>& cancelled);
  absl::StatusOr<ToolOutcome> ShowSass(const nlohmann::json& args, const std::function<bool()>& cancelled);
  absl::StatusOr<ToolOutcome> Profile(const nlohmann::json& args, const std::function<bool()>& cancelled);
  ToolOutcome Finish(const nlohmann::json& args);

  // Stores `content` as `path`; a change of the kernel file makes a new
  // version whose parent is the current one.
  absl::Status StoreFile(const std::string& path, const std::string& content, int64_t call_seq);
  absl::Status SetStatus(const std::string& status, double speedup, double tflops, bool counted);
  // `scenarios` empty: the session's verify or bench scenarios for the kind.
  // `hotspots`: RunOptions.hotspots of a profile job.
  absl::StatusOr<kernelseek::v1::Job> RunJob(kernelseek::v1::JobKind kind, const std::function<bool()>& cancelled,
                                             const std::string& scenarios = "", int hotspots = 0);
  std::string GoalLine() const;

  SessionStore* const store_;
  JobRunner* const jobs_;
  const int64_t session_id_;
  const std::string user_;
  const std::string team_;
  const kernelseek::v1::SessionSpec spec_;
  const EventAppender append_event_;

  std::map<std::string, std::string> files_;
  Version current_;  // the version of the kernel file as it is now
  std::map<std::string, kernelseek::v1::CompileResult> compiled_;  // by version id
  std::string best_version_;
  double best_speedup_ = 0;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_AGENT_TOOLS_H_
