#include "server/session_manager.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "absl/time/clock.h"
#include "server/llm_endpoints.h"
#include "server/question_bank.h"
#include "server/session_store.h"
#include "tests/server/llm/fake_http_client.h"
#include "tests/server/open_store.h"
#include "tests/server/session_fakes.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using kernelseek::v1::SessionEvent;
using kernelseek::v1::SessionState;
using nlohmann::json;
using testing::Call;
using testing::CannedJobRunner;
using testing::ForwardingLlm;
using testing::ScriptedLlm;
using testing::Turn;

constexpr char kKernel[] = "__global__ void k(float* x) {\n  x[0] = 1.0f;\n}\n";

struct Fixture {
  explicit Fixture(std::vector<absl::StatusOr<llm::ChatResponse>> script, std::vector<double> speedups = {1.0})
      : llm(std::move(script)), jobs(std::move(speedups)) {
    store = testing::OpenStore<SessionStore>(dir.File("kseek.db"));
    problems = *ProblemCatalog::Load(KSEEK_SCENARIOS_DIR);
    bank.emplace(*QuestionBank::LoadDirectory(KSEEK_QUESTION_BANK_DIR));
    manager = MakeManager();
  }
  // With `endpoints`, the LLM configuration goes through the real rules
  // (LlmEndpoints::MakeClient) and the scripted LLM answers.
  std::unique_ptr<SessionManager> MakeManager(const LlmEndpoints* endpoints = nullptr) {
    return std::make_unique<SessionManager>(
        store.get(), &clock, &problems, &*bank, &jobs,
        [this, endpoints](kernelseek::v1::LlmConfig* config,
                          const std::string& api_key) -> absl::StatusOr<std::unique_ptr<llm::LlmClient>> {
          keys_seen.push_back(api_key);
          if (endpoints != nullptr) {
            if (auto made = endpoints->MakeClient(config, api_key); !made.ok()) return made.status();
          }
          return std::unique_ptr<llm::LlmClient>(new ForwardingLlm(&llm));
        });
  }
  static kernelseek::v1::SessionSpec Spec(kernelseek::v1::QuestionMode mode, int max_steps) {
    kernelseek::v1::SessionSpec spec;
    spec.set_problem("attention_fwd");
    spec.set_arch("sm_90a");
    spec.set_kernel_name("naive.cu");
    spec.set_kernel_source(kKernel);
    spec.set_baseline("cudnn");
    spec.set_target_speedup(1.1);
    spec.mutable_llm()->set_provider("openai");
    spec.mutable_llm()->set_model("test-model");
    spec.mutable_llm()->set_base_url("http://127.0.0.1:1/v1");
    spec.set_questions(mode);
    spec.set_max_steps(max_steps);
    return spec;
  }
  kernelseek::v1::Session Wait(const std::string& id) {
    kernelseek::v1::Session session;
    for (int i = 0; i < 400; ++i) {
      session = manager->GetSession(id)->session();
      if (session.state() != kernelseek::v1::SESSION_STATE_RUNNING) break;
      absl::SleepFor(absl::Milliseconds(25));
    }
    return session;
  }
  std::vector<SessionEvent> Events(const std::string& id) { return *manager->Events(id, 0, 10000); }
  std::vector<SessionEvent> EventsOf(const std::string& id, const std::string& kind) {
    std::vector<SessionEvent> out;
    for (SessionEvent& e : Events(id)) {
      if (e.kind() == kind) out.push_back(e);
    }
    return out;
  }

  kseek::testing::TempDir dir;
  FakeClock clock;
  std::unique_ptr<SessionStore> store;
  ProblemCatalog problems;
  std::optional<QuestionBank> bank;
  ScriptedLlm llm;
  CannedJobRunner jobs;
  std::vector<std::string> keys_seen;
  std::unique_ptr<SessionManager> manager;
};

json Payload(const SessionEvent& e) { return json::parse(e.payload_json()); }

