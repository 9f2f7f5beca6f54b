// End to end: an optimization session through the real kseek-server, a real
// compile worker (real nvcc) and tests/fake_llm_server.py speaking the real
// OpenAI and Anthropic wire formats on loopback. No GPU: verify and bench
// cannot run here, so the session progresses with compile only and finish is
// refused for want of a measured version.
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "proto/kernelseek.grpc.pb.h"
#include "tests/e2e/local_stack.h"
#include "tests/server/llm/fake_llm_server_process.h"

namespace kseek::testing {
namespace {

using kernelseek::v1::SessionEvent;
using nlohmann::json;

class SessionClient {
 public:
  SessionClient(const std::string& address, std::string token)
      : stub_(kernelseek::v1::Coordinator::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()))),
        token_(std::move(token)) {}

  void Prepare(grpc::ClientContext* context) {
    context->AddMetadata("authorization", "Bearer " + token_);
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
  }
  grpc::Status Start(const kernelseek::v1::SessionSpec& spec, kernelseek::v1::Session* out) {
    grpc::ClientContext context;
    Prepare(&context);
    kernelseek::v1::StartSessionRequest request;
    *request.mutable_spec() = spec;
    return stub_->StartSession(&context, request, out);
  }
  grpc::Status Post(const std::string& id, const std::string& text, int64_t* seq) {
    grpc::ClientContext context;
    Prepare(&context);
    kernelseek::v1::PostMessageRequest request;
    request.set_session_id(id);
    request.set_text(text);
    kernelseek::v1::PostMessageResponse response;
    grpc::Status status = stub_->PostMessage(&context, request, &response);
    *seq = response.seq();
    return status;
  }
  kernelseek::v1::SessionDetails Get(const std::string& id) {
    grpc::ClientContext context;
    Prepare(&context);
    kernelseek::v1::GetSessionRequest request;
    request.set_session_id(id);
    kernelseek::v1::SessionDetails details;
    grpc::Status status = stub_->GetSession(&context, request, &details);
    REQUIRE(status.ok());
    return details;
  }
  std::vector<SessionEvent> Watch(const std::string& id, int64_t from_seq, bool follow) {
    grpc::ClientContext context;
    Prepare(&context);
    kernelseek::v1::WatchSessionRequest request;
    request.set_session_id(id);
    request.set_from_seq(from_seq);
    request.set_follow(follow);
    std::unique_ptr<grpc::ClientReader<SessionEvent>> reader = stub_->WatchSession(&context, request);
    std::vector<SessionEvent> events;
    SessionEvent event;
    while (reader->Read(&event)) events.push_back(event);
    grpc::Status status = reader->Finish();
    INFO(status.error_message());
    REQUIRE(status.ok());
    return events;
  }

 private:
  std::unique_ptr<kernelseek::v1::Coordinator::Stub> stub_;
  std::string token_;
};

// (seq, kind) of every stored event of the session, read from the SQLite file.
std::vector<std::pair<int64_t, std::string>> StoredTrace(const std::string& db_path, const std::string& session_id) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT seq, kind FROM session_events WHERE session_id = ? ORDER BY seq", -1, &stmt,
                             nullptr) == SQLITE_OK);
  sqlite3_bind_int64(stmt, 1, std::stoll(session_id));
  std::vector<std::pair<int64_t, std::string>> rows;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    rows.emplace_back(sqlite3_column_int64(stmt, 0), reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1)));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

kernelseek::v1::SessionSpec Spec(const std::string& provider, const std::string& base_url, int max_steps) {
  kernelseek::v1::SessionSpec spec;
  spec.set_problem("attention_fwd");
  spec.set_arch("sm_90a");
  spec.set_kernel_name("naive.cu");
  spec.set_kernel_source(ReadFile(std::string(KSEEK_SOURCE_DIR) + "/kernels/attention_fwd/naive.cu"));
  spec.set_baseline("cudnn");
  spec.set_target_speedup(1.10);
  spec.mutable_llm()->set_provider(provider);
  spec.mutable_llm()->set_model("fake-model");
  spec.mutable_llm()->set_base_url(base_url);
  spec.set_questions(kernelseek::v1::QUESTION_MODE_BANK);
  spec.set_max_steps(max_steps);
  return spec;
}

