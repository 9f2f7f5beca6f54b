#include "server/session_store.h"

#include <google/protobuf/util/time_util.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/session_event.h"

namespace kseek {
namespace {

using google::protobuf::util::TimeUtil;

constexpr const char* kSessionColumns =
    "id, user, spec, state, steps, best_version, best_speedup, status, created_at, updated_at, "
    "(SELECT COALESCE(MAX(seq), 0) FROM session_events WHERE session_id = sessions.id), team";

absl::StatusOr<kernelseek::v1::Session> ReadSessionRow(const Statement& row, bool with_source) {
  kernelseek::v1::Session session;
  session.set_id(absl::StrCat(row.ColumnInt64(0)));
  session.set_user(row.ColumnString(1));
  if (!session.mutable_spec()->ParseFromString(row.ColumnBlob(2))) {
    return absl::DataLossError(absl::StrCat("session ", session.id(), ": stored spec does not parse"));
  }
  if (!with_source) {
    session.mutable_spec()->clear_kernel_source();
    session.mutable_spec()->mutable_llm()->clear_replay_jsonl();
  }
  session.set_state(static_cast<kernelseek::v1::SessionState>(row.ColumnInt64(3)));
  session.set_steps(static_cast<int32_t>(row.ColumnInt64(4)));
  session.set_best_version(row.ColumnString(5));
  session.set_best_speedup(row.ColumnDouble(6));
  session.set_status(row.ColumnString(7));
  *session.mutable_created() = TimeUtil::MicrosecondsToTimestamp(row.ColumnInt64(8));
  *session.mutable_updated() = TimeUtil::MicrosecondsToTimestamp(row.ColumnInt64(9));
  session.set_last_seq(row.ColumnInt64(10));
  session.set_team(row.ColumnString(11));
  return session;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SessionStore>> SessionStore::Open(const StoreFile& file) {
  absl::StatusOr<std::unique_ptr<Database>> db = file.Connect();
  if (!db.ok()) return db.status();
  return std::unique_ptr<SessionStore>(new SessionStore(*std::move(db)));
}

absl::StatusOr<int64_t> SessionStore::InsertSession(const kernelseek::v1::Session& session) {
  absl::MutexLock lock(&mu_);
  int64_t id = 0;
  absl::Status status = InTransaction(*db_, [&]() -> absl::Status {
    absl::StatusOr<Statement> q = db_->GetCachedStatement(
        "INSERT INTO sessions (user, spec, state, steps, best_version, best_speedup, status, created_at, updated_at, "
        "team) VALUES (?, ?, ?, 0, '', 0, ?, ?, ?, ?)");
    if (!q.ok()) return q.status();
    int64_t created = TimeUtil::TimestampToMicroseconds(session.created());
    absl::Status s = q->Bind(1, session.user())
                         .BindBlob(2, session.spec().SerializeAsString())
                         .Bind(3, static_cast<int64_t>(session.state()))
                         .Bind(4, session.status())
                         .Bind(5, created)
                         .Bind(6, created)
                         .Bind(7, session.team())
                         .Run();
    if (!s.ok()) return s;
    id = db_->LastInsertRowId();
    absl::StatusOr<Statement> f = db_->GetCachedStatement("INSERT INTO session_files (session_id, name, content) VALUES (?, ?, ?)");
    if (!f.ok()) return f.status();
    return f->Bind(1, id).Bind(2, session.spec().kernel_name()).BindBlob(3, session.spec().kernel_source()).Run();
  });
  if (!status.ok()) return status;
  return id;
}

absl::Status SessionStore::UpdateSession(const kernelseek::v1::Session& session) {
  int64_t id = 0;
  if (!absl::SimpleAtoi(session.id(), &id)) return absl::InvalidArgumentError(absl::StrCat("bad session id \"", session.id(), "\""));
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "UPDATE sessions SET state = ?, steps = ?, best_version = ?, best_speedup = ?, status = ?, updated_at = ? "
      "WHERE id = ?");
  if (!q.ok()) return q.status();
  return q->Bind(1, static_cast<int64_t>(session.state()))
      .Bind(2, static_cast<int64_t>(session.steps()))
      .Bind(3, session.best_version())
      .Bind(4, session.best_speedup())
      .Bind(5, session.status())
      .Bind(6, TimeUtil::TimestampToMicroseconds(session.updated()))
      .Bind(7, id)
      .Run();
}

absl::StatusOr<std::optional<kernelseek::v1::Session>> SessionStore::GetSession(int64_t id) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(absl::StrCat("SELECT ", kSessionColumns, " FROM sessions WHERE id = ?"));
  if (!q.ok()) return q.status();
  q->Bind(1, id);
  absl::StatusOr<bool> row = q->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::nullopt;
  absl::StatusOr<kernelseek::v1::Session> session = ReadSessionRow(*q, /*with_source=*/true);
  if (!session.ok()) return session.status();
  return *std::move(session);
}

absl::StatusOr<std::vector<kernelseek::v1::Session>> SessionStore::ListSessions(const std::string& team, int limit) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      absl::StrCat("SELECT ", kSessionColumns, " FROM sessions WHERE team = ? ORDER BY id DESC LIMIT ?"));
  if (!q.ok()) return q.status();
  q->Bind(1, team).Bind(2, static_cast<int64_t>(limit));
  std::vector<kernelseek::v1::Session> sessions;
  while (true) {
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    absl::StatusOr<kernelseek::v1::Session> session = ReadSessionRow(*q, /*with_source=*/false);
    if (!session.ok()) return session.status();
    sessions.push_back(*std::move(session));
  }
  return sessions;
}

