// SessionStore: optimization sessions (schema version 3) and what belongs to
// each: its trace of events, the human messages waiting for a decision
// point, its workspace files and its kernel versions.
//
// Owns its own connection to the StoreFile (see store_file.h for why); every
// method takes an internal mutex, so it is thread-safe. Each method is one
// transaction: when it returns OK the change is on disk and survives a crash
// of the process.
#ifndef KERNELSEEK_SERVER_SESSION_STORE_H_
#define KERNELSEEK_SERVER_SESSION_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "proto/kernelseek.pb.h"
#include "server/sqlite.h"
#include "server/store_file.h"

namespace kseek {

class SessionStore {
 public:
  static absl::StatusOr<std::unique_ptr<SessionStore>> Open(const StoreFile& file);

  // Stores a new session (spec, user, team, state, created) with its workspace
  // file `spec.kernel_name` holding `spec.kernel_source`; returns its id.
  absl::StatusOr<int64_t> InsertSession(const kernelseek::v1::Session& session);
  // Writes state, steps, best_version, best_speedup, status and updated.
  absl::Status UpdateSession(const kernelseek::v1::Session& session);
  // The session with its full spec (kernel source included) and last_seq.
  absl::StatusOr<std::optional<kernelseek::v1::Session>> GetSession(int64_t id);
  // The sessions of `team`, newest first; the specs without kernel source.
  absl::StatusOr<std::vector<kernelseek::v1::Session>> ListSessions(const std::string& team, int limit);
  absl::StatusOr<std::vector<int64_t>> RunningSessionIds();

  // Appends one event with the session's next sequence number (1, 2, ...)
  // and returns that number. `event.session_id` and `event.seq` are ignored;
  // an event with a body is stored as the kind and payload derived from it
  // (common/session_event.h), one without as its own kind and payload_json.
  absl::StatusOr<int64_t> AppendSessionEvent(int64_t session_id, const kernelseek::v1::SessionEvent& event);
  // Events with seq > after_seq, in order, at most `limit`, with kind,
  // payload_json and, where the row fits its kind, the typed body.
  absl::StatusOr<std::vector<kernelseek::v1::SessionEvent>> ListSessionEvents(int64_t session_id, int64_t after_seq,
                                                                              int limit);

  // A human message: appended as a "human_message" event and queued for
  // delivery in the same transaction. Returns the event's seq.
  absl::StatusOr<int64_t> AppendHumanMessage(int64_t session_id, const kernelseek::v1::SessionEvent& event);
  // Seqs of the human_message events not yet delivered, oldest first.
  absl::StatusOr<std::vector<int64_t>> PendingMessageSeqs(int64_t session_id);
  absl::Status MarkMessageDelivered(int64_t session_id, int64_t message_seq, int64_t delivered_seq);

  // Workspace files of a session, by name.
  absl::Status PutSessionFile(int64_t session_id, const std::string& name, const std::string& content);
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ListSessionFiles(int64_t session_id);

  // Kernel versions. Insert uses id (ignored), parent, status, seq and source.
  absl::StatusOr<int64_t> InsertKernelVersion(int64_t session_id, const kernelseek::v1::KernelVersion& version);
  // Writes status, geomean_speedup, geomean_tflops and counted.
  absl::Status UpdateKernelVersion(const kernelseek::v1::KernelVersion& version);
  // Oldest first; `with_source` false leaves the source out.
  absl::StatusOr<std::vector<kernelseek::v1::KernelVersion>> ListKernelVersions(int64_t session_id, bool with_source);

 private:
  // Appends `event` in one transaction and, with queue_for_delivery, queues
  // it as a pending human message in the same one.
  absl::StatusOr<int64_t> Append(int64_t session_id, const kernelseek::v1::SessionEvent& event,
                                 bool queue_for_delivery);
  explicit SessionStore(std::unique_ptr<Database> db) : db_(std::move(db)) {}

  absl::Mutex mu_;
  std::unique_ptr<Database> db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_SESSION_STORE_H_
