// Hand-built sessions and traces shared by the CLI's session tests: one
// session s1 on attention_fwd with three versions and two questions, and a
// nine-event trace with one event of each kind, payloads as the server
// writes them (a model turn is chat_json.h's ChatResponse JSON).
#ifndef KERNELSEEK_TESTS_CLIENT_SESSION_TEST_DATA_H_
#define KERNELSEEK_TESTS_CLIENT_SESSION_TEST_DATA_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "proto/kernelseek.pb.h"

namespace kseek::testing {

// 2025-01-02 03:04:00 UTC: sessions are created then, event N is N seconds later.
inline absl::Time SessionEpoch() {
  return absl::FromCivil(absl::CivilSecond(2025, 1, 2, 3, 4, 0), absl::UTCTimeZone());
}

inline void SetTime(absl::Time t, google::protobuf::Timestamp* ts) {
  ts->set_seconds(absl::ToUnixSeconds(t));
  ts->set_nanos(0);
}

inline kernelseek::v1::SessionDetails MakeSessionDetails(
    kernelseek::v1::SessionState state = kernelseek::v1::SESSION_STATE_RUNNING) {
  kernelseek::v1::SessionDetails details;
  kernelseek::v1::Session* s = details.mutable_session();
  s->set_id("s1");
  s->set_state(state);
  s->set_user("alice");
  s->set_steps(12);
  s->set_best_version("v3");
  s->set_best_speedup(1.04);
  s->set_status(state == kernelseek::v1::SESSION_STATE_RUNNING ? "step 12: benchmarking v4"
                                                               : "goal met at v3");
  s->set_last_seq(9);
  SetTime(SessionEpoch(), s->mutable_created());
  SetTime(SessionEpoch() + absl::Seconds(9), s->mutable_updated());
  kernelseek::v1::SessionSpec* spec = s->mutable_spec();
  spec->set_problem("attention_fwd");
  spec->set_arch("sm_90a");
  spec->set_kernel_name("naive.cu");
  spec->set_baseline("cudnn");
  spec->set_target_speedup(1.10);
  spec->mutable_llm()->set_provider("openai");
  spec->mutable_llm()->set_model("gpt-test");
  spec->mutable_llm()->set_base_url("http://127.0.0.1:8000/v1");
  spec->set_questions(kernelseek::v1::QUESTION_MODE_BANK);
  spec->set_max_steps(40);
  spec->set_verify_scenarios("all");
  spec->set_bench_scenarios("perf");

  auto add_version = [&](const char* id, const char* parent, const char* status, double speedup,
                         double tflops, bool counted, int64_t seq) {
    kernelseek::v1::KernelVersion* v = details.add_versions();
    v->set_id(id);
    v->set_parent(parent);
    v->set_status(status);
    v->set_geomean_speedup(speedup);
    v->set_geomean_tflops(tflops);
    v->set_counted(counted);
    v->set_seq(seq);
  };
  add_version("v1", "", "benchmarked", 0.42, 180.25, true, 3);
  add_version("v2", "v1", "compile_failed", 0, 0, false, 5);
  add_version("v3", "v1", "benchmarked", 1.04, 446.0, true, 8);

  kernelseek::v1::QuestionAsked* q = details.add_questions();
  q->set_seq(6);
  q->set_trigger("plateau");
  q->set_source("bank");
  q->set_text("Which layer of the system have you not looked at yet?");
  q->set_best_speedup_before(0.42);
  q->set_best_speedup_after(1.04);
  q = details.add_questions();
  q->set_seq(7);
  q->set_trigger("claimed_limit");
  q->set_source("human");
  q->set_text("What measurement shows that is the ceiling?");
  q->set_best_speedup_before(1.04);
  q->set_best_speedup_after(1.04);
  return details;
}

inline kernelseek::v1::SessionEvent MakeEvent(int64_t seq, std::string kind, std::string author,
                                              std::string payload_json) {
  kernelseek::v1::SessionEvent event;
  event.set_session_id("s1");
  event.set_seq(seq);
  SetTime(SessionEpoch() + absl::Seconds(seq), event.mutable_time());
  event.set_kind(std::move(kind));
  event.set_author(std::move(author));
  event.set_payload_json(std::move(payload_json));
  return event;
}

inline std::vector<kernelseek::v1::SessionEvent> MakeTrace() {
  return {
      MakeEvent(1, "state_change", "harness", R"({"state":"running","status":"started"})"),
      MakeEvent(2, "model_message", "model",
                R"({"message":{"role":"assistant",)"
                R"("content":"I will read the kernel first.\nThen compile it.",)"
                R"("tool_calls":[{"id":"c1","name":"read_file",)"
                R"("arguments":"{\"path\":\"naive.cu\"}"}]},)"
                R"("stop_reason":"tool_use","model":"gpt-test",)"
                R"("usage":{"input_tokens":120,"output_tokens":30}})"),
      MakeEvent(3, "tool_call", "model",
                R"({"id":"c1","name":"edit_file","arguments":"{\"path\":\"naive.cu\",)"
                R"(\"search\":\"for (int i = 0;\",)"
                R"(\"replace\":\"#pragma unroll\\nfor (int i = 0;\"}"})"),
      MakeEvent(4, "tool_result", "harness",
                R"({"tool_call_id":"c1","name":"compile",)"
                R"("content":"compiled\nregisters 128\nspills 0\nsmem 48 KiB\nHGMMA 64",)"
                R"("is_error":false})"),
      MakeEvent(5, "kernel_version", "harness",
                R"({"id":"v3","parent":"v1","status":"benchmarked",)"
                R"("geomean_speedup":1.04,"geomean_tflops":446.0})"),
      MakeEvent(6, "question", "policy",
                R"({"trigger":"plateau","source":"bank",)"
                R"("text":"Which layer of the system have you not looked at yet?"})"),
      MakeEvent(7, "human_message", "alice",
                R"({"text":"What measurement shows that is the ceiling?"})"),
      MakeEvent(8, "policy_decision", "policy",
                R"({"decision":"ask","trigger":"claimed_limit",)"
                R"("text":"the model claimed memory-bound"})"),
      MakeEvent(9, "state_change", "harness", R"({"state":"succeeded","status":"goal met at v3"})"),
  };
}

}  // namespace kseek::testing

#endif  // KERNELSEEK_TESTS_CLIENT_SESSION_TEST_DATA_H_
