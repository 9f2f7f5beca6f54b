// Runs the kseek binary's session commands (session start/show/stop,
// sessions, watch, trace, ask, best) as a user would, against a scripted
// server: what they send, print and exit with.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "tests/client/fake_coordinator.h"
#include "tests/client/session_test_data.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using testing::FakeCoordinatorServer;
using testing::SessionWatchScript;

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `kseek ARGS` with KSEEK_TOKEN and KSEEK_SERVER cleared and `env`
// (NAME=VALUE ...) set.
Outcome RunKseek(const std::string& args, const std::string& env = "") {
  testing::TempDir dir;
  std::string command = absl::StrCat("env -u KSEEK_TOKEN -u KSEEK_SERVER ", env, " ", KSEEK_BINARY, " ", args,
                                     " >", dir.File("out"), " 2>", dir.File("err"), " </dev/null");
  int status = std::system(command.c_str());
  REQUIRE(WIFEXITED(status));
  return {WEXITSTATUS(status), ReadAll(dir.File("out")), ReadAll(dir.File("err"))};
}

// A loopback port nothing listens on: bound by the OS, then released.
int ClosedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  socklen_t len = sizeof(addr);
  REQUIRE(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  close(fd);
  return ntohs(addr.sin_port);
}

size_t Count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// A scripted server holding session s1 (in `state`) and its nine-event trace.
struct SessionServer {
  explicit SessionServer(kernelseek::v1::SessionState state) : server("t") {
    server.service().SetSession(testing::MakeSessionDetails(state));
    server.service().SetSessionEvents(testing::MakeTrace());
  }
  std::string flags() const { return absl::StrCat("--server ", server.address(), " --token t"); }
  FakeCoordinatorServer server;
};

TEST_CASE("kseek --help lists the session commands") {
  Outcome o = RunKseek("--help");
  CHECK(o.exit_code == 0);
  for (const char* text : {"\n  session ", "\n  sessions ", "\n  watch ", "\n  trace ", "\n  ask ",
                           "\n  best ", "unknown job or session id"}) {
    CHECK(absl::StrContains(o.out, text));
  }
  Outcome session = RunKseek("help session");
  CHECK(session.exit_code == 0);
  CHECK(absl::StrContains(session.out, "  start  "));
  Outcome start = RunKseek("session start --help");
  CHECK(start.exit_code == 0);
  for (const char* flag : {"--llm-endpoint", "--llm-model", "--llm-url", "--llm-provider", "--api-key-env",
                           "--api-key-file", "--replay-trace", "--replay-file", "--questions", "--max-steps",
                           "--plateau-gain", "--failure-streak", "--verify-scenarios", "kept only in the server's memory",
                           "ends FAILED"}) {
    CHECK(absl::StrContains(start.out, flag));
  }
  Outcome unknown = RunKseek("session frob");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err ==
        "kseek: unknown session subcommand \"frob\" (start, show or stop; see kseek session "
        "--help)\n");
}

