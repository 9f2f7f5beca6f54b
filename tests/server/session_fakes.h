// Fakes for session tests: a scripted LlmClient and a JobRunner with canned
// compile/verify/bench results, so a whole session runs in-process with no
// GPU, no worker and no network. Both are thread-safe.
#ifndef KERNELSEEK_TESTS_SERVER_SESSION_FAKES_H_
#define KERNELSEEK_TESTS_SERVER_SESSION_FAKES_H_

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "server/job_runner.h"
#include "server/llm/llm_client.h"

namespace kseek::testing {

// Returns the scripted turns in order; OUT_OF_RANGE-style UNAVAILABLE once
// they are used up. Records every request.
class ScriptedLlm final : public llm::LlmClient {
 public:
  explicit ScriptedLlm(std::vector<absl::StatusOr<llm::ChatResponse>> turns) : turns_(turns.begin(), turns.end()) {}

  // Call number `call` (1-based) waits until Release().
  void GateCall(int call) {
    absl::MutexLock lock(&mu_);
    gate_call_ = call;
  }
  void Release() {
    absl::MutexLock lock(&mu_);
    released_ = true;
  }
  int calls() {
    absl::MutexLock lock(&mu_);
    return static_cast<int>(requests_.size());
  }

  absl::StatusOr<llm::ChatResponse> Complete(const llm::ChatRequest& request) override {
    absl::MutexLock lock(&mu_);
    requests_.push_back(request);
    if (static_cast<int>(requests_.size()) == gate_call_) {
      mu_.Await(absl::Condition(&released_));
    }
    if (turns_.empty()) return absl::UnavailableError("script exhausted");
    absl::StatusOr<llm::ChatResponse> next = turns_.front();
    turns_.pop_front();
    return next;
  }
  std::vector<llm::ChatRequest> requests() {
    absl::MutexLock lock(&mu_);
    return requests_;
  }

 private:
  absl::Mutex mu_;
  std::deque<absl::StatusOr<llm::ChatResponse>> turns_ ABSL_GUARDED_BY(mu_);
  std::vector<llm::ChatRequest> requests_ ABSL_GUARDED_BY(mu_);
  int gate_call_ ABSL_GUARDED_BY(mu_) = 0;
  bool released_ ABSL_GUARDED_BY(mu_) = false;
};

// Hands out clients that all forward to one LlmClient (a ScriptedLlm), for a
// SessionManager's factory (it makes a client to check the config, then one
// to run the session).
class ForwardingLlm final : public llm::LlmClient {
 public:
  explicit ForwardingLlm(llm::LlmClient* target) : target_(target) {}
  absl::StatusOr<llm::ChatResponse> Complete(const llm::ChatRequest& request) override {
    return target_->Complete(request);
  }

 private:
  llm::LlmClient* target_;
};

inline llm::ChatResponse Turn(std::string text, std::vector<llm::ToolCall> calls = {}) {
  llm::ChatResponse r;
  r.message = llm::AssistantMessage(std::move(text), std::move(calls));
  r.stop_reason = r.message.tool_calls.empty() ? llm::StopReason::kEndTurn : llm::StopReason::kToolUse;
  r.usage = {100, 20};
  r.model = "scripted";
  return r;
}

inline llm::ToolCall Call(std::string id, std::string name, std::string arguments = "{}") {
  return llm::ToolCall{std::move(id), std::move(name), std::move(arguments)};
}

// Compile always succeeds (a compile error when the source contains
// "SYNTAX_ERROR"); verify passes unless the source contains "WRONG"; bench
// returns the next speedup of `speedups` (the last one repeats).
class CannedJobRunner final : public JobRunner {
 public:
  explicit CannedJobRunner(std::vector<double> speedups = {1.0}) : speedups_(std::move(speedups)) {}

  absl::StatusOr<kernelseek::v1::Job> Run(const std::string& user, const std::string& team,
                                          kernelseek::v1::JobSpec spec,
                                          const std::function<bool()>& cancelled) override {
    absl::MutexLock lock(&mu_);
    specs_.push_back(spec);
    kernelseek::v1::Job job;
    job.set_id(std::to_string(specs_.size()));
    job.set_user(user);
    job.set_team(team);
    job.set_state(kernelseek::v1::JOB_STATE_SUCCEEDED);
    kernelseek::v1::CompileResult compile;
    compile.set_success(spec.source().find("SYNTAX_ERROR") == std::string::npos);
    if (!compile.success()) {
      kernelseek::v1::Diagnostic* d = compile.add_diagnostics();
      d->set_file(spec.source_name());
      d->set_line(3);
      d->set_severity(kernelseek::v1::Diagnostic::SEVERITY_ERROR);
      d->set_message("identifier \"SYNTAX_ERROR\" is undefined");
    } else {
      kernelseek::v1::KernelResources* r = compile.add_resources();
      r->set_function("attention_fwd_kernel");
      r->set_arch(spec.compile().arch());
      r->set_registers(96);
      kernelseek::v1::SassSummary* s = compile.add_sass();
      s->set_function("attention_fwd_kernel");
      s->set_total(1234);
      kernelseek::v1::InstructionCount* c = s->add_classes();
      c->set_name("HMMA");
      c->set_count(64);
    }
    if (spec.kind() == kernelseek::v1::JOB_KIND_COMPILE) {
      *job.mutable_result()->mutable_compile() = compile;
      return job;
    }
    kernelseek::v1::RunResult* run = job.mutable_result()->mutable_run();
    *run->mutable_compile() = compile;
    if (!compile.success()) return job;
    const bool wrong = spec.source().find("WRONG") != std::string::npos;
    kernelseek::v1::ScenarioResult* sc = run->add_scenarios();
    sc->set_id("b1_h8_s1024_d128");
    sc->set_passed(!wrong);
    if (wrong) sc->set_reason("max error 0.31 > bar 0.02 in o");
    run->set_passed(wrong ? 0 : 1);
    run->set_failed(wrong ? 1 : 0);
    run->set_gpu("NVIDIA H200");
    if (spec.kind() == kernelseek::v1::JOB_KIND_BENCH && !wrong) {
      const double speedup = speedups_[std::min(bench_count_, speedups_.size() - 1)];
      ++bench_count_;
      sc->set_median_ms(1.0 / speedup);
      sc->set_baseline_median_ms(1.0);
      sc->set_speedup(speedup);
      run->set_geomean_speedup(speedup);
      run->set_geomean_tflops(300 * speedup);
      run->set_baseline("cudnn test");
    }
    return job;
  }

  // Every job it was given, in order.
  std::vector<kernelseek::v1::JobSpec> specs() {
    absl::MutexLock lock(&mu_);
    return specs_;
  }

 private:
  absl::Mutex mu_;
  std::vector<double> speedups_;
  size_t bench_count_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<kernelseek::v1::JobSpec> specs_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kseek::testing

#endif  // KERNELSEEK_TESTS_SERVER_SESSION_FAKES_H_
