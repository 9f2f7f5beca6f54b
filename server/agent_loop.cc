#include "server/agent_loop.h"

#include <google/protobuf/util/time_util.h>

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/log.h"
#include "common/session_event.h"
#include "server/llm/chat_json.h"

namespace kseek {
namespace {

using kernelseek::v1::Session;
using kernelseek::v1::SessionEvent;
using kernelseek::v1::SessionSpec;
using kernelseek::v1::Trigger;

int64_t ParseId(const std::string& id) {
  int64_t value = 0;
  return absl::SimpleAtoi(id, &value) ? value : 0;
}

google::protobuf::Timestamp ToTimestamp(absl::Time t) {
  return google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(t));
}

std::string StateName(kernelseek::v1::SessionState state) {
  std::string name = kernelseek::v1::SessionState_Name(state);
  return name.substr(std::string("SESSION_STATE_").size());
}

// Which of two decision points of one turn is acted on: the one that says
// most about what the agent should reconsider.
int Priority(Trigger t) {
  switch (t) {
    case kernelseek::v1::TRIGGER_EARLY_FINISH: return 5;
    case kernelseek::v1::TRIGGER_REPEATED_FAILURE: return 4;
    case kernelseek::v1::TRIGGER_CLAIMED_LIMIT: return 3;
    case kernelseek::v1::TRIGGER_PLATEAU: return 2;
    case kernelseek::v1::TRIGGER_LARGE_GAIN: return 1;
    default: return 0;
  }
}

void Prefer(std::optional<Trigger>* current, std::optional<Trigger> candidate) {
  if (candidate.has_value() && (!current->has_value() || Priority(*candidate) > Priority(**current))) {
    *current = candidate;
  }
}

}  // namespace

AgentLoop::AgentLoop(SessionStore* store, const Clock* clock, const QuestionBank* bank, JobRunner* jobs,
                     std::unique_ptr<llm::LlmClient> llm, Session session, std::function<void()> on_event)
    : store_(store),
      clock_(clock),
      llm_(std::move(llm)),
      on_event_(std::move(on_event)),
      session_id_(ParseId(session.id())),
      session_(session),
      tools_(store, jobs, ParseId(session.id()), session.user(), session.team(), session.spec(),
             [this](const std::string& author, SessionEvent event) { return Append(author, std::move(event)); }),
      policy_(session.spec().policy()),
      questioner_(session.spec().questions(), bank) {}

kernelseek::v1::PromptEvent AgentLoop::Prompt(const SessionSpec& spec) {
  std::vector<std::string> tools;
  for (const llm::ToolDefinition& d : AgentTools::Definitions()) tools.push_back(absl::StrCat("- ", d.name, ": ", d.description));
  std::string system = absl::StrFormat(
      "You are improving the performance of a CUDA kernel.\n"
      "Problem: %s. Target architecture: %s.\n"
      "Goal: a geometric-mean speedup of at least %.3fx over the baseline \"%s\" on the benchmark scenarios \"%s\", "
      "while passing every verification scenario \"%s\".\n"
      "Workspace: the kernel is the file %s. Keep it one .cu file using only CUDA C++ and inline PTX, with the same "
      "extern \"C\" launch function.\n"
      "Tools:\n%s\n"
      "Rules: every number comes from the harness, which compiles, verifies and benchmarks on real workers; claim "
      "nothing you have not measured. Every edit of the kernel makes a new version; a version counts only when it "
      "compiled, passed every verification scenario and was benchmarked. finish is accepted only when a counted "
      "version meets the target. You have %d model turns.",
      spec.problem(), spec.arch(), spec.target_speedup(), spec.baseline(), spec.bench_scenarios(),
      spec.verify_scenarios(), spec.kernel_name(), absl::StrJoin(tools, "\n"), spec.max_steps());
  std::string user = absl::StrCat("Begin: read ", spec.kernel_name(), " and make it faster.");
  kernelseek::v1::PromptEvent prompt;
  prompt.set_system(system);
  prompt.set_user(user);
  return prompt;
}