TEST_CASE("a session edits, measures, is refused below target, is asked a question, then finishes", "[session]") {
  Fixture f({Turn("Reading the kernel.", {Call("c1", "read_file", R"({"path":"naive.cu"})")}),
             Turn("Editing.", {Call("c2", "edit_file",
                                    R"({"path":"naive.cu","old_text":"x[0] = 1.0f;","new_text":"x[0] = 2.0f;"})")}),
             Turn("", {Call("c3", "compile"), Call("c4", "verify"), Call("c5", "bench")}),
             Turn("Good enough.", {Call("c6", "finish", R"({"summary":"0.9x"})")}),
             Turn("", {Call("c7", "edit_file",
                            R"({"path":"naive.cu","old_text":"x[0] = 2.0f;","new_text":"x[0] = 3.0f;"})"),
                       Call("c8", "verify"), Call("c9", "bench")}),
             Turn("Done.", {Call("c10", "finish", R"({"summary":"1.2x"})")})},
            {0.9, 1.2});
  absl::StatusOr<kernelseek::v1::Session> started =
      f.manager->StartSession("alice", kDefaultTeam, Fixture::Spec(kernelseek::v1::QUESTION_MODE_BANK, 20));
  REQUIRE(started.ok());
  REQUIRE(started->state() == kernelseek::v1::SESSION_STATE_RUNNING);
  kernelseek::v1::Session done = f.Wait(started->id());
  INFO(done.status());
  REQUIRE(done.state() == kernelseek::v1::SESSION_STATE_SUCCEEDED);
  REQUIRE(done.best_speedup() == Approx(1.2));
  REQUIRE(done.steps() == 6);

  // The refusal names the measured gap, and the early finish asked a bank question.
  std::vector<SessionEvent> results = f.EventsOf(started->id(), "tool_result");
  bool refused = false;
  for (const SessionEvent& e : results) {
    if (Payload(e)["name"] == "finish" && Payload(e)["is_error"] == true) {
      refused = true;
      REQUIRE_THAT(Payload(e)["content"].get<std::string>(), Catch::Contains("0.900x") && Catch::Contains("gap"));
    }
  }
  REQUIRE(refused);
  kernelseek::v1::SessionDetails details = *f.manager->GetSession(started->id());
  REQUIRE(details.questions_size() >= 1);
  REQUIRE(details.questions(0).trigger() == "early_finish");
  REQUIRE(details.questions(0).source() == "bank");
  REQUIRE(details.questions(0).best_speedup_before() == Approx(0.9));
  REQUIRE(details.questions(details.questions_size() - 1).best_speedup_after() == Approx(1.2));
  REQUIRE(details.versions_size() == 3);
  REQUIRE(details.versions(1).counted());
  REQUIRE(details.versions(2).counted());
  absl::StatusOr<kernelseek::v1::KernelVersion> best = f.manager->GetBestKernel(started->id());
  REQUIRE(best.ok());
  REQUIRE_THAT(best->source(), Catch::Contains("x[0] = 3.0f;"));

  // The trace: seqs 1..N with no gap, every call answered right after it, and
  // the token usage of each turn recorded.
  std::vector<SessionEvent> events = f.Events(started->id());
  for (size_t i = 0; i < events.size(); ++i) REQUIRE(events[i].seq() == static_cast<int64_t>(i + 1));
  REQUIRE(events.back().kind() == "state_change");
  for (const SessionEvent& e : f.EventsOf(started->id(), "model_message")) {
    REQUIRE(Payload(e)["usage"]["input_tokens"] == 100);
  }
  // The model saw the question as a user message before its next turn.
  std::vector<llm::ChatRequest> requests = f.llm.requests();
  REQUIRE(requests.size() == 6);
  REQUIRE_THAT(requests[4].messages.back().content, Catch::Contains("Question:"));
}

