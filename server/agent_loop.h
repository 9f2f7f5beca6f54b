// AgentLoop: runs one optimization session: model turn, tool calls, tool
// results, decision points, until the goal is met (finish accepted), the
// step budget is spent, a user stops it or the LLM fails after its retries.
//
// Every model message, tool call, tool result, question, policy decision and
// state change is appended to the session's trace in SQLite before it is acted
// on; the transcript sent to the model is rebuilt from that trace (Load), so
// a restarted server resumes where the trace ends.
//
// Thread-safety: Run() is called on one thread; Stop(), Shutdown() and ended()
// may be called from any thread. Does not own the store, clock, bank or job
// runner; owns its LLM client, tools and policy.
#ifndef KERNELSEEK_SERVER_AGENT_LOOP_H_
#define KERNELSEEK_SERVER_AGENT_LOOP_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "proto/kernelseek.pb.h"
#include "server/agent_tools.h"
#include "server/job_runner.h"
#include "server/llm/llm_client.h"
#include "server/question_bank.h"
#include "server/question_policy.h"
#include "server/questioner.h"
#include "server/session_store.h"

namespace kseek {

// Largest model text kept in the trace and the transcript; longer text is cut
// with a note (the model is told).
inline constexpr size_t kMaxModelTextBytes = 64 << 10;

class AgentLoop {
 public:
  // `session` as stored (spec validated and complete). `bank` may be null in
  // modes human and off. `on_event` is called after each appended event.
  AgentLoop(SessionStore* store, const Clock* clock, const QuestionBank* bank, JobRunner* jobs,
            std::unique_ptr<llm::LlmClient> llm, kernelseek::v1::Session session, std::function<void()> on_event);

  // The system prompt and first user message of a new session, recorded as
  // its "prompt" event.
  static kernelseek::v1::PromptEvent Prompt(const kernelseek::v1::SessionSpec& spec);

  // Rebuilds the transcript, workspace, versions and policy state from the
  // stored trace.
  absl::Status Load();

  // Runs until the session ends or Shutdown(). Never throws; a store failure
  // ends the session FAILED when it can still be recorded.
  void Run();

  // Records that `user` stopped the session (state STOPPED), unless it had
  // already ended; nothing is appended to the trace after it. Returns the
  // session as stored.
  absl::StatusOr<kernelseek::v1::Session> Stop(const std::string& user);
  // Makes Run() return soon without changing the session's state (the server
  // is going down; the session resumes at the next start). An LLM call in
  // flight is aborted within about a second and recorded as an
  // "llm_call_aborted" event.
  void Shutdown() {
    shutdown_ = true;
    llm_cancel_.Cancel();
  }
  bool ended();

 private:
  // Appends `event` (its body set) by `author`, stamped now, unless the
  // session has ended.
  absl::StatusOr<int64_t> Append(const std::string& author, kernelseek::v1::SessionEvent event);
  // Ends the session with `state` and `status`, once.
  void Finish(kernelseek::v1::SessionState state, const std::string& status);
  void SaveProgress();
  bool cancelled() const { return shutdown_ || stop_requested_; }
  // Applies one stored event to the transcript and policy (Load).
  absl::Status Replay(const kernelseek::v1::SessionEvent& event);
  // One model turn and its tool calls. False when the session ended.
  bool Step();
  // Records the questioner's decision at a decision point and asks what it
  // chose.
  absl::Status Decide(kernelseek::v1::Trigger trigger);
  // Outside a decision point: asks every pending human message.
  absl::Status DeliverHumanMessages();
  // The session's undelivered human messages, oldest first.
  absl::StatusOr<std::vector<PendingMessage>> PendingMessages();
  // Records `question` (trigger TRIGGER_UNSPECIFIED outside a decision
  // point), marks a human message delivered and puts it to the model.
  absl::Status Ask(kernelseek::v1::Trigger trigger, const QuestionToAsk& question);
  absl::Status AddHarnessMessage(const std::string& text);

  SessionStore* const store_;
  const Clock* const clock_;
  const std::unique_ptr<llm::LlmClient> llm_;
  const std::function<void()> on_event_;
  const int64_t session_id_;

  // Touched only by the Run() thread (and Load before it).
  kernelseek::v1::Session session_;
  AgentTools tools_;
  QuestionPolicy policy_;
  const Questioner questioner_;
  std::vector<llm::ChatMessage> transcript_;
  std::vector<std::string> asked_bank_ids_;

  std::atomic<bool> shutdown_ = false;
  std::atomic<bool> stop_requested_ = false;
  // Fired by Shutdown() and Stop(): aborts the LLM call in flight.
  llm::CancelToken llm_cancel_;
  // Serialises appends with Stop(), so nothing lands in the trace after a
  // session ended.
  absl::Mutex mu_;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_AGENT_LOOP_H_