absl::StatusOr<int64_t> AgentLoop::Append(const std::string& author, SessionEvent event) {
  event.set_author(author);
  *event.mutable_time() = ToTimestamp(clock_->Now());
  absl::StatusOr<int64_t> seq;
  {
    absl::MutexLock lock(&mu_);
    if (ended_) return absl::CancelledError(absl::StrCat("session ", session_id_, " has ended"));
    seq = store_->AppendSessionEvent(session_id_, event);
  }
  if (seq.ok() && on_event_) on_event_();
  return seq;
}

void AgentLoop::SaveProgress() {
  session_.set_best_version(tools_.best_version());
  session_.set_best_speedup(tools_.best_speedup());
  *session_.mutable_updated() = ToTimestamp(clock_->Now());
  absl::MutexLock lock(&mu_);
  if (ended_) return;
  if (absl::Status s = store_->UpdateSession(session_); !s.ok()) {
    Log(absl::StrCat("session ", session_id_, ": saving progress: ", s.message()));
  }
}

void AgentLoop::Finish(kernelseek::v1::SessionState state, const std::string& status) {
  SaveProgress();
  SessionEvent event;
  event.set_author("harness");
  event.mutable_state_change()->set_state(StateName(state));
  event.mutable_state_change()->set_status(status);
  *event.mutable_time() = ToTimestamp(clock_->Now());
  {
    absl::MutexLock lock(&mu_);
    if (ended_) return;
    ended_ = true;
    session_.set_state(state);
    session_.set_status(status);
    if (absl::Status s = store_->AppendSessionEvent(session_id_, event).status(); !s.ok()) {
      Log(absl::StrCat("session ", session_id_, ": recording the end: ", s.message()));
    }
    if (absl::Status s = store_->UpdateSession(session_); !s.ok()) {
      Log(absl::StrCat("session ", session_id_, ": recording the end: ", s.message()));
    }
  }
  Log(absl::StrCat("session ", session_id_, " ", StateName(state), ": ", status));
  if (on_event_) on_event_();
}

absl::StatusOr<Session> AgentLoop::Stop(const std::string& user) {
  stop_requested_ = true;
  llm_cancel_.Cancel();
  absl::MutexLock lock(&mu_);
  absl::StatusOr<std::optional<Session>> stored = store_->GetSession(session_id_);
  if (!stored.ok()) return stored.status();
  if (!stored->has_value()) return absl::NotFoundError(absl::StrCat("session ", session_id_, " not found"));
  Session session = **stored;
  if (ended_) return session;
  ended_ = true;
  const std::string status = absl::StrCat("stopped by ", user);
  SessionEvent event;
  event.set_author(user);
  event.mutable_state_change()->set_state("STOPPED");
  event.mutable_state_change()->set_status(status);
  *event.mutable_time() = ToTimestamp(clock_->Now());
  absl::StatusOr<int64_t> seq = store_->AppendSessionEvent(session_id_, event);
  if (!seq.ok()) return seq.status();
  session.set_state(kernelseek::v1::SESSION_STATE_STOPPED);
  session.set_status(status);
  *session.mutable_updated() = ToTimestamp(clock_->Now());
  if (absl::Status s = store_->UpdateSession(session); !s.ok()) return s;
  session.set_last_seq(*seq);
  if (on_event_) on_event_();
  return session;
}

bool AgentLoop::ended() {
  absl::MutexLock lock(&mu_);
  return ended_;
}

absl::Status AgentLoop::Load() {
  if (absl::Status s = tools_.Load(); !s.ok()) return s;
  transcript_.clear();
  asked_bank_ids_.clear();
  session_.set_steps(0);
  int64_t after = 0;
  while (true) {
    absl::StatusOr<std::vector<SessionEvent>> events = store_->ListSessionEvents(session_id_, after, 500);
    if (!events.ok()) return events.status();
    if (events->empty()) break;
    for (const SessionEvent& event : *events) {
      if (absl::Status s = Replay(event); !s.ok()) {
        return absl::DataLossError(absl::StrCat("session ", session_id_, " event ", event.seq(), ": ", s.message()));
      }
      after = event.seq();
    }
  }
  if (transcript_.empty()) return absl::DataLossError(absl::StrCat("session ", session_id_, " has no prompt event"));
  return absl::OkStatus();
}