TEST_CASE("kseek session start sends the spec and prints a summary, then the id") {
  SessionServer s(kernelseek::v1::SESSION_STATE_RUNNING);
  testing::TempDir dir;
  std::string kernel = dir.File("naive.cu");
  std::ofstream(kernel) << "// the naive kernel\n";
  std::string start =
      absl::StrCat("session start --problem attention_fwd --arch sm_90a --kernel ", kernel,
                   " --baseline fa3 --target 1.10 --llm-endpoint team --llm-model claude-test --questions bank "
                   "--max-steps 40 --plateau 4 --plateau-gain 0.05 --failure-streak 2 --bench-rounds 2 ",
                   s.flags());

  Outcome o = RunKseek(start);
  CHECK(o.exit_code == 0);
  std::vector<std::string> lines = absl::StrSplit(o.out, '\n', absl::SkipEmpty());
  REQUIRE(lines.size() == 2);
  CHECK(absl::StartsWith(lines[0], "session s1 running: naive.cu toward attention_fwd"));
  CHECK(lines[1] == "s1");
  kernelseek::v1::SessionSpec spec = s.server.service().last_session_spec();
  CHECK(spec.kernel_name() == "naive.cu");
  CHECK(spec.kernel_source() == "// the naive kernel\n");
  CHECK(spec.baseline() == "fa3");
  CHECK(spec.target_speedup() == 1.10);
  CHECK(spec.llm().endpoint() == "team");
  CHECK(spec.llm().provider().empty());
  CHECK(spec.llm().model() == "claude-test");
  CHECK(s.server.service().last_llm_api_key().empty());
  CHECK(spec.questions() == kernelseek::v1::QUESTION_MODE_BANK);
  CHECK(spec.max_steps() == 40);
  // Left to the problem's defaults, which the server fills in from its manifest.
  CHECK(spec.verify_scenarios().empty());
  CHECK(spec.bench_scenarios().empty());
  CHECK(spec.bench_rounds() == 2);
  CHECK(spec.policy().plateau_benchmarks() == 4);
  CHECK(spec.policy().plateau_min_gain() == 0.05);
  CHECK(spec.policy().failure_streak() == 2);

  Outcome json = RunKseek(start + " --json");
  CHECK(json.exit_code == 0);
  CHECK(absl::StrContains(json.out, "\"id\": \"s1\""));

  SECTION("bad input is exit 2 before anything is sent") {
    s.server.service().SetSession(testing::MakeSessionDetails());
    Outcome bad = RunKseek(
        absl::StrCat("session start --problem attention_fwd --arch sm_90a --kernel ", kernel,
                     " --target 1.1 --llm-endpoint team --questions always --max-steps 5 ", s.flags()));
    CHECK(bad.exit_code == 2);
    CHECK(bad.err == "kseek: --questions \"always\" is not one of human, bank, self, off\n");
    Outcome missing = RunKseek(absl::StrCat(
        "session start --problem attention_fwd --arch sm_90a --kernel ", dir.File("nope.cu"),
        " --target 1.1 --llm-endpoint team --questions off --max-steps 5 ", s.flags()));
    CHECK(missing.exit_code == 2);
    CHECK(absl::StrContains(missing.err, "nope.cu: No such file or directory"));
  }

  SECTION("a user-brought endpoint's key is read from the CLIENT's environment and sent beside the spec") {
    Outcome own = RunKseek(absl::StrCat(
        "session start --problem attention_fwd --arch sm_90a --kernel ", kernel,
        " --target 1.1 --llm-url https://api.example/v1 --llm-model m1 --api-key-env KSEEK_CLI_TEST_KEY"
        " --questions off --max-steps 5 ",
        s.flags()));
    CHECK(own.exit_code == 2);
    CHECK(own.err == "kseek: --api-key-env: environment variable KSEEK_CLI_TEST_KEY is not set or empty here\n");
    Outcome with_key = RunKseek(absl::StrCat(
        "session start --problem attention_fwd --arch sm_90a --kernel ", kernel,
        " --target 1.1 --llm-url https://api.example/v1 --llm-model m1 --api-key-env KSEEK_CLI_TEST_KEY"
        " --questions off --max-steps 5 ",
        s.flags()), "KSEEK_CLI_TEST_KEY=sk-cli-7f2");
    CHECK(with_key.exit_code == 0);
    kernelseek::v1::SessionSpec own_spec = s.server.service().last_session_spec();
    CHECK(own_spec.llm().provider() == "openai");
    CHECK(own_spec.llm().base_url() == "https://api.example/v1");
    CHECK(own_spec.llm().model() == "m1");
    CHECK(own_spec.DebugString().find("sk-cli-7f2") == std::string::npos);
    CHECK(s.server.service().last_llm_api_key() == "sk-cli-7f2");
  }

  SECTION("an old --llm spelling or a server file for replay is refused with the new way") {
    Outcome old = RunKseek(absl::StrCat("session start --problem attention_fwd --arch sm_90a --kernel ", kernel,
                                        " --target 1.1 --llm openai:m --questions off --max-steps 5 ", s.flags()));
    CHECK(old.exit_code == 2);
    CHECK(absl::StrContains(old.err, "--llm"));
    Outcome path = RunKseek(absl::StrCat("session start --problem attention_fwd --arch sm_90a --kernel ", kernel,
                                         " --target 1.1 --replay-trace /etc/shadow --questions off --max-steps 5 ",
                                         s.flags()));
    CHECK(path.exit_code == 2);
    CHECK(absl::StrContains(path.err, "--replay-trace \"/etc/shadow\" is not a plain name"));
  }
}

