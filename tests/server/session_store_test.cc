// SessionStore: sessions, their per-session event seqs and pending
// messages; and the session_events rows and typed events: rows written
// before events were typed read into their bodies, and typed events are
// stored in that same row format.
#include "server/session_store.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "server/sqlite.h"
#include "tests/server/open_store.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using kernelseek::v1::SessionEvent;

TEST_CASE("the store's session schema: migration 3, per-session seqs, pending messages", "[session][store]") {
  testing::TempDir dir;
  std::unique_ptr<StoreFile> file = *StoreFile::Open(dir.File("kseek.db"));
  REQUIRE(*file->SchemaVersion() == StoreFile::LatestSchemaVersion());
  REQUIRE(StoreFile::LatestSchemaVersion() >= 3);
  std::unique_ptr<SessionStore> store = *SessionStore::Open(*file);
  kernelseek::v1::Session session;
  session.set_user("alice");
  session.set_team(kDefaultTeam);
  session.mutable_spec()->set_kernel_name("k.cu");
  session.mutable_spec()->set_kernel_source("src");
  session.set_state(kernelseek::v1::SESSION_STATE_RUNNING);
  int64_t a = *store->InsertSession(session);
  int64_t b = *store->InsertSession(session);
  SessionEvent e;
  e.set_kind("note");
  e.set_author("x");
  e.set_payload_json("{}");
  REQUIRE(*store->AppendSessionEvent(a, e) == 1);
  REQUIRE(*store->AppendSessionEvent(a, e) == 2);
  REQUIRE(*store->AppendSessionEvent(b, e) == 1);
  e.set_kind("human_message");
  int64_t m = *store->AppendHumanMessage(a, e);
  REQUIRE(m == 3);
  REQUIRE(*store->PendingMessageSeqs(a) == std::vector<int64_t>{3});
  REQUIRE(store->MarkMessageDelivered(a, m, 4).ok());
  REQUIRE(store->PendingMessageSeqs(a)->empty());
  REQUIRE(store->ListSessionEvents(a, 1, 10)->size() == 2);
  REQUIRE((*store->GetSession(a))->last_seq() == 3);
  REQUIRE(store->ListSessionFiles(a)->at(0) == std::pair<std::string, std::string>("k.cu", "src"));
  REQUIRE(*store->RunningSessionIds() == std::vector<int64_t>{a, b});
  session.set_id(std::to_string(a));
  session.set_state(kernelseek::v1::SESSION_STATE_SUCCEEDED);
  session.set_best_speedup(1.2345678901234567);
  REQUIRE(store->UpdateSession(session).ok());
  REQUIRE((*store->GetSession(a))->best_speedup() == Approx(1.2345678901234567).epsilon(1e-14));
  REQUIRE(*store->RunningSessionIds() == std::vector<int64_t>{b});
  // Listings leave the source out.
  REQUIRE(store->ListSessions(kDefaultTeam, 10)->at(0).spec().kernel_source().empty());
  // Reopening an existing file keeps everything.
  store.reset();
  store = testing::OpenStore<SessionStore>(dir.File("kseek.db"));
  REQUIRE(store->ListSessionEvents(a, 0, 10)->size() == 3);
}

int64_t NewSession(SessionStore& store) {
  kernelseek::v1::Session session;
  session.set_user("alice");
  session.mutable_spec()->set_kernel_name("k.cu");
  session.set_state(kernelseek::v1::SESSION_STATE_RUNNING);
  absl::StatusOr<int64_t> id = store.InsertSession(session);
  REQUIRE(id.ok());
  return *id;
}

struct Row {
  std::string kind;
  std::string payload;
};

std::vector<Row> RawRows(const std::string& path, int64_t session_id) {
  auto db = Database::Open(path);
  REQUIRE(db.ok());
  auto q = (*db)->Prepare("SELECT kind, payload FROM session_events WHERE session_id = ? ORDER BY seq");
  REQUIRE(q.ok());
  q->Bind(1, session_id);
  std::vector<Row> rows;
  while (q->Step().value()) rows.push_back({q->ColumnString(0), q->ColumnString(1)});
  return rows;
}