absl::Status AgentLoop::Replay(const SessionEvent& event) {
  switch (event.body_case()) {
    case SessionEvent::kPrompt:
      transcript_.push_back(llm::SystemMessage(event.prompt().system()));
      transcript_.push_back(llm::UserMessage(event.prompt().user()));
      break;
    case SessionEvent::kModelMessage: {
      absl::StatusOr<llm::ChatResponse> response = llm::ChatResponseFromEvent(event.model_message());
      if (!response.ok()) return response.status();
      policy_.OnModelText(response->message.content);
      transcript_.push_back(response->message);
      session_.set_steps(session_.steps() + 1);
      break;
    }
    case SessionEvent::kToolResult: {
      const kernelseek::v1::ToolResultEvent& result = event.tool_result();
      transcript_.push_back(llm::ToolResultMessage(result.id(), result.content(), result.is_error()));
      policy_.OnToolOutcome(result.name(), ToolSignalFromName(result.signal()), result.speedup());
      break;
    }
    case SessionEvent::kQuestion: {
      const kernelseek::v1::QuestionEvent& question = event.question();
      transcript_.push_back(llm::UserMessage(question.prompt()));
      if (question.source() == "bank") asked_bank_ids_.push_back(question.question_id());
      break;
    }
    case SessionEvent::kHarnessMessage:
      transcript_.push_back(llm::UserMessage(event.harness_message().text()));
      break;
    case SessionEvent::kSkippedTurn:
      session_.set_steps(session_.steps() + 1);
      break;
    case SessionEvent::BODY_NOT_SET: {
      // The store lists a row that does not fit its kind without a body; say
      // why. Kinds the loop does not know change nothing.
      SessionEvent row = event;
      return SetBodyFromPayload(&row);
    }
    default:
      break;
  }
  return absl::OkStatus();
}

void AgentLoop::Run() {
  // A crash between a tool call and its result leaves calls unanswered; both
  // wire formats need an answer for every call.
  size_t last_assistant = transcript_.size();
  for (size_t i = transcript_.size(); i-- > 0;) {
    if (transcript_[i].role == llm::ChatRole::kAssistant) {
      last_assistant = i;
      break;
    }
  }
  if (last_assistant < transcript_.size()) {
    std::vector<llm::ToolCall> calls = transcript_[last_assistant].tool_calls;
    for (const llm::ToolCall& call : calls) {
      bool answered = false;
      for (size_t i = last_assistant + 1; i < transcript_.size(); ++i) {
        if (transcript_[i].role == llm::ChatRole::kTool && transcript_[i].tool_call_id == call.id) answered = true;
      }
      if (answered) continue;
      const std::string text = "not run: the server restarted while this call was pending; call it again if needed";
      SessionEvent event;
      kernelseek::v1::ToolResultEvent* result = event.mutable_tool_result();
      result->set_id(call.id);
      result->set_name(call.name);
      result->set_content(text);
      result->set_is_error(true);
      result->set_signal(ToolSignalName(ToolSignal::kNone));
      if (!Append("harness", std::move(event)).ok()) return;
      transcript_.push_back(llm::ToolResultMessage(call.id, text, true));
    }
  }
  while (!cancelled() && Step()) {
  }
}