TEST_CASE("kseek sessions, session show and session stop through a server") {
  SessionServer s(kernelseek::v1::SESSION_STATE_RUNNING);

  Outcome list = RunKseek(absl::StrCat("sessions --limit 5 ", s.flags()));
  CHECK(list.exit_code == 0);
  CHECK(s.server.service().list_sessions_limit() == 5);
  CHECK(absl::StartsWith(list.out, "ID  STATE    PROBLEM        ARCH    STEPS  BEST / TARGET"));
  CHECK(absl::StrContains(list.out,
                          "\ns1  running  attention_fwd  sm_90a  12/40  1.04x / 1.10x  alice"));

  Outcome show = RunKseek(absl::StrCat("session show s1 ", s.flags()));
  CHECK(show.exit_code == 0);
  CHECK(absl::StrContains(show.out, "best       v3 at 1.04x cudnn (target 1.10x, 0.06x to go)\n"));
  CHECK(absl::StrContains(show.out, "v3 *     v1      benchmarked    1.04x    446.0"));
  CHECK(absl::StrContains(show.out, "#6  plateau  from bank  best 0.42x → 1.04x\n"));

  Outcome json = RunKseek(absl::StrCat("session show s1 --json ", s.flags()));
  CHECK(json.exit_code == 0);
  CHECK(absl::StrContains(json.out, "\"best_speedup_before\": 0.42"));

  Outcome unknown = RunKseek(absl::StrCat("session show s9 ", s.flags()));
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err == "kseek: no session s9\n");

  Outcome stop = RunKseek(absl::StrCat("session stop s1 ", s.flags()));
  CHECK(stop.exit_code == 0);
  CHECK(s.server.service().stop_calls() == 1);
  CHECK(absl::StartsWith(stop.out, "session s1 stopped after 12 steps: best v3 at 1.04x"));
  Outcome cancel = RunKseek(absl::StrCat("cancel --session s1 ", s.flags()));
  CHECK(cancel.exit_code == 0);
  CHECK(s.server.service().stop_calls() == 2);
  CHECK(absl::StartsWith(cancel.out, "session s1 stopped after 12 steps"));

  Outcome bad_token =
      RunKseek(absl::StrCat("sessions --server ", s.server.address(), " --token x"));
  CHECK(bad_token.exit_code == 3);
  CHECK(bad_token.err == "kseek: token rejected by server: unknown token\n");
}

TEST_CASE("kseek watch follows the trace, resumes after a break and ends with the session") {
  SessionServer s(kernelseek::v1::SESSION_STATE_SUCCEEDED);
  s.server.service().SetSessionWatchScripts({
      {.max_events = 4, .end = grpc::Status(grpc::StatusCode::UNAVAILABLE, "server restarting")},
      {.max_events = -1, .end = grpc::Status::OK},
  });
  Outcome o = RunKseek(absl::StrCat("watch s1 ", s.flags()));
  CHECK(o.exit_code == 0);
  // Each event once, though events 1..4 came before the break.
  for (int seq = 1; seq <= 9; ++seq) CHECK(Count("\n" + o.out, absl::StrCat("\n#", seq, " ")) == 1);
  CHECK(absl::StrContains(o.out, "question policy: QUESTION (plateau, bank): Which layer"));
  CHECK(absl::StrContains(o.out, "tool_call model: edit_file(path=\"naive.cu\""));
  CHECK(absl::EndsWith(o.out,
                       "session s1 succeeded after 12 steps: best v3 at 1.04x cudnn "
                       "(target 1.10x, 0.06x to go): goal met at v3\n"));
  CHECK(absl::StartsWith(o.out, "session s1 succeeded: naive.cu toward attention_fwd on sm_90a"));
  CHECK(absl::StrContains(o.err, "resuming after #4"));
  std::vector<kernelseek::v1::WatchSessionRequest> requests =
      s.server.service().session_watch_requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].from_seq() == 0);
  CHECK(requests[0].follow());
  CHECK(requests[1].from_seq() == 4);

  SECTION("--from starts after the given seq; --json prints JSON lines") {
    Outcome from = RunKseek(absl::StrCat("watch s1 --from 7 --json ", s.flags()));
    CHECK(from.exit_code == 0);
    std::vector<std::string> lines = absl::StrSplit(from.out, '\n', absl::SkipEmpty());
    REQUIRE(lines.size() == 2);
    CHECK(nlohmann::json::parse(lines[0])["seq"] == 8);
    CHECK(nlohmann::json::parse(lines[1])["kind"] == "state_change");
    CHECK(absl::StrContains(from.err, "session s1 succeeded"));
    CHECK(s.server.service().session_watch_requests()[2].from_seq() == 7);
  }
  SECTION("an unknown session is exit 2, an unreachable server exit 3, both at once") {
    Outcome unknown = RunKseek(absl::StrCat("watch s9 ", s.flags()));
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.err == "kseek: no session s9\n");
    absl::Time start = absl::Now();
    std::string address = absl::StrCat("127.0.0.1:", ClosedPort());
    Outcome down = RunKseek(absl::StrCat("watch s1 --server ", address, " --token t"));
    CHECK(down.exit_code == 3);
    CHECK(absl::StartsWith(down.err, absl::StrCat("kseek: cannot reach server at ", address)));
    CHECK(absl::Now() - start < absl::Seconds(10));
  }
}