absl::StatusOr<std::vector<int64_t>> SessionStore::RunningSessionIds() {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement("SELECT id FROM sessions WHERE state = ? ORDER BY id");
  if (!q.ok()) return q.status();
  q->Bind(1, static_cast<int64_t>(kernelseek::v1::SESSION_STATE_RUNNING));
  return q->FirstColumnInts();
}

namespace {

// Appends `event` as the session's next seq; the caller holds the
// transaction. Returns the seq.
absl::StatusOr<int64_t> AppendEventInTransaction(Database& db, int64_t session_id,
                                                 kernelseek::v1::SessionEvent event) {
  // The row holds the kind and JSON payload derived from the typed body, the
  // format of rows written before events were typed.
  SetKindAndPayload(&event);
  absl::StatusOr<Statement> next =
      db.GetCachedStatement("SELECT COALESCE(MAX(seq), 0) + 1 FROM session_events WHERE session_id = ?");
  if (!next.ok()) return next.status();
  next->Bind(1, session_id);
  absl::StatusOr<bool> row = next->Step();
  if (!row.ok()) return row.status();
  const int64_t seq = next->ColumnInt64(0);
  absl::StatusOr<Statement> q =
      db.GetCachedStatement("INSERT INTO session_events (session_id, seq, ts, kind, author, payload) VALUES (?, ?, ?, ?, ?, ?)");
  if (!q.ok()) return q.status();
  absl::Status s = q->Bind(1, session_id)
                       .Bind(2, seq)
                       .Bind(3, TimeUtil::TimestampToMicroseconds(event.time()))
                       .Bind(4, event.kind())
                       .Bind(5, event.author())
                       .Bind(6, event.payload_json())
                       .Run();
  if (!s.ok()) return s;
  return seq;
}

}  // namespace

absl::StatusOr<int64_t> SessionStore::AppendSessionEvent(int64_t session_id, const kernelseek::v1::SessionEvent& event) {
  return Append(session_id, event, /*queue_for_delivery=*/false);
}

absl::StatusOr<int64_t> SessionStore::Append(int64_t session_id, const kernelseek::v1::SessionEvent& event,
                                             bool queue_for_delivery) {
  absl::MutexLock lock(&mu_);
  int64_t seq = 0;
  absl::Status s = InTransaction(*db_, [&]() -> absl::Status {
    absl::StatusOr<int64_t> appended = AppendEventInTransaction(*db_, session_id, event);
    if (!appended.ok()) return appended.status();
    seq = *appended;
    if (!queue_for_delivery) return absl::OkStatus();
    absl::StatusOr<Statement> q = db_->GetCachedStatement("INSERT INTO session_messages (session_id, seq) VALUES (?, ?)");
    if (!q.ok()) return q.status();
    return q->Bind(1, session_id).Bind(2, seq).Run();
  });
  if (!s.ok()) return s;
  return seq;
}

absl::StatusOr<std::vector<kernelseek::v1::SessionEvent>> SessionStore::ListSessionEvents(int64_t session_id,
                                                                                   int64_t after_seq, int limit) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "SELECT seq, ts, kind, author, payload FROM session_events WHERE session_id = ? AND seq > ? "
      "ORDER BY seq LIMIT ?");
  if (!q.ok()) return q.status();
  q->Bind(1, session_id).Bind(2, after_seq).Bind(3, static_cast<int64_t>(limit));
  std::vector<kernelseek::v1::SessionEvent> events;
  while (true) {
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    kernelseek::v1::SessionEvent& event = events.emplace_back();
    event.set_session_id(absl::StrCat(session_id));
    event.set_seq(q->ColumnInt64(0));
    *event.mutable_time() = TimeUtil::MicrosecondsToTimestamp(q->ColumnInt64(1));
    event.set_kind(q->ColumnString(2));
    event.set_author(q->ColumnString(3));
    event.set_payload_json(q->ColumnString(4));
    // A row that does not fit its kind is still listed, without a body, so
    // that it can be shown; the agent loop refuses to resume from it.
    SetBodyFromPayload(&event).IgnoreError();
  }
  return events;
}