bool AgentLoop::Step() {
  const SessionSpec& spec = session_.spec();
  if (session_.steps() >= spec.max_steps()) {
    Finish(kernelseek::v1::SESSION_STATE_EXHAUSTED,
           absl::StrFormat("the budget of %d model turns is spent; best %.3fx, target %.3fx", spec.max_steps(),
                           tools_.best_speedup(), spec.target_speedup()));
    return false;
  }
  if (questioner_.DeliversBetweenDecisionPoints()) {
    if (absl::Status s = DeliverHumanMessages(); !s.ok()) {
      if (!cancelled()) Finish(kernelseek::v1::SESSION_STATE_FAILED, absl::StrCat("store: ", s.message()));
      return false;
    }
  }
  llm::ChatRequest request;
  request.messages = transcript_;
  request.tools = AgentTools::Definitions();
  request.max_output_tokens = spec.llm().max_tokens();
  request.cancel = &llm_cancel_;
  absl::StatusOr<llm::ChatResponse> response = llm_->Complete(request);
  if (cancelled()) {
    // Only a shutdown leaves the session running, so only then is there a
    // trace to note it in (a stopped session takes no more events).
    if (shutdown_ && !response.ok() && response.status().code() == absl::StatusCode::kCancelled) {
      SessionEvent event;
      event.mutable_llm_call_aborted()->set_reason("the server is shutting down");
      event.mutable_llm_call_aborted()->set_resumes("at the next start of the server");
      Append("harness", std::move(event)).IgnoreError();
    }
    return false;
  }
  if (!response.ok()) {
    if (response.status().code() == absl::StatusCode::kResourceExhausted) {
      // The reply itself was too large to take: tell the model and go on; the
      // turn counts against the budget so this cannot loop forever.
      SessionEvent event;
      event.mutable_skipped_turn()->set_error(std::string(response.status().message()));
      if (!Append("harness", std::move(event)).ok()) return false;
      session_.set_steps(session_.steps() + 1);
      SaveProgress();
      return AddHarnessMessage(absl::StrCat("Your last reply was discarded: ", response.status().message(),
                                            ". Keep replies short; write large files in parts."))
          .ok();
    }
    Finish(kernelseek::v1::SESSION_STATE_FAILED,
           absl::StrCat("the LLM call failed (", absl::StatusCodeToString(response.status().code()),
                        "): ", response.status().message()));
    return false;
  }
  llm::ChatResponse& turn = *response;
  if (turn.message.content.size() > kMaxModelTextBytes) {
    const size_t total = turn.message.content.size();
    turn.message.content.resize(kMaxModelTextBytes);
    absl::StrAppend(&turn.message.content, "\n[cut by the harness: ", total - kMaxModelTextBytes, " more bytes]");
  }
  SessionEvent model_event;
  *model_event.mutable_model_message() = llm::ChatResponseToEvent(turn);
  if (!Append("model", std::move(model_event)).ok()) return false;
  session_.set_steps(session_.steps() + 1);
  transcript_.push_back(turn.message);
  SaveProgress();

  std::optional<Trigger> trigger;
  Prefer(&trigger, policy_.OnModelText(turn.message.content));
  if (turn.message.tool_calls.empty()) {
    std::string nudge = turn.stop_reason == llm::StopReason::kMaxTokens
                            ? "Your reply was cut at the output limit. Continue with the tools, in smaller steps."
                            : "No tool was called. Continue with the tools; call finish(summary) when a measured "
                              "version meets the target.";
    if (!AddHarnessMessage(nudge).ok()) return false;
  }
  for (const llm::ToolCall& call : turn.message.tool_calls) {
    std::string arguments = call.arguments;
    if (arguments.size() > kMaxModelTextBytes) arguments = arguments.substr(0, kMaxModelTextBytes) + "[cut]";
    SessionEvent call_event;
    call_event.mutable_tool_call()->set_id(call.id);
    call_event.mutable_tool_call()->set_name(call.name);
    call_event.mutable_tool_call()->set_arguments(arguments);
    absl::StatusOr<int64_t> call_seq = Append("model", std::move(call_event));
    if (!call_seq.ok()) return false;
    absl::StatusOr<ToolOutcome> outcome = tools_.Execute(call, *call_seq, [this] { return cancelled(); });
    if (!outcome.ok()) {
      if (!cancelled()) {
        Finish(kernelseek::v1::SESSION_STATE_FAILED,
               absl::StrCat("tool ", call.name, " could not record its work: ", outcome.status().message()));
      }
      return false;
    }
    SessionEvent result_event;
    kernelseek::v1::ToolResultEvent* result = result_event.mutable_tool_result();
    result->set_id(call.id);
    result->set_name(call.name);
    result->set_content(outcome->content);
    result->set_is_error(outcome->is_error);
    result->set_signal(ToolSignalName(outcome->signal));
    if (outcome->signal == ToolSignal::kBenched) result->set_speedup(outcome->speedup);
    if (!Append("harness", std::move(result_event)).ok()) return false;
    transcript_.push_back(llm::ToolResultMessage(call.id, outcome->content, outcome->is_error));
    Prefer(&trigger, policy_.OnToolOutcome(call.name, outcome->signal, outcome->speedup));
    SaveProgress();
    if (outcome->signal == ToolSignal::kFinishAccepted) {
      Finish(kernelseek::v1::SESSION_STATE_SUCCEEDED,
             absl::StrFormat("goal met: version %s at %.3fx >= target %.3fx", tools_.best_version(),
                             tools_.best_speedup(), spec.target_speedup()));
      return false;
    }
  }
  if (trigger.has_value()) {
    if (absl::Status s = Decide(*trigger); !s.ok()) {
      if (!cancelled()) Finish(kernelseek::v1::SESSION_STATE_FAILED, absl::StrCat("store: ", s.message()));
      return false;
    }
  }
  return true;
}

