#include "client/session_format.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"
#include "tests/client/session_test_data.h"

namespace kseek {
namespace {

using kernelseek::v1::SessionDetails;
using testing::MakeSessionDetails;
using testing::SessionEpoch;

TEST_CASE("a started session is one summary line, then its id alone on the last line") {
  SessionDetails details = MakeSessionDetails();
  CHECK(FormatSessionStarted(details.session()) ==
        "session s1 running: naive.cu toward attention_fwd on sm_90a: 1.10x cudnn with openai "
        "gpt-test at http://127.0.0.1:8000/v1, questions bank, at most 40 steps\n"
        "s1\n");
  details.mutable_session()->mutable_spec()->mutable_llm()->set_provider("replay");
  details.mutable_session()->mutable_spec()->mutable_llm()->set_replay_trace("/tmp/t.jsonl");
  CHECK(absl::StrContains(FormatSessionStarted(details.session()), " with replay /tmp/t.jsonl,"));
}

TEST_CASE("the sessions table shows steps of the budget and the best speedup against the target") {
  SessionDetails running = MakeSessionDetails();
  SessionDetails fresh = MakeSessionDetails();
  fresh.mutable_session()->set_id("s2");
  fresh.mutable_session()->set_steps(0);
  fresh.mutable_session()->clear_best_version();
  fresh.mutable_session()->set_best_speedup(0);
  fresh.mutable_session()->set_user("bob");
  fresh.mutable_session()->clear_created();
  CHECK(FormatSessionTable({running.session(), fresh.session()}, SessionEpoch() + absl::Hours(3)) ==
        "ID  STATE    PROBLEM        ARCH    STEPS  BEST / TARGET  USER   AGE\n"
        "s1  running  attention_fwd  sm_90a  12/40  1.04x / 1.10x  alice   3h\n"
        "s2  running  attention_fwd  sm_90a   0/40      - / 1.10x  bob      -\n");
  CHECK(FormatSessionTable({}, SessionEpoch()) ==
        "ID  STATE  PROBLEM  ARCH  STEPS  BEST / TARGET  USER  AGE\n");
}

TEST_CASE("session show has the goal, the best version, the speedup history and the questions") {
  std::string text = FormatSessionDetails(MakeSessionDetails(), SessionEpoch() + absl::Minutes(5));
  CHECK(text ==
        "session    s1\n"
        "state      running\n"
        "status     step 12: benchmarking v4\n"
        "goal       attention_fwd on sm_90a: 1.10x cudnn\n"
        "scenarios  verify on all, bench on perf\n"
        "kernel     naive.cu\n"
        "llm        openai gpt-test at http://127.0.0.1:8000/v1\n"
        "questions  bank\n"
        "steps      12/40\n"
        "best       v3 at 1.04x cudnn (target 1.10x, 0.06x to go)\n"
        "user       alice\n"
        "created    2025-01-02 03:04:00 UTC (5m ago)\n"
        "updated    2025-01-02 03:04:09 UTC (4m ago)\n"
        "events     9\n"
        "\n"
        "speedup history (benchmarked versions; * the best):\n"
        "VERSION  PARENT  STATUS       SPEEDUP  TFLOP/s  COUNTED  EVENT\n"
        "v1       -       benchmarked    0.42x    180.2  yes         #3\n"
        "v3 *     v1      benchmarked    1.04x    446.0  yes         #8\n"
        "1 other version(s) did not reach a benchmark (edited, failed to compile or verify)\n"
        "\n"
        "questions asked:\n"
        "#6  plateau  from bank  best 0.42x → 1.04x\n"
        "    Which layer of the system have you not looked at yet?\n"
        "#7  claimed_limit  from human  best 1.04x → 1.04x\n"
        "    What measurement shows that is the ceiling?\n");
}

TEST_CASE("session show names the bench rounds when there are several") {
  SessionDetails details = MakeSessionDetails();
  details.mutable_session()->mutable_spec()->set_bench_rounds(3);
  CHECK_THAT(FormatSessionDetails(details, SessionEpoch()),
             Catch::Contains("scenarios  verify on all, bench on perf, best of 3 rounds\n"));
  details.mutable_session()->mutable_spec()->set_bench_rounds(1);
  CHECK_THAT(FormatSessionDetails(details, SessionEpoch()),
             Catch::Contains("scenarios  verify on all, bench on perf\n"));
}

TEST_CASE("session show of a fresh session says nothing is counted or asked yet") {
  SessionDetails details = MakeSessionDetails();
  details.mutable_session()->clear_best_version();
  details.mutable_session()->set_best_speedup(0);
  details.clear_versions();
  details.clear_questions();
  std::string text = FormatSessionDetails(details, SessionEpoch());
  CHECK(absl::StrContains(text, "\nbest       none counted yet\n"));
  CHECK(absl::StrContains(text,
                          "speedup history (benchmarked versions; * the best):\n"
                          "  no version benchmarked yet\n"));
  CHECK(absl::StrContains(text, "questions asked:\n  none\n"));
}

TEST_CASE("the end line says how the session ended and whether the goal was met") {
  SessionDetails details = MakeSessionDetails(kernelseek::v1::SESSION_STATE_SUCCEEDED);
  details.mutable_session()->set_best_speedup(1.12);
  CHECK(FormatSessionEnd(details.session()) ==
        "session s1 succeeded after 12 steps: best v3 at 1.12x cudnn (target 1.10x, met): goal "
        "met at v3\n");
  details.mutable_session()->set_state(kernelseek::v1::SESSION_STATE_FAILED);
  details.mutable_session()->clear_best_version();
  details.mutable_session()->set_status("LLM endpoint down after 5 attempts");
  CHECK(FormatSessionEnd(details.session()) ==
        "session s1 failed after 12 steps: best none counted yet: LLM endpoint down after 5 "
        "attempts\n");
}

TEST_CASE("labels and speedups read as users type and expect them") {
  CHECK(SessionStateLabel(kernelseek::v1::SESSION_STATE_EXHAUSTED) == "exhausted");
  CHECK(SessionStateLabel(kernelseek::v1::SESSION_STATE_STOPPED) == "stopped");
  CHECK(QuestionModeLabel(kernelseek::v1::QUESTION_MODE_SELF) == "self");
  CHECK(QuestionModeLabel(kernelseek::v1::QUESTION_MODE_OFF) == "off");
  CHECK(FormatSpeedup(1.1) == "1.10x");
  CHECK(FormatSpeedup(0) == "-");
  CHECK(FormatSpeedup(-1) == "-");
}

}  // namespace
}  // namespace kseek
