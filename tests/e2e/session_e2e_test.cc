// End to end: an optimization session through the real kseek-server, a real
// compile worker (real nvcc) and tests/fake_llm_server.py speaking the real
// OpenAI and Anthropic wire formats on loopback. No GPU: verify and bench
// cannot run here, so the session progresses with compile only and finish is
// refused for want of a measured version.
#include <signal.h>
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>

#include <grpcpp/grpcpp.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/protocol.h"
#include "common/version.h"
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
    context->AddMetadata(kProtocolMetadataKey, absl::StrCat(kProtocolVersion));
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

// --llm-endpoints for a server whose users may bring endpoints on loopback,
// plus `extra` (more endpoints).
std::vector<std::string> EndpointFlags(LocalStack& stack, const std::string& extra = "") {
  const std::string path = stack.dir().File("endpoints.textproto");
  WriteFile(path, "user_endpoint_url_prefix: \"http://127.0.0.1:\"\n" + extra);
  return {"--llm-endpoints", path};
}

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Every byte the server wrote to its database files.
std::string DatabaseBytes(LocalStack& stack) {
  std::string all;
  for (const char* suffix : {"", "-wal", "-shm"}) all += ReadFile(stack.dir().File(std::string("kseek.db") + suffix));
  return all;
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

// The session id `kseek session start` prints on its last line.
std::string StartedSessionId(const SubprocessResult& started) {
  const std::string& out = started.stdout_text;
  return std::string(absl::StripAsciiWhitespace(out.substr(out.rfind('\n', out.size() - 2) + 1)));
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
  stack.StartServer(Concat({"--llm-attempts", "3", "--llm-backoff-ms", "50"}, EndpointFlags(stack)));
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
  stack.StartServer(Concat({"--llm-attempts", "2", "--llm-backoff-ms", "50"}, EndpointFlags(stack)));
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

// Issue 12's probes, against the real server: each now fails closed.
TEST_CASE("StartSession refuses a server variable as the key, a URL the admin did not allow, and server files",
          "[e2e][session]") {
  LocalStack stack;
  stack.StartServer({}, {{"KSEEK_E2E_SERVER_SECRET", "server-secret-value"}});
  SessionClient client(stack.address(), stack.user_token());
  kernelseek::v1::Session session;

  // --api-key-env SOME_SERVER_VARIABLE --llm-url http://attacker/...: the old
  // field is refused, and without a user_endpoint_url_prefix no URL is posted to.
  kernelseek::v1::SessionSpec spec = Spec("openai", "http://127.0.0.1:9/v1", 5);
  spec.mutable_llm()->set_legacy_api_key_env("KSEEK_E2E_SERVER_SECRET");
  grpc::Status variable = client.Start(spec, &session);
  CHECK(variable.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK_THAT(variable.error_message(), Catch::Contains("no longer possible"));
  grpc::Status url = client.Start(Spec("openai", "http://127.0.0.1:9/v1", 5), &session);
  CHECK(url.error_code() == grpc::StatusCode::PERMISSION_DENIED);
  CHECK_THAT(url.error_message(), Catch::Contains("does not let users bring LLM endpoints"));

  // --llm replay:/etc/shadow (an existence oracle) and /dev/zero (1 GB).
  for (const char* trace : {"/etc/shadow", "/etc/does-not-exist", "/dev/zero", "../../../etc/passwd"}) {
    INFO(trace);
    kernelseek::v1::SessionSpec replay = Spec("replay", "", 5);
    replay.mutable_llm()->clear_model();
    replay.mutable_llm()->clear_base_url();
    replay.mutable_llm()->set_replay_trace(trace);
    grpc::Status status = client.Start(replay, &session);
    CHECK(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
    CHECK_THAT(status.error_message(), Catch::Contains("not a plain file name"));
  }
  // A kernel source that is not UTF-8.
  kernelseek::v1::SessionSpec binary = Spec("openai", "http://127.0.0.1:9/v1", 5);
  binary.set_kernel_source(std::string("__global__ void k() {}\n\xc3\x28"));
  grpc::Status utf8 = client.Start(binary, &session);
  CHECK(utf8.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK_THAT(utf8.error_message(), Catch::Contains("not UTF-8") && Catch::Contains("byte offset 23"));

  const std::string log = ReadFile(stack.server()->log_path());
  CHECK(log.find("server-secret-value") == std::string::npos);
}

TEST_CASE("an admin endpoint: the server's key goes to the admin's URL, and the endpoint's error text only to the "
          "server log", "[e2e][session]") {
  LocalStack stack;
  json script = json::array({
      Reply("Listing.", "c1", "list_files", json::object()),
      {{"error", {{"status", 403}, {"message", "org-internal-7731 may not use this model"}}}},
  });
  std::string script_path = stack.dir().File("script.json");
  WriteFile(script_path, script.dump());
  auto llm = llm::FakeLlmServerProcess::Start(script_path, {"--api-key", "sk-admin-e2e"});
  REQUIRE(llm.ok());
  stack.StartServer(EndpointFlags(stack, absl::StrCat("endpoint { name: \"team\" provider: \"openai\" base_url: \"",
                                                      (*llm)->base_url(),
                                                      "\" api_key_env: \"KSEEK_E2E_ADMIN_KEY\" models: \"fake-model\" }\n")),
                    {{"KSEEK_E2E_ADMIN_KEY", "sk-admin-e2e"}});
  SubprocessResult started =
      stack.Kseek({"session", "start", "--problem", "attention_fwd", "--arch", "sm_90a", "--kernel",
                   std::string(KSEEK_SOURCE_DIR) + "/kernels/attention_fwd/naive.cu", "--target", "1.1",
                   "--llm-endpoint", "team", "--questions", "off", "--max-steps", "5"});
  INFO(started.stderr_text);
  REQUIRE(started.exit_code == 0);
  const std::string id = StartedSessionId(started);
  SessionClient client(stack.address(), stack.user_token());
  kernelseek::v1::Session done = WaitForEnd(client, id);
  INFO(done.status());
  REQUIRE(done.state() == kernelseek::v1::SESSION_STATE_FAILED);
  CHECK(done.steps() == 1);  // the admin's key worked for the first call
  CHECK_THAT(done.status(), Catch::Contains("HTTP 403; see the server log"));
  CHECK(done.status().find("org-internal-7731") == std::string::npos);
  CHECK(done.status().find((*llm)->base_url()) == std::string::npos);
  for (const SessionEvent& e : client.Watch(id, 0, false)) {
    CHECK(e.payload_json().find("org-internal-7731") == std::string::npos);
  }
  CHECK_THAT(ReadFile(stack.server()->log_path()), Catch::Contains("org-internal-7731"));
}

TEST_CASE("a user-brought key is read by the CLI, used, and never stored or logged", "[e2e][session]") {
  LocalStack stack;
  constexpr char kKey[] = "sk-user-e2e-93b1d7";
  json script = json::array({Reply("Listing.", "c1", "list_files", json::object())});
  std::string script_path = stack.dir().File("script.json");
  WriteFile(script_path, script.dump());
  // The fake endpoint answers 401 to any other key.
  auto llm = llm::FakeLlmServerProcess::Start(script_path, {"--api-key", kKey});
  REQUIRE(llm.ok());
  stack.StartServer(EndpointFlags(stack));
  SubprocessResult started = stack.Kseek(
      {"session", "start", "--problem", "attention_fwd", "--arch", "sm_90a", "--kernel",
       std::string(KSEEK_SOURCE_DIR) + "/kernels/attention_fwd/naive.cu", "--target", "1.1", "--llm-url",
       (*llm)->base_url(), "--llm-model", "fake-model", "--api-key-env", "MY_LLM_KEY", "--questions", "off",
       "--max-steps", "5"},
      "", {{"MY_LLM_KEY", kKey}});
  INFO(started.stderr_text);
  REQUIRE(started.exit_code == 0);
  const std::string id = StartedSessionId(started);
  SessionClient client(stack.address(), stack.user_token());
  // The first turn came back (the key was right); the second call finds the
  // script used up, so the session ends.
  kernelseek::v1::Session done = WaitForEnd(client, id);
  CHECK(done.steps() == 1);
  CHECK(DatabaseBytes(stack).find(kKey) == std::string::npos);
  CHECK(ReadFile(stack.server()->log_path()).find(kKey) == std::string::npos);
}

TEST_CASE("a running session with a user-brought key ends FAILED after a restart, saying it needs the key",
          "[e2e][session]") {
  LocalStack stack;
  constexpr char kKey[] = "sk-user-e2e-restart";
  json script = json::array({json{{"reply", {{"content", "thinking"}}}, {"delay_s", 3600}}});
  std::string script_path = stack.dir().File("script.json");
  WriteFile(script_path, script.dump());
  auto llm = llm::FakeLlmServerProcess::Start(script_path, {"--request-log", stack.dir().File("requests.jsonl")});
  REQUIRE(llm.ok());
  stack.StartServer(EndpointFlags(stack));
  SessionClient client(stack.address(), stack.user_token());
  kernelseek::v1::Session session;
  kernelseek::v1::StartSessionRequest request;
  grpc::ClientContext context;
  client.Prepare(&context);
  *request.mutable_spec() = Spec("openai", (*llm)->base_url(), 5);
  request.set_llm_api_key(kKey);
  auto stub = kernelseek::v1::Coordinator::NewStub(
      grpc::CreateChannel(stack.address(), grpc::InsecureChannelCredentials()));
  REQUIRE(stub->StartSession(&context, request, &session).ok());
  REQUIRE(WaitFor([&] { return !ReadFile(stack.dir().File("requests.jsonl")).empty(); }, absl::Seconds(20)));
  stack.KillServer(SIGTERM);
  stack.StartServer(EndpointFlags(stack));
  SessionClient again(stack.address(), stack.user_token());
  kernelseek::v1::Session after = again.Get(session.id()).session();
  CHECK(after.state() == kernelseek::v1::SESSION_STATE_FAILED);
  CHECK_THAT(after.status(), Catch::Contains("came from the client") && Catch::Contains("start a new session"));
  CHECK(DatabaseBytes(stack).find(kKey) == std::string::npos);
}

// Probe: SIGTERM waited 908 s for a hanging LLM call.
TEST_CASE("SIGTERM ends the server within 10 s while an LLM call hangs, the call is recorded as aborted and the "
          "session stays resumable", "[e2e][session]") {
  LocalStack stack;
  json script = json::array({json{{"reply", {{"content", "never sent"}}}, {"delay_s", 3600}}});
  std::string script_path = stack.dir().File("script.json");
  WriteFile(script_path, script.dump());
  auto llm = llm::FakeLlmServerProcess::Start(script_path, {"--request-log", stack.dir().File("requests.jsonl")});
  REQUIRE(llm.ok());
  // Long timeouts and many attempts: only the abort can end the call in time.
  stack.StartServer(Concat({"--llm-timeout", "3600", "--llm-attempts", "10"}, EndpointFlags(stack)));
  SessionClient client(stack.address(), stack.user_token());
  kernelseek::v1::Session session;
  REQUIRE(client.Start(Spec("openai", (*llm)->base_url(), 5), &session).ok());
  REQUIRE(WaitFor([&] { return !ReadFile(stack.dir().File("requests.jsonl")).empty(); }, absl::Seconds(20)));

  const auto start = std::chrono::steady_clock::now();
  stack.server()->Signal(SIGTERM);
  const int exit_code = stack.server()->Wait();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string log = ReadFile(stack.server()->log_path());
  INFO(log);
  CHECK(seconds < 10.0);
  CHECK(exit_code == 0);
  CHECK_THAT(log, Catch::Contains("stopped"));

  std::vector<std::pair<int64_t, std::string>> stored = StoredTrace(stack.dir().File("kseek.db"), session.id());
  REQUIRE(!stored.empty());
  CHECK(stored.back().second == "llm_call_aborted");
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(stack.dir().File("kseek.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT state FROM sessions WHERE id = ?", -1, &stmt, nullptr) == SQLITE_OK);
  sqlite3_bind_int64(stmt, 1, std::stoll(session.id()));
  REQUIRE(sqlite3_step(stmt) == SQLITE_ROW);
  CHECK(sqlite3_column_int(stmt, 0) == kernelseek::v1::SESSION_STATE_RUNNING);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

TEST_CASE("kseek cancel --session stops a running session once and says how it ended when asked again",
          "[e2e][session]") {
  LocalStack stack;
  // The model never answers: the session is running for as long as the test needs.
  json script = json::array({json{{"reply", {{"content", "never sent"}}}, {"delay_s", 3600}}});
  std::string script_path = stack.dir().File("script.json");
  WriteFile(script_path, script.dump());
  auto llm = llm::FakeLlmServerProcess::Start(script_path, {"--request-log", stack.dir().File("requests.jsonl")});
  REQUIRE(llm.ok());
  stack.StartServer(Concat({"--llm-timeout", "3600"}, EndpointFlags(stack)));
  SessionClient client(stack.address(), stack.user_token());
  kernelseek::v1::Session session;
  REQUIRE(client.Start(Spec("openai", (*llm)->base_url(), 5), &session).ok());
  REQUIRE(WaitFor([&] { return !ReadFile(stack.dir().File("requests.jsonl")).empty(); }, absl::Seconds(20)));

  SubprocessResult stopped = stack.Kseek({"cancel", "--session", session.id()});
  INFO(stopped.stdout_text << stopped.stderr_text);
  CHECK(stopped.exit_code == 0);
  CHECK_THAT(stopped.stdout_text, Catch::StartsWith(absl::StrCat("session ", session.id(), " stopped")));
  CHECK(client.Get(session.id()).session().state() == kernelseek::v1::SESSION_STATE_STOPPED);

  SubprocessResult again = stack.Kseek({"cancel", "--session", session.id()});
  CHECK(again.exit_code == 3);
  CHECK_THAT(again.stderr_text, Catch::Contains(absl::StrCat("session ", session.id(), " has already ended (STOPPED")));
  // Without --session the same id is a job's, and there is no such job.
  SubprocessResult as_job = stack.Kseek({"cancel", session.id()});
  CHECK(as_job.exit_code == 2);
  CHECK_THAT(as_job.stderr_text, Catch::Contains(absl::StrCat("no job with id ", session.id())));
}

}  // namespace
}  // namespace kseek::testing