json Reply(const std::string& content, const std::string& id, const std::string& name, json arguments) {
  return {{"reply", {{"content", content}, {"tool_calls", {{{"id", id}, {"name", name}, {"arguments", arguments}}}}}},
          {"usage", {{"input_tokens", 1000}, {"output_tokens", 50}}}};
}

kernelseek::v1::Session WaitForEnd(SessionClient& client, const std::string& id) {
  kernelseek::v1::Session session;
  WaitFor(
      [&] {
        session = client.Get(id).session();
        return session.state() != kernelseek::v1::SESSION_STATE_RUNNING;
      },
      absl::Seconds(150));
  return session;
}

TEST_CASE("a session reads, edits and compiles the kernel, is questioned by a human and the bank, and the trace "
          "holds it all", "[e2e][session]") {
  const std::string provider = GENERATE(std::string("openai"), std::string("anthropic"));
  INFO("provider " << provider);
  LocalStack stack;
  stack.StartServer({"--llm-attempts", "3", "--llm-backoff-ms", "50"});
  stack.StartWorker("cpu-1");

  json script = json::array({
      {{"error", {{"status", 500}, {"message", "scripted hiccup"}}}},
      Reply("Let me read the kernel.", "c1", "read_file", {{"path", "naive.cu"}}),
      Reply("I will annotate the accumulators.", "c2", "edit_file",
            {{"path", "naive.cu"},
             {"old_text", "float m[kRowsPerWarp], l[kRowsPerWarp], acc[kRowsPerWarp][kCols];"},
             {"new_text", "float m[kRowsPerWarp], l[kRowsPerWarp], acc[kRowsPerWarp][kCols];  // running state"}}),
      Reply("Compiling.", "c3", "compile", json::object()),
      Reply("This is memory-bound, it cannot be faster.", "c4", "list_files", json::object()),
      Reply("We are at peak bandwidth, so I am done.", "c5", "finish", {{"summary", "at the limit"}}),
      Reply("Reconsidering.", "c6", "list_files", json::object()),
  });
  std::string script_path = stack.dir().File("script.json");
  WriteFile(script_path, script.dump());
  auto llm = llm::FakeLlmServerProcess::Start(script_path, {"--request-log", stack.dir().File("requests.jsonl")});
  REQUIRE(llm.ok());

  SessionClient client(stack.address(), stack.user_token());
  kernelseek::v1::Session session;
  grpc::Status started = client.Start(Spec(provider, (*llm)->base_url(), 6), &session);
  INFO(started.error_message());
  REQUIRE(started.ok());
  int64_t message_seq = 0;
  REQUIRE(client.Post(session.id(), "Which measurement shows that limit?", &message_seq).ok());

  // Following the live stream until the session ends gets every event.
  std::vector<SessionEvent> live = client.Watch(session.id(), 0, /*follow=*/true);
  kernelseek::v1::Session done = WaitForEnd(client, session.id());
  INFO(ReadFile(stack.server()->log_path()));
  INFO(done.status());
  REQUIRE(done.state() == kernelseek::v1::SESSION_STATE_EXHAUSTED);
  REQUIRE(done.steps() == 6);

  std::vector<std::pair<int64_t, std::string>> stored = StoredTrace(stack.dir().File("kseek.db"), session.id());
  REQUIRE(live.size() == stored.size());
  for (size_t i = 0; i < stored.size(); ++i) {
    REQUIRE(stored[i].first == static_cast<int64_t>(i + 1));
    REQUIRE(live[i].seq() == stored[i].first);
    REQUIRE(live[i].kind() == stored[i].second);
  }
  // Resuming from a seq streams exactly the rest.
  std::vector<SessionEvent> rest = client.Watch(session.id(), 10, /*follow=*/false);
  REQUIRE(rest.size() == stored.size() - 10);
  REQUIRE(rest.front().seq() == 11);

  std::vector<json> results;
  std::vector<json> questions;
  std::vector<int64_t> question_seqs;
  for (const SessionEvent& e : live) {
    json payload = json::parse(e.payload_json());
    if (e.kind() == "tool_result") results.push_back(payload);
    if (e.kind() == "question") {
      questions.push_back(payload);
      question_seqs.push_back(e.seq());
    }
  }
  REQUIRE(results.size() == 6);
  REQUIRE_THAT(results[0]["content"].get<std::string>(), Catch::Contains("extern \"C\""));
  REQUIRE(results[1]["is_error"] == false);
  // The real nvcc built the edited kernel on the worker.
  INFO(results[2].dump());
  REQUIRE(results[2]["signal"] == "compile_ok");
  REQUIRE_THAT(results[2]["content"].get<std::string>(), Catch::Contains("registers"));
  REQUIRE(results[4]["is_error"] == true);
  REQUIRE_THAT(results[4]["content"].get<std::string>(),
               Catch::Contains("finish refused") && Catch::Contains("no version has been measured"));

  // The human message went first (at the claimed limit), the bank after it (at the early finish).
  REQUIRE(questions.size() == 2);
  REQUIRE(questions[0]["source"] == "human");
  REQUIRE(questions[0]["trigger"] == "claimed_limit");
  REQUIRE(questions[0]["text"] == "Which measurement shows that limit?");
  REQUIRE(message_seq < question_seqs[0]);
  REQUIRE(questions[1]["source"] == "bank");
  REQUIRE(questions[1]["trigger"] == "early_finish");

  kernelseek::v1::SessionDetails details = client.Get(session.id());
  REQUIRE(details.versions_size() == 2);
  REQUIRE(details.versions(1).status() == "compiled");
  REQUIRE(details.questions_size() == 2);

  // The model saw the human question on the wire, before the bank question.
  std::string requests = ReadFile(stack.dir().File("requests.jsonl"));
  size_t human_at = requests.find("Which measurement shows that limit?");
  REQUIRE(human_at != std::string::npos);
  REQUIRE(requests.find(questions[1]["text"].get<std::string>()) > human_at);
}

