// ReplayLlmClient: an LlmClient that returns the model turns of a recorded
// session trace, in order, whatever it is asked: deterministic demos and
// regression tests without an LLM endpoint.
//
// Input: JSON Lines, one trace event per line. Lines whose "kind" is
// kModelTurnEventKind carry the turn as "payload", read into its typed
// model_message event by common/session_event.h; all other lines (tool results, questions, ...) are skipped.
// Thread-safe.
#ifndef KERNELSEEK_SERVER_LLM_REPLAY_CLIENT_H_
#define KERNELSEEK_SERVER_LLM_REPLAY_CLIENT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/llm/llm_client.h"

namespace kseek::llm {

// The trace event kind of a model turn; the session trace writes model turns
// under this kind so that an exported trace can be replayed.
inline constexpr char kModelTurnEventKind[] = "model_message";

class ReplayLlmClient final : public LlmClient {
 public:
  // `name` appears in errors ("trace.jsonl:12: ..."). INVALID_ARGUMENT for a
  // line that is not JSON or a model turn that is malformed, or when the
  // trace has no model turn at all.
  static absl::StatusOr<std::unique_ptr<ReplayLlmClient>> FromJsonl(const std::string& jsonl,
                                                                    const std::string& name);
  // Reads the regular file `path` (not a device, FIFO or symbolic link) of
  // at most `max_bytes`: NOT_FOUND when it cannot be opened, INVALID_ARGUMENT
  // when it is not a regular file or is larger; otherwise as FromJsonl, with
  // `name` in errors.
  static absl::StatusOr<std::unique_ptr<ReplayLlmClient>> FromFile(const std::string& path,
                                                                   const std::string& name,
                                                                   size_t max_bytes);

  // The next recorded turn; OUT_OF_RANGE once all have been returned.
  absl::StatusOr<ChatResponse> Complete(const ChatRequest& request) override;

 private:
  ReplayLlmClient(std::string name, std::vector<ChatResponse> turns)
      : name_(std::move(name)), turns_(std::move(turns)) {}

  const std::string name_;
  const std::vector<ChatResponse> turns_;
  absl::Mutex mu_;
  size_t next_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace kseek::llm

#endif  // KERNELSEEK_SERVER_LLM_REPLAY_CLIENT_H_