TEST_CASE("a pending human message goes before any bank question, claimed limits are decision points", "[session]") {
  Fixture f({Turn("This kernel is memory-bound, it cannot be faster.", {Call("c1", "read_file", R"({"path":"naive.cu"})")}),
             Turn("We are at peak bandwidth.", {Call("c2", "list_files")}),
             Turn("Thinking.", {Call("c3", "list_files")})});
  f.llm.GateCall(1);
  absl::StatusOr<kernelseek::v1::Session> started =
      f.manager->StartSession("alice", kDefaultTeam, Fixture::Spec(kernelseek::v1::QUESTION_MODE_BANK, 3));
  REQUIRE(started.ok());
  absl::StatusOr<int64_t> posted = f.manager->PostMessage("bob", started->id(), "What did the profiler say?");
  REQUIRE(posted.ok());
  f.llm.Release();
  kernelseek::v1::Session done = f.Wait(started->id());
  REQUIRE(done.state() == kernelseek::v1::SESSION_STATE_EXHAUSTED);
  std::vector<SessionEvent> questions = f.EventsOf(started->id(), "question");
  REQUIRE(questions.size() == 2);
  REQUIRE(Payload(questions[0])["source"] == "human");
  REQUIRE(Payload(questions[0])["text"] == "What did the profiler say?");
  REQUIRE(Payload(questions[0])["trigger"] == "claimed_limit");
  REQUIRE(Payload(questions[1])["source"] == "bank");
  REQUIRE(Payload(questions[1])["trigger"] == "claimed_limit");
  std::vector<SessionEvent> decisions = f.EventsOf(started->id(), "policy_decision");
  REQUIRE(decisions.size() == 2);
  REQUIRE(decisions[0].seq() < questions[0].seq());
  REQUIRE(Payload(decisions[0])["action"] == "human_message");
  REQUIRE(Payload(decisions[1])["action"] == "bank_question");
  REQUIRE(posted.value() < questions[0].seq());
  std::vector<llm::ChatRequest> requests = f.llm.requests();
  REQUIRE_THAT(requests[1].messages.back().content, Catch::Contains("What did the profiler say?"));
  // Modes self and off at the same decision point.
  REQUIRE(f.manager->GetSession(started->id())->questions_size() == 2);
}

TEST_CASE("self mode hands the agent the trigger's questions, off asks nothing", "[session]") {
  for (auto mode : {kernelseek::v1::QUESTION_MODE_SELF, kernelseek::v1::QUESTION_MODE_OFF}) {
    Fixture f({Turn("It is at the hardware limit.", {Call("c1", "list_files")})});
    absl::StatusOr<kernelseek::v1::Session> started =
        f.manager->StartSession("alice", kDefaultTeam, Fixture::Spec(mode, 1));
    REQUIRE(started.ok());
    REQUIRE(f.Wait(started->id()).state() == kernelseek::v1::SESSION_STATE_EXHAUSTED);
    std::vector<SessionEvent> questions = f.EventsOf(started->id(), "question");
    std::vector<SessionEvent> decisions = f.EventsOf(started->id(), "policy_decision");
    REQUIRE(decisions.size() == 1);
    if (mode == kernelseek::v1::QUESTION_MODE_SELF) {
      REQUIRE(questions.size() == 1);
      REQUIRE(Payload(questions[0])["source"] == "self");
      REQUIRE_THAT(Payload(questions[0])["text"].get<std::string>(), Catch::Contains("answer it yourself"));
    } else {
      REQUIRE(questions.empty());
      REQUIRE(Payload(decisions[0])["action"] == "none");
    }
  }
}