absl::StatusOr<int64_t> SessionStore::AppendHumanMessage(int64_t session_id, const kernelseek::v1::SessionEvent& event) {
  return Append(session_id, event, /*queue_for_delivery=*/true);
}

absl::StatusOr<std::vector<int64_t>> SessionStore::PendingMessageSeqs(int64_t session_id) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "SELECT seq FROM session_messages WHERE session_id = ? AND delivered_seq IS NULL ORDER BY seq");
  if (!q.ok()) return q.status();
  q->Bind(1, session_id);
  return q->FirstColumnInts();
}

absl::Status SessionStore::MarkMessageDelivered(int64_t session_id, int64_t message_seq, int64_t delivered_seq) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q =
      db_->GetCachedStatement("UPDATE session_messages SET delivered_seq = ? WHERE session_id = ? AND seq = ?");
  if (!q.ok()) return q.status();
  return q->Bind(1, delivered_seq).Bind(2, session_id).Bind(3, message_seq).Run();
}

absl::Status SessionStore::PutSessionFile(int64_t session_id, const std::string& name, const std::string& content) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "INSERT INTO session_files (session_id, name, content) VALUES (?, ?, ?) "
      "ON CONFLICT (session_id, name) DO UPDATE SET content = excluded.content");
  if (!q.ok()) return q.status();
  return q->Bind(1, session_id).Bind(2, name).BindBlob(3, content).Run();
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> SessionStore::ListSessionFiles(int64_t session_id) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q =
      db_->GetCachedStatement("SELECT name, content FROM session_files WHERE session_id = ? ORDER BY name");
  if (!q.ok()) return q.status();
  q->Bind(1, session_id);
  std::vector<std::pair<std::string, std::string>> files;
  while (true) {
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    files.emplace_back(q->ColumnString(0), q->ColumnString(1));
  }
  return files;
}

absl::StatusOr<int64_t> SessionStore::InsertKernelVersion(int64_t session_id, const kernelseek::v1::KernelVersion& version) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "INSERT INTO kernel_versions (session_id, parent, source, status, seq) VALUES (?, ?, ?, ?, ?)");
  if (!q.ok()) return q.status();
  int64_t parent = 0;
  q->Bind(1, session_id);
  if (absl::SimpleAtoi(version.parent(), &parent)) {
    q->Bind(2, parent);
  } else {
    q->BindNull(2);
  }
  absl::Status s = q->BindBlob(3, version.source()).Bind(4, version.status()).Bind(5, version.seq()).Run();
  if (!s.ok()) return s;
  return db_->LastInsertRowId();
}

absl::Status SessionStore::UpdateKernelVersion(const kernelseek::v1::KernelVersion& version) {
  int64_t id = 0;
  if (!absl::SimpleAtoi(version.id(), &id)) return absl::InvalidArgumentError(absl::StrCat("bad version id \"", version.id(), "\""));
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "UPDATE kernel_versions SET status = ?, geomean_speedup = ?, geomean_tflops = ?, counted = ? WHERE id = ?");
  if (!q.ok()) return q.status();
  return q->Bind(1, version.status())
      .Bind(2, version.geomean_speedup())
      .Bind(3, version.geomean_tflops())
      .Bind(4, static_cast<int64_t>(version.counted()))
      .Bind(5, id)
      .Run();
}

absl::StatusOr<std::vector<kernelseek::v1::KernelVersion>> SessionStore::ListKernelVersions(int64_t session_id,
                                                                                     bool with_source) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> q = db_->GetCachedStatement(
      "SELECT id, COALESCE(parent, ''), status, geomean_speedup, geomean_tflops, "
      "counted, seq, source FROM kernel_versions WHERE session_id = ? ORDER BY id");
  if (!q.ok()) return q.status();
  q->Bind(1, session_id);
  std::vector<kernelseek::v1::KernelVersion> versions;
  while (true) {
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    kernelseek::v1::KernelVersion& v = versions.emplace_back();
    v.set_id(absl::StrCat(q->ColumnInt64(0)));
    v.set_parent(q->ColumnString(1));
    v.set_status(q->ColumnString(2));
    v.set_geomean_speedup(q->ColumnDouble(3));
    v.set_geomean_tflops(q->ColumnDouble(4));
    v.set_counted(q->ColumnInt64(5) != 0);
    v.set_seq(q->ColumnInt64(6));
    if (with_source) v.set_source(q->ColumnString(7));
  }
  return versions;
}

}  // namespace kseek