TEST_CASE("an LLM endpoint that is down: retried, then the session fails clearly with nothing lost",
          "[e2e][session]") {
  LocalStack stack;
  stack.StartServer({"--llm-attempts", "2", "--llm-backoff-ms", "50"});
  SessionClient client(stack.address(), stack.user_token());
  kernelseek::v1::Session session;
  // Port 1 on loopback: nothing listens there.
  REQUIRE(client.Start(Spec("openai", "http://127.0.0.1:1/v1", 5), &session).ok());
  kernelseek::v1::Session done = WaitForEnd(client, session.id());
  REQUIRE(done.state() == kernelseek::v1::SESSION_STATE_FAILED);
  REQUIRE_THAT(done.status(), Catch::Contains("LLM call failed") && Catch::Contains("after 2 attempts"));
  std::vector<SessionEvent> events = client.Watch(session.id(), 0, /*follow=*/false);
  REQUIRE(events.front().kind() == "state_change");
  REQUIRE(events.back().kind() == "state_change");
  REQUIRE_THAT(events.back().payload_json(), Catch::Contains("FAILED"));
  REQUIRE(client.Get(session.id()).versions_size() == 1);  // the starting kernel is kept
}

TEST_CASE("StartSession refuses an API key variable the server does not have", "[e2e][session]") {
  LocalStack stack;
  stack.StartServer();
  SessionClient client(stack.address(), stack.user_token());
  kernelseek::v1::SessionSpec spec = Spec("anthropic", "http://127.0.0.1:1/v1", 5);
  spec.mutable_llm()->set_api_key_env("KSEEK_E2E_UNSET_API_KEY");
  kernelseek::v1::Session session;
  grpc::Status status = client.Start(spec, &session);
  REQUIRE(status.error_code() == grpc::StatusCode::FAILED_PRECONDITION);
  REQUIRE_THAT(status.error_message(), Catch::Contains("KSEEK_E2E_UNSET_API_KEY"));
}

}  // namespace
}  // namespace kseek::testing