TEST_CASE("bad model output gives the model tool errors and the session goes on", "[session]") {
  Fixture f({Turn("", {Call("c1", "edit_file", "{\"path\": \"naive.cu\", "), Call("c2", "rm_rf", "{}"),
                       Call("c3", "edit_file", R"({"path":"naive.cu","old_text":"absent","new_text":"x"})"),
                       Call("c4", "read_file", R"({"path":"../../etc/passwd"})")}),
             absl::ResourceExhaustedError("response from http://x/v1 exceeds 4194304 bytes"),
             Turn("Let me think.")});
  absl::StatusOr<kernelseek::v1::Session> started =
      f.manager->StartSession("alice", kDefaultTeam, Fixture::Spec(kernelseek::v1::QUESTION_MODE_OFF, 3));
  REQUIRE(started.ok());
  kernelseek::v1::Session done = f.Wait(started->id());
  REQUIRE(done.state() == kernelseek::v1::SESSION_STATE_EXHAUSTED);
  std::vector<SessionEvent> results = f.EventsOf(started->id(), "tool_result");
  REQUIRE(results.size() == 4);
  for (const SessionEvent& e : results) REQUIRE(Payload(e)["is_error"] == true);
  REQUIRE_THAT(Payload(results[0])["content"].get<std::string>(), Catch::Contains("not a JSON object"));
  REQUIRE_THAT(Payload(results[1])["content"].get<std::string>(), Catch::Contains("unknown tool"));
  REQUIRE_THAT(Payload(results[2])["content"].get<std::string>(), Catch::Contains("not found"));
  REQUIRE_THAT(Payload(results[3])["content"].get<std::string>(), Catch::Contains("outside the workspace"));
  std::vector<SessionEvent> notes = f.EventsOf(started->id(), "harness_message");
  REQUIRE(notes.size() == 2);
  REQUIRE_THAT(Payload(notes[0])["text"].get<std::string>(), Catch::Contains("discarded"));
  REQUIRE_THAT(Payload(notes[1])["text"].get<std::string>(), Catch::Contains("No tool was called"));
  REQUIRE(f.llm.requests().size() == 3);
}

