// SessionManager: the optimization sessions of the server. Validates and
// stores new sessions, runs each RUNNING session's AgentLoop on its own
// thread, resumes RUNNING sessions after a restart (Recover), and answers
// queries from the stored trace. The gRPC layer (CoordinatorService) only
// decodes and encodes.
//
// Thread-safe. Does not own the store, clock, catalog, bank or job runner;
// owns the loops and their threads (joined by Shutdown or the destructor).
#ifndef KERNELSEEK_SERVER_SESSION_MANAGER_H_
#define KERNELSEEK_SERVER_SESSION_MANAGER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "proto/kernelseek.pb.h"
#include "server/agent_loop.h"
#include "server/change_notifier.h"
#include "server/job_runner.h"
#include "server/llm/llm_client.h"
#include "problem/problem_catalog.h"
#include "server/question_bank.h"
#include "server/session_store.h"

namespace kseek {

// Makes the LLM client of a session from its configuration, filling in
// defaults; `api_key` is the key that came with StartSession (empty on
// resume: it is never stored). Production: LlmEndpoints::MakeClient.
using LlmClientFactory = std::function<absl::StatusOr<std::unique_ptr<llm::LlmClient>>(
    kernelseek::v1::LlmConfig* config, const std::string& api_key)>;

class SessionManager {
 public:
  SessionManager(SessionStore* store, const Clock* clock, const ProblemCatalog* problems, const QuestionBank* bank,
                 JobRunner* jobs, LlmClientFactory llm_factory);
  ~SessionManager();

  // Resumes every session stored as RUNNING from its last event. A session
  // whose LLM client cannot be made again (its key came from the client and
  // was lost with the restart, its endpoint is no longer configured) is ended
  // FAILED with the reason.
  absl::Status Recover();

  // Validates `spec` (INVALID_ARGUMENT naming the field; FAILED_PRECONDITION
  // when the server lacks what it needs; the LLM factory's codes), stores the
  // session with its first kernel version and starts its loop. `api_key`: the
  // key of a user-brought endpoint, kept only in the loop's memory.
  // The session belongs to `user` of `team`.
  absl::StatusOr<kernelseek::v1::Session> StartSession(const std::string& user, const std::string& team,
                                                       kernelseek::v1::SessionSpec spec,
                                                       const std::string& api_key = "");
  // NOT_FOUND for an unknown id.
  absl::StatusOr<kernelseek::v1::SessionDetails> GetSession(const std::string& id);
  // The stored session alone (owner, team, state), for permission checks;
  // NOT_FOUND for an unknown id.
  absl::StatusOr<kernelseek::v1::Session> FindSession(const std::string& id);
  // The sessions of `team`, newest first.
  absl::StatusOr<std::vector<kernelseek::v1::Session>> ListSessions(const std::string& team, int limit);
  // Stores a human message (a "human_message" event, returned seq); it is
  // delivered at the next decision point (before the next model turn in
  // human mode). FAILED_PRECONDITION when the session has ended.
  absl::StatusOr<int64_t> PostMessage(const std::string& user, const std::string& id, const std::string& text);
  // FAILED_PRECONDITION when the session had already ended.
  absl::StatusOr<kernelseek::v1::Session> StopSession(const std::string& user, const std::string& id);
  // The best counted version with its source; NOT_FOUND when none counted.
  absl::StatusOr<kernelseek::v1::KernelVersion> GetBestKernel(const std::string& id);
  // Events with seq > after_seq, at most `limit`.
  absl::StatusOr<std::vector<kernelseek::v1::SessionEvent>> Events(const std::string& id, int64_t after_seq,
                                                                   int limit);

  // Runs `on_change` (a quick callback, see ChangeNotifier) whenever session
  // `id` appends an event or ends, and at Shutdown; events of other sessions
  // do not run it. INVALID_ARGUMENT for an id that is not a session id.
  absl::StatusOr<ChangeNotifier::Subscription> SubscribeSession(const std::string& id,
                                                                std::function<void()> on_change);

  // Ends every loop (sessions stay RUNNING, to resume at the next start) and
  // joins their threads. Idempotent.
  void Shutdown();
  bool shutting_down();

  static constexpr size_t kMaxMessageBytes = 16 << 10;

 private:
  struct Running {
    std::unique_ptr<AgentLoop> loop;
    std::thread thread;
  };

  absl::StatusOr<int64_t> ParseSessionId(const std::string& id);
  // The stored session `sid`, which the user called `id`; NotFound if none.
  absl::StatusOr<kernelseek::v1::Session> FindSession(int64_t sid, const std::string& id);
  absl::Status ValidateSpec(kernelseek::v1::SessionSpec* spec);
  // Builds, loads and starts the loop of a stored RUNNING session.
  absl::Status Launch(const kernelseek::v1::Session& session, const std::string& api_key);

  SessionStore* const store_;
  const Clock* const clock_;
  const ProblemCatalog* const problems_;
  const QuestionBank* const bank_;
  JobRunner* const jobs_;
  const LlmClientFactory llm_factory_;

  absl::Mutex mu_;
  std::map<int64_t, Running> running_ ABSL_GUARDED_BY(mu_);
  bool shutdown_ ABSL_GUARDED_BY(mu_) = false;

  ChangeNotifier watchers_;  // by session id
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_SESSION_MANAGER_H_