absl::Status AgentLoop::AddHarnessMessage(const std::string& text) {
  SessionEvent event;
  event.mutable_harness_message()->set_text(text);
  absl::StatusOr<int64_t> seq = Append("harness", std::move(event));
  if (!seq.ok()) return seq.status();
  transcript_.push_back(llm::UserMessage(text));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<PendingMessage>> AgentLoop::PendingMessages() {
  absl::StatusOr<std::vector<int64_t>> seqs = store_->PendingMessageSeqs(session_id_);
  if (!seqs.ok()) return seqs.status();
  std::vector<PendingMessage> pending;
  for (int64_t message_seq : *seqs) {
    absl::StatusOr<std::vector<SessionEvent>> events = store_->ListSessionEvents(session_id_, message_seq - 1, 1);
    if (!events.ok()) return events.status();
    if (events->empty()) continue;
    pending.push_back({.seq = message_seq,
                       .author = events->front().author(),
                       .text = events->front().human_message().text()});
  }
  return pending;
}

absl::Status AgentLoop::Decide(Trigger trigger) {
  absl::StatusOr<std::vector<PendingMessage>> pending = PendingMessages();
  if (!pending.ok()) return pending.status();
  QuestionDecision decision = questioner_.Decide(trigger, policy_.CurrentLayer(), *pending, asked_bank_ids_);
  const PolicyDecisionRecord& record = decision.record;
  SessionEvent event;
  kernelseek::v1::PolicyDecisionEvent* body = event.mutable_policy_decision();
  body->set_trigger(TriggerName(record.trigger));
  body->set_mode(QuestionModeName(record.mode));
  body->set_layer(kernelseek::v1::Layer_Name(record.layer));
  body->set_action(QuestionActionName(record.action));
  if (!record.question_id.empty()) body->set_question_id(record.question_id);
  if (!record.reason.empty()) body->set_reason(record.reason);
  if (absl::Status s = Append("policy", std::move(event)).status(); !s.ok()) return s;
  for (const QuestionToAsk& question : decision.questions) {
    if (absl::Status s = Ask(trigger, question); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status AgentLoop::DeliverHumanMessages() {
  absl::StatusOr<std::vector<PendingMessage>> pending = PendingMessages();
  if (!pending.ok()) return pending.status();
  for (const QuestionToAsk& question : questioner_.DeliverMessages(*pending)) {
    if (absl::Status s = Ask(kernelseek::v1::TRIGGER_UNSPECIFIED, question); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status AgentLoop::Ask(Trigger trigger, const QuestionToAsk& question) {
  SessionEvent event;
  kernelseek::v1::QuestionEvent* body = event.mutable_question();
  body->set_trigger(trigger == kernelseek::v1::TRIGGER_UNSPECIFIED ? "" : TriggerName(trigger));
  body->set_source(QuestionSourceName(question.source));
  body->set_text(question.text);
  body->set_prompt(question.prompt);
  body->set_best_speedup_before(tools_.best_speedup());
  switch (question.source) {
    case QuestionSource::kHuman:
      body->set_message_seq(question.message_seq);
      body->set_from(question.from);
      break;
    case QuestionSource::kBank:
      body->set_question_id(question.question_id);
      break;
    case QuestionSource::kSelf:
      break;
  }
  absl::StatusOr<int64_t> seq = Append("policy", std::move(event));
  if (!seq.ok()) return seq.status();
  if (question.source == QuestionSource::kHuman) {
    if (absl::Status s = store_->MarkMessageDelivered(session_id_, question.message_seq, *seq); !s.ok()) return s;
  }
  if (question.source == QuestionSource::kBank) asked_bank_ids_.push_back(question.question_id);
  transcript_.push_back(llm::UserMessage(question.prompt));
  return absl::OkStatus();
}

}  // namespace kseek