TEST_CASE("an LLM that stays down fails the session with the reason and loses nothing", "[session]") {
  Fixture f({Turn("Reading.", {Call("c1", "read_file", R"({"path":"naive.cu"})")}),
             absl::UnavailableError("POST http://127.0.0.1:1/v1/chat/completions failed after 5 attempts")});
  absl::StatusOr<kernelseek::v1::Session> started =
      f.manager->StartSession("alice", kDefaultTeam, Fixture::Spec(kernelseek::v1::QUESTION_MODE_BANK, 10));
  REQUIRE(started.ok());
  kernelseek::v1::Session done = f.Wait(started->id());
  REQUIRE(done.state() == kernelseek::v1::SESSION_STATE_FAILED);
  REQUIRE_THAT(done.status(), Catch::Contains("LLM call failed") && Catch::Contains("after 5 attempts"));
  REQUIRE(f.EventsOf(started->id(), "model_message").size() == 1);
  REQUIRE(f.EventsOf(started->id(), "tool_result").size() == 1);
  REQUIRE(f.Events(started->id()).back().kind() == "state_change");
  REQUIRE(f.manager->PostMessage("bob", started->id(), "hello?").status().code() ==
          absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("a stopped session records nothing after the stop", "[session]") {
  Fixture f({Turn("Reading.", {Call("c1", "read_file", R"({"path":"naive.cu"})")})});
  f.llm.GateCall(1);
  absl::StatusOr<kernelseek::v1::Session> started =
      f.manager->StartSession("alice", kDefaultTeam, Fixture::Spec(kernelseek::v1::QUESTION_MODE_BANK, 10));
  REQUIRE(started.ok());
  absl::StatusOr<kernelseek::v1::Session> stopped = f.manager->StopSession("bob", started->id());
  REQUIRE(stopped.ok());
  REQUIRE(stopped->state() == kernelseek::v1::SESSION_STATE_STOPPED);
  f.llm.Release();
  f.manager->Shutdown();
  std::vector<SessionEvent> events = f.Events(started->id());
  REQUIRE(events.back().kind() == "state_change");
  REQUIRE(Payload(events.back())["state"] == "STOPPED");
  REQUIRE(f.EventsOf(started->id(), "model_message").empty());
  REQUIRE(f.manager->GetSession(started->id())->session().state() == kernelseek::v1::SESSION_STATE_STOPPED);
  REQUIRE(f.manager->StopSession("bob", started->id()).status().code() == absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("a restarted server resumes a running session from its last event", "[session]") {
  Fixture f({Turn("Reading.", {Call("c1", "read_file", R"({"path":"naive.cu"})")}),
             Turn("never seen: the server went down during this call")});
  f.llm.GateCall(2);
  absl::StatusOr<kernelseek::v1::Session> started =
      f.manager->StartSession("alice", kDefaultTeam, Fixture::Spec(kernelseek::v1::QUESTION_MODE_BANK, 3));
  REQUIRE(started.ok());
  for (int i = 0; i < 200 && f.llm.calls() < 2; ++i) absl::SleepFor(absl::Milliseconds(25));
  REQUIRE(f.llm.calls() == 2);
  std::thread shutdown([&] { f.manager->Shutdown(); });
  absl::SleepFor(absl::Milliseconds(100));
  f.llm.Release();
  shutdown.join();
  REQUIRE(f.manager->GetSession(started->id())->session().state() == kernelseek::v1::SESSION_STATE_RUNNING);
  const size_t before = f.Events(started->id()).size();

  ScriptedLlm resumed({Turn("Resumed.", {Call("c2", "list_files")}), Turn("Still here.")});
  SessionManager second(f.store.get(), &f.clock, &f.problems, &*f.bank, &f.jobs,
                        [&](kernelseek::v1::LlmConfig*,
                            const std::string&) -> absl::StatusOr<std::unique_ptr<llm::LlmClient>> {
                          return std::unique_ptr<llm::LlmClient>(new ForwardingLlm(&resumed));
                        });
  REQUIRE(second.Recover().ok());
  kernelseek::v1::Session done;
  for (int i = 0; i < 400; ++i) {
    done = second.GetSession(started->id())->session();
    if (done.state() != kernelseek::v1::SESSION_STATE_RUNNING) break;
    absl::SleepFor(absl::Milliseconds(25));
  }
  REQUIRE(done.state() == kernelseek::v1::SESSION_STATE_EXHAUSTED);
  REQUIRE(done.steps() == 3);
  std::vector<llm::ChatRequest> requests = resumed.requests();
  REQUIRE(requests.size() == 2);
  // The first request after the restart carries the whole transcript so far.
  const llm::ChatRequest& first = requests[0];
  REQUIRE(first.messages.size() == 4);  // system, user, assistant turn 1, its tool result
  REQUIRE(first.messages[2].content == "Reading.");
  REQUIRE(first.messages[3].role == llm::ChatRole::kTool);
  REQUIRE_THAT(first.messages[3].content, Catch::Contains("x[0] = 1.0f;"));
  REQUIRE(second.Events(started->id(), 0, 1000)->size() > before);
}

TEST_CASE("bad session specs are refused with the field and nothing is stored", "[session]") {
  Fixture f({});
  auto code = [&](kernelseek::v1::SessionSpec spec) {
    return f.manager->StartSession("alice", kDefaultTeam, spec).status();
  };
  auto spec = [] { return Fixture::Spec(kernelseek::v1::QUESTION_MODE_BANK, 10); };
  kernelseek::v1::SessionSpec s = spec();
  s.set_problem("matmul");
  REQUIRE_THAT(std::string(code(s).message()), Catch::Contains("matmul"));
  s = spec();
  s.set_target_speedup(0);
  REQUIRE(code(s).code() == absl::StatusCode::kInvalidArgument);
  s = spec();
  s.set_max_steps(1001);
  REQUIRE_THAT(std::string(code(s).message()), Catch::Contains("max_steps"));
  s = spec();
  s.set_arch("sm_42");
  REQUIRE(code(s).code() == absl::StatusCode::kInvalidArgument);
  s = spec();
  s.set_baseline("torch");
  REQUIRE_THAT(std::string(code(s).message()), Catch::Contains("torch"));
  s = spec();
  // A source that is not UTF-8 is refused where it goes wrong (issue 12).
  s.set_kernel_source(std::string("// ok\nint x\xff;\n"));
  absl::Status not_utf8 = code(s);
  REQUIRE(not_utf8.code() == absl::StatusCode::kInvalidArgument);
  REQUIRE_THAT(std::string(not_utf8.message()),
               Catch::Contains("not UTF-8") && Catch::Contains("byte 0xFF at byte offset 11 (line 2)"));
  s = spec();
  s.set_kernel_name("../k.cu");
  REQUIRE(code(s).code() == absl::StatusCode::kInvalidArgument);
  s = spec();
  s.set_bench_rounds(11);
  REQUIRE_THAT(std::string(code(s).message()), Catch::Contains("rounds 11 is outside [1, 10]"));
  REQUIRE(f.manager->ListSessions(kDefaultTeam, 10)->empty());
}

// An LLM call that hangs until the call's CancelToken fires (as an endpoint
// that never answers does, with libcurl aborting on the token).
class HangingLlm final : public llm::LlmClient {
 public:
  absl::StatusOr<llm::ChatResponse> Complete(const llm::ChatRequest& request) override {
    ++calls_;
    REQUIRE(request.cancel != nullptr);
    if (request.cancel->SleepFor(absl::Minutes(15))) return absl::DeadlineExceededError("15 minutes passed");
    return absl::CancelledError("cancelled");
  }
  int calls() const { return calls_.load(); }

 private:
  std::atomic<int> calls_ = 0;
};

struct HangingFixture : Fixture {
  HangingFixture() : Fixture({}) {
    manager = std::make_unique<SessionManager>(
        store.get(), &clock, &problems, &*bank, &jobs,
        [this](kernelseek::v1::LlmConfig*, const std::string&) -> absl::StatusOr<std::unique_ptr<llm::LlmClient>> {
          return std::unique_ptr<llm::LlmClient>(new ForwardingLlm(&hanging));
        });
  }
  void AwaitCall() {
    for (int i = 0; i < 400 && hanging.calls() == 0; ++i) absl::SleepFor(absl::Milliseconds(10));
    REQUIRE(hanging.calls() == 1);
  }
  HangingLlm hanging;
};

double SecondsOf(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST_CASE("Shutdown aborts a hanging LLM call at once, records it, and the session stays resumable", "[session]") {
  HangingFixture f;
  absl::StatusOr<kernelseek::v1::Session> started =
      f.manager->StartSession("alice", kDefaultTeam, Fixture::Spec(kernelseek::v1::QUESTION_MODE_BANK, 5));
  REQUIRE(started.ok());
  f.AwaitCall();
  CHECK(SecondsOf([&] { f.manager->Shutdown(); }) < 2.0);
  std::vector<SessionEvent> aborted = f.EventsOf(started->id(), "llm_call_aborted");
  REQUIRE(aborted.size() == 1);
  CHECK_THAT(aborted[0].payload_json(), Catch::Contains("shutting down"));
  CHECK(f.manager->GetSession(started->id())->session().state() == kernelseek::v1::SESSION_STATE_RUNNING);
}

TEST_CASE("stopping a session aborts its hanging LLM call, so a later shutdown does not wait for it", "[session]") {
  // The probe: SIGTERM waited 908 s for the LLM call of a session already stopped.
  HangingFixture f;
  absl::StatusOr<kernelseek::v1::Session> started =
      f.manager->StartSession("alice", kDefaultTeam, Fixture::Spec(kernelseek::v1::QUESTION_MODE_BANK, 5));
  REQUIRE(started.ok());
  f.AwaitCall();
  REQUIRE(f.manager->StopSession("bob", started->id()).ok());
  CHECK(SecondsOf([&] { f.manager->Shutdown(); }) < 2.0);
  CHECK(f.EventsOf(started->id(), "llm_call_aborted").empty());  // nothing after the stop
  CHECK(f.manager->GetSession(started->id())->session().state() == kernelseek::v1::SESSION_STATE_STOPPED);
}

// What the SessionStore writes: the database and its WAL, as bytes.
std::string DatabaseBytes(const kseek::testing::TempDir& dir) {
  std::string all;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::ifstream in(dir.File(std::string("kseek.db") + suffix), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    all += text.str();
  }
  return all;
}

constexpr char kUserKey[] = "sk-user-brought-4f9c1e";

absl::StatusOr<LlmEndpoints> TestEndpoints(llm::HttpClient* http, const Clock* clock) {
  return LlmEndpoints::FromText(
      R"(endpoint { name: "team" provider: "openai" base_url: "https://llm.internal/v1"
                   api_key_env: "TEAM_KEY" models: "m1" models: "m2" }
         user_endpoint_url_prefix: "http://127.0.0.1:")",
      "endpoints.textproto", "", {}, http, clock,
      [](const std::string& name) -> const char* { return name == "TEAM_KEY" ? "sk-admin-team" : nullptr; });
}

TEST_CASE("a user-brought key reaches the LLM client, is never stored, and after a restart the session ends saying "
          "so", "[session]") {
  Fixture f({Turn("Reading.", {Call("c1", "read_file", R"({"path":"naive.cu"})")})});
  llm::FakeHttpClient http;
  absl::StatusOr<LlmEndpoints> endpoints = TestEndpoints(&http, &f.clock);
  REQUIRE(endpoints.ok());
  f.manager = f.MakeManager(&*endpoints);
  f.llm.GateCall(2);
  absl::StatusOr<kernelseek::v1::Session> started =
      f.manager->StartSession("alice", kDefaultTeam, Fixture::Spec(kernelseek::v1::QUESTION_MODE_BANK, 5), kUserKey);
  INFO(started.status());
  REQUIRE(started.ok());
  REQUIRE(f.keys_seen.size() == 2);  // the probe before storing, the loop's client
  CHECK(f.keys_seen[1] == kUserKey);
  for (int i = 0; i < 200 && f.llm.calls() < 2; ++i) absl::SleepFor(absl::Milliseconds(25));
  std::thread shutdown([&] { f.manager->Shutdown(); });
  absl::SleepFor(absl::Milliseconds(100));
  f.llm.Release();
  shutdown.join();

  kernelseek::v1::Session stored = f.store->GetSession(std::stoll(started->id()))->value_or(kernelseek::v1::Session());
  CHECK(stored.spec().llm().key_from_client());
  CHECK(DatabaseBytes(f.dir).find(kUserKey) == std::string::npos);
  for (const SessionEvent& e : f.Events(started->id())) CHECK(e.payload_json().find(kUserKey) == std::string::npos);

  std::unique_ptr<SessionManager> restarted = f.MakeManager(&*endpoints);
  REQUIRE(restarted->Recover().ok());
  kernelseek::v1::Session after = restarted->GetSession(started->id())->session();
  CHECK(after.state() == kernelseek::v1::SESSION_STATE_FAILED);
  CHECK_THAT(after.status(), Catch::Contains("could not resume after a restart") &&
                                 Catch::Contains("came from the client") &&
                                 Catch::Contains("start a new session with the key"));
  CHECK(f.keys_seen.back().empty());
}

TEST_CASE("a session stored with the old LlmConfig (a server variable's name) loads and is ended, not resumed",
          "[session]") {
  Fixture f({});
  llm::FakeHttpClient http;
  absl::StatusOr<LlmEndpoints> endpoints = TestEndpoints(&http, &f.clock);
  REQUIRE(endpoints.ok());
  // As a server before issue 12 stored it: field 4 held the variable's name.
  kernelseek::v1::Session old;
  old.set_user("alice");
  *old.mutable_spec() = Fixture::Spec(kernelseek::v1::QUESTION_MODE_BANK, 5);
  old.mutable_spec()->mutable_llm()->set_base_url("https://api.openai.com/v1");
  old.mutable_spec()->mutable_llm()->set_legacy_api_key_env("OPENAI_API_KEY");
  old.set_state(kernelseek::v1::SESSION_STATE_RUNNING);
  absl::StatusOr<int64_t> id = f.store->InsertSession(old);
  REQUIRE(id.ok());
  SessionEvent prompt;
  prompt.set_author("harness");
  *prompt.mutable_prompt() = AgentLoop::Prompt(old.spec());
  REQUIRE(f.store->AppendSessionEvent(*id, prompt).ok());

  f.manager = f.MakeManager(&*endpoints);
  REQUIRE(f.manager->Recover().ok());
  absl::StatusOr<kernelseek::v1::SessionDetails> details = f.manager->GetSession(std::to_string(*id));
  REQUIRE(details.ok());
  CHECK(details->session().state() == kernelseek::v1::SESSION_STATE_FAILED);
  CHECK_THAT(details->session().status(),
             Catch::Contains("OPENAI_API_KEY") && Catch::Contains("no longer possible"));
  CHECK(details->session().spec().llm().legacy_api_key_env() == "OPENAI_API_KEY");
  CHECK(f.llm.calls() == 0);
}

TEST_CASE("StartSession refuses what a hostile user sends for the LLM, and stores nothing", "[session]") {
  Fixture f({});
  llm::FakeHttpClient http;
  absl::StatusOr<LlmEndpoints> endpoints = TestEndpoints(&http, &f.clock);
  REQUIRE(endpoints.ok());
  f.manager = f.MakeManager(&*endpoints);
  auto start = [&](const std::function<void(kernelseek::v1::LlmConfig*)>& edit, const std::string& key = "") {
    kernelseek::v1::SessionSpec spec = Fixture::Spec(kernelseek::v1::QUESTION_MODE_BANK, 5);
    edit(spec.mutable_llm());
    return f.manager->StartSession("mallory", kDefaultTeam, spec, key).status();
  };
  // Probe: --api-key-env SOME_SERVER_VARIABLE --llm-url http://attacker/...
  absl::Status variable = start([](auto* llm) { llm->set_legacy_api_key_env("PATH"); });
  CHECK(variable.code() == absl::StatusCode::kInvalidArgument);
  absl::Status attacker = start([](auto* llm) { llm->set_base_url("http://attacker.example/v1"); }, "k");
  CHECK(attacker.code() == absl::StatusCode::kPermissionDenied);
  CHECK_THAT(std::string(attacker.message()), Catch::Contains("http://127.0.0.1:"));
  // Probe: --llm replay:/etc/shadow and /dev/zero.
  for (const char* path : {"/etc/shadow", "../../etc/shadow", "/dev/zero", ".hidden"}) {
    INFO(path);
    absl::Status replay = start([&](auto* llm) {
      llm->Clear();
      llm->set_provider("replay");
      llm->set_replay_trace(path);
    });
    CHECK(replay.code() == absl::StatusCode::kInvalidArgument);
  }
  absl::Status huge = start([](auto* llm) {
    llm->Clear();
    llm->set_provider("replay");
    llm->set_replay_jsonl(std::string(kMaxReplayTraceBytes + 1, '\n'));
  });
  CHECK(huge.code() == absl::StatusCode::kInvalidArgument);
  CHECK(start([](auto* llm) { llm->set_base_url("http://127.0.0.1:9/v1"); }, "sk\r\nX-Injected: 1").code() ==
        absl::StatusCode::kInvalidArgument);
  absl::Status unknown = start([](auto* llm) {
    llm->Clear();
    llm->set_endpoint("other");
  });
  CHECK(unknown.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(unknown.message()), Catch::Contains("team"));
  CHECK(start([](auto* llm) {
          llm->Clear();
          llm->set_endpoint("team");
          llm->set_model("m9");
        }).code() == absl::StatusCode::kInvalidArgument);
  CHECK(f.manager->ListSessions(kDefaultTeam, 10)->empty());

  // What is allowed: the admin's endpoint by name (default model), and the
  // user's own under an allowed prefix with its key.
  REQUIRE(start([](auto* llm) {
            llm->Clear();
            llm->set_endpoint("team");
          }).ok());
  REQUIRE(start([](auto* llm) { llm->set_base_url("http://127.0.0.1:9/v1"); }, kUserKey).ok());
  std::vector<kernelseek::v1::Session> sessions = *f.manager->ListSessions(kDefaultTeam, 10);
  REQUIRE(sessions.size() == 2);
  CHECK(sessions[1].spec().llm().model() == "m1");
  CHECK(!sessions[1].spec().llm().key_from_client());
  CHECK(sessions[0].spec().llm().key_from_client());
  f.manager->Shutdown();
}

}  // namespace
}  // namespace kseek