TEST_CASE("rows written before events were typed list with their typed bodies", "[session][store]") {
  testing::TempDir dir;
  const std::string path = dir.File("db.sqlite");
  int64_t id = 0;
  {
    auto store = testing::OpenStore<SessionStore>(path);
    id = NewSession(*store);
  }
  {
    // Rows exactly as the server wrote them before this change.
    auto db = Database::Open(path);
    REQUIRE(db.ok());
    const std::vector<Row> old_rows = {
        {"state_change", R"({"state":"RUNNING","status":"started"})"},
        {"tool_result", R"({"content":"bench ok","id":"c4","is_error":false,"name":"bench","signal":"benched",)"
                        R"("speedup":1.25})"},
        {"question", R"({"best_speedup_before":0.9,"from":"bob","message_seq":3,"prompt":"A message from bob: Hi",)"
                     R"("source":"human","text":"Hi","trigger":""})"},
        {"note", R"({"free":"form"})"},
        {"kernel_version", "{not json"},
    };
    int64_t seq = 0;
    for (const Row& row : old_rows) {
      auto q = (*db)->Prepare(
          "INSERT INTO session_events (session_id, seq, ts, kind, author, payload) VALUES (?, ?, 0, ?, 'harness', ?)");
      REQUIRE(q.ok());
      REQUIRE(q->Bind(1, id).Bind(2, ++seq).Bind(3, row.kind).Bind(4, row.payload).Run().ok());
    }
  }
  auto store = testing::OpenStore<SessionStore>(path);
  absl::StatusOr<std::vector<SessionEvent>> events = store->ListSessionEvents(id, 0, 10);
  REQUIRE(events.ok());
  REQUIRE(events->size() == 5);
  const std::vector<SessionEvent>& e = *events;
  CHECK(e[0].state_change().state() == "RUNNING");
  CHECK(e[0].state_change().status() == "started");
  CHECK(e[1].tool_result().signal() == "benched");
  CHECK(e[1].tool_result().speedup() == 1.25);
  CHECK(e[2].question().source() == "human");
  CHECK(e[2].question().message_seq() == 3);
  CHECK(e[2].question().from() == "bob");
  // Kind and payload still come as stored, for clients that read only those.
  CHECK(e[2].kind() == "question");
  CHECK(e[2].payload_json() ==
        R"({"best_speedup_before":0.9,"from":"bob","message_seq":3,"prompt":"A message from bob: Hi",)"
        R"("source":"human","text":"Hi","trigger":""})");
  // A kind the server does not know, and a row that does not fit its kind,
  // are listed as stored, without a body.
  CHECK(e[3].body_case() == SessionEvent::BODY_NOT_SET);
  CHECK(e[3].kind() == "note");
  CHECK(e[3].payload_json() == R"({"free":"form"})");
  CHECK(e[4].body_case() == SessionEvent::BODY_NOT_SET);
  CHECK(e[4].payload_json() == "{not json");
}

TEST_CASE("typed events are stored as the kind and JSON payload rows have always had", "[session][store]") {
  testing::TempDir dir;
  const std::string path = dir.File("db.sqlite");
  auto store = testing::OpenStore<SessionStore>(path);
  const int64_t id = NewSession(*store);

  SessionEvent decision;
  decision.set_author("policy");
  kernelseek::v1::PolicyDecisionEvent* d = decision.mutable_policy_decision();
  d->set_trigger("plateau");
  d->set_mode("bank");
  d->set_layer("LAYER_MEASUREMENT");
  d->set_action("bank_question");
  d->set_question_id("unseen_layer");
  REQUIRE(store->AppendSessionEvent(id, decision).ok());

  SessionEvent version;
  version.set_author("harness");
  version.mutable_kernel_version()->set_version("2");
  version.mutable_kernel_version()->set_status("benchmarked");
  version.mutable_kernel_version()->set_counted(true);
  version.mutable_kernel_version()->set_geomean_speedup(1.5);
  REQUIRE(store->AppendSessionEvent(id, version).ok());

  SessionEvent message;
  message.set_author("bob");
  message.mutable_human_message()->set_text("What did the profiler say?");
  REQUIRE(store->AppendHumanMessage(id, message).ok());

  std::vector<Row> rows = RawRows(path, id);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].kind == "policy_decision");
  CHECK(rows[0].payload ==
        R"({"action":"bank_question","layer":"LAYER_MEASUREMENT","mode":"bank","question_id":"unseen_layer",)"
        R"("trigger":"plateau"})");
  CHECK(rows[1].kind == "kernel_version");
  CHECK(rows[1].payload == R"({"counted":true,"geomean_speedup":1.5,"status":"benchmarked","version":"2"})");
  CHECK(rows[2].kind == "human_message");
  CHECK(rows[2].payload == R"({"text":"What did the profiler say?"})");

  absl::StatusOr<std::vector<SessionEvent>> listed = store->ListSessionEvents(id, 0, 10);
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 3);
  CHECK(listed->at(0).policy_decision().question_id() == "unseen_layer");
  CHECK(listed->at(1).kernel_version().geomean_speedup() == 1.5);
  CHECK(listed->at(2).human_message().text() == "What did the profiler say?");
  CHECK(listed->at(2).author() == "bob");
}

}  // namespace
}  // namespace kseek