TEST_CASE("kseek trace exports the whole trace as JSON Lines or Markdown") {
  SessionServer s(kernelseek::v1::SESSION_STATE_RUNNING);
  testing::TempDir dir;
  std::string file = dir.File("trace.jsonl");

  Outcome o = RunKseek(absl::StrCat("trace s1 --format jsonl -o ", file, " ", s.flags()));
  CHECK(o.exit_code == 0);
  CHECK(o.out.empty());
  CHECK(o.err == absl::StrCat("kseek: wrote 9 events to ", file, "\n"));
  std::vector<std::string> lines = absl::StrSplit(ReadAll(file), '\n', absl::SkipEmpty());
  REQUIRE(lines.size() == 9);
  for (size_t i = 0; i < lines.size(); ++i) {
    nlohmann::json event = nlohmann::json::parse(lines[i]);
    CHECK(event["seq"] == static_cast<int>(i + 1));
    CHECK(event["payload"].is_object());
  }
  REQUIRE(s.server.service().session_watch_requests().size() == 1);
  CHECK(s.server.service().session_watch_requests()[0].from_seq() == 0);
  CHECK(!s.server.service().session_watch_requests()[0].follow());

  Outcome md = RunKseek(absl::StrCat("trace s1 --format md ", s.flags()));
  CHECK(md.exit_code == 0);
  CHECK(absl::StartsWith(md.out, "# KernelSeek session s1\n"));
  CHECK(absl::StrContains(md.out, "\n## #6 Question (plateau, bank)\n"));

  Outcome no_format = RunKseek(absl::StrCat("trace s1 ", s.flags()));
  CHECK(no_format.exit_code == 2);
  CHECK(no_format.err == "kseek: --format is required: jsonl or md\n");
}

TEST_CASE("kseek ask posts the text and prints its seq") {
  SessionServer s(kernelseek::v1::SESSION_STATE_RUNNING);
  Outcome o = RunKseek(
      absl::StrCat("ask s1 \"What does the SASS say the inner loop issues?\" ", s.flags()));
  CHECK(o.exit_code == 0);
  CHECK(o.out == "10\n");
  REQUIRE(s.server.service().posted_messages().size() == 1);
  CHECK(s.server.service().posted_messages()[0].session_id() == "s1");
  CHECK(s.server.service().posted_messages()[0].text() ==
        "What does the SASS say the inner loop issues?");
  Outcome empty = RunKseek(absl::StrCat("ask s1 \" \" ", s.flags()));
  CHECK(empty.exit_code == 2);
  Outcome unknown = RunKseek(absl::StrCat("ask s9 hello ", s.flags()));
  CHECK(unknown.exit_code == 2);
}

TEST_CASE("kseek best writes the best kernel and will not overwrite without --force") {
  SessionServer s(kernelseek::v1::SESSION_STATE_RUNNING);
  testing::TempDir dir;
  std::string file = dir.File("best.cu");

  SECTION("no counted version yet is a server-side refusal, exit 3") {
    Outcome o = RunKseek(absl::StrCat("best s1 -o ", file, " ", s.flags()));
    CHECK(o.exit_code == 3);
    CHECK(o.err ==
          "kseek: server rejected the request: session s1 has no counted kernel version yet\n");
  }
  SECTION("a counted version is written") {
    kernelseek::v1::KernelVersion best;
    best.set_id("v3");
    best.set_geomean_speedup(1.04);
    best.set_geomean_tflops(446);
    best.set_source("// v3\n");
    s.server.service().SetBestKernel(best);

    Outcome o = RunKseek(absl::StrCat("best s1 -o ", file, " ", s.flags()));
    CHECK(o.exit_code == 0);
    CHECK(o.out ==
          absl::StrCat("v3: 1.04x geomean speedup, 446.0 TFLOP/s, written to ", file, "\n"));
    CHECK(ReadAll(file) == "// v3\n");

    std::ofstream(file) << "// mine\n";
    Outcome refused = RunKseek(absl::StrCat("best s1 -o ", file, " ", s.flags()));
    CHECK(refused.exit_code == 2);
    CHECK(refused.err == absl::StrCat("kseek: ", file, " exists; pass --force to overwrite it\n"));
    CHECK(ReadAll(file) == "// mine\n");

    Outcome forced = RunKseek(absl::StrCat("best s1 --output ", file, " --force ", s.flags()));
    CHECK(forced.exit_code == 0);
    CHECK(ReadAll(file) == "// v3\n");

    Outcome to_stdout = RunKseek(absl::StrCat("best s1 -o - ", s.flags()));
    CHECK(to_stdout.exit_code == 0);
    CHECK(to_stdout.out == "// v3\n");
    CHECK(absl::StartsWith(to_stdout.err, "v3: 1.04x"));
  }
  SECTION("-o is required") {
    Outcome o = RunKseek(absl::StrCat("best s1 ", s.flags()));
    CHECK(o.exit_code == 2);
    CHECK(o.err == "kseek: best wants -o FILE (- for stdout)\n");
  }
}

}  // namespace
}  // namespace kseek
