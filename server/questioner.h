// Questioner: what to ask the agent, and from which source, once the question
// policy has found a decision point. It owns the routing and priority of a
// session's questions (a pending human message first, then by the session's
// mode a bank question or the self-question list, else nothing) and the text
// the model is shown; it stores nothing and sends nothing: the agent loop
// records its decision and the questions in the trace and puts them to the
// model.
//
// Plain object, immutable after construction, so const calls are safe from
// any thread. Does not own the bank.
#ifndef KERNELSEEK_SERVER_QUESTIONER_H_
#define KERNELSEEK_SERVER_QUESTIONER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "proto/kernelseek.pb.h"
#include "proto/question_bank.pb.h"
#include "server/question_bank.h"

namespace kseek {

// A human_message event of the session not yet delivered to the agent.
struct PendingMessage {
  int64_t seq = 0;     // of its human_message event
  std::string author;  // the user who posted it
  std::string text;
};

// Where a question put to the agent came from, as recorded in the trace.
enum class QuestionSource { kHuman, kBank, kSelf };
// "human", "bank", "self".
const char* QuestionSourceName(QuestionSource source);

// One question to put to the agent.
struct QuestionToAsk {
  QuestionSource source = QuestionSource::kSelf;
  std::string text;    // the question itself, as users see it
  std::string prompt;  // the user message the model is sent
  std::string question_id;  // kBank: the bank question's id
  int64_t message_seq = 0;  // kHuman: the human_message event delivered
  std::string from;         // kHuman: its author
};

// What the questioner did at a decision point.
enum class QuestionAction { kNone, kHumanMessage, kBankQuestion, kSelfQuestion };
// "none", "human_message", "bank_question", "self_question".
const char* QuestionActionName(QuestionAction action);

// The policy_decision record of a decision point.
struct PolicyDecisionRecord {
  kernelseek::v1::Trigger trigger = kernelseek::v1::TRIGGER_UNSPECIFIED;
  kernelseek::v1::QuestionMode mode = kernelseek::v1::QUESTION_MODE_UNSPECIFIED;
  kernelseek::v1::Layer layer = kernelseek::v1::LAYER_UNSPECIFIED;
  QuestionAction action = QuestionAction::kNone;
  std::string question_id;  // kBankQuestion
  std::string reason;       // kNone when the bank had no question to give
};

// The questioner's answer at a decision point: the record to store first,
// then the questions to ask, in order (none, one, or every pending message).
struct QuestionDecision {
  PolicyDecisionRecord record;
  std::vector<QuestionToAsk> questions;
};

// "human", "bank", "self", "off", "unspecified" as recorded in the trace.
const char* QuestionModeName(kernelseek::v1::QuestionMode mode);

class Questioner {
 public:
  // `bank` may be null (modes human and off); modes bank and self then ask
  // nothing but pending human messages.
  Questioner(kernelseek::v1::QuestionMode mode, const QuestionBank* bank) : mode_(mode), bank_(bank) {}

  // At a decision point of kind `trigger` (not TRIGGER_UNSPECIFIED) while the
  // agent works in `layer`. `pending` holds the undelivered human messages,
  // oldest first; `asked_bank_ids` the bank questions asked so far in the
  // session, oldest first.
  //
  // Priority, in every mode: pending human messages (all of them, oldest
  // first); else in mode bank the bank's pick for `trigger` and `layer` (the
  // least asked, then away from `layer`, then least recently asked; none when
  // the bank has no question for `trigger`); else in mode self the list of the
  // bank's questions for `trigger` for the agent to choose from and answer
  // itself; else nothing.
  QuestionDecision Decide(kernelseek::v1::Trigger trigger, kernelseek::v1::Layer layer,
                          absl::Span<const PendingMessage> pending,
                          absl::Span<const std::string> asked_bank_ids) const;

  // Outside a decision point, before each model turn: in mode human every
  // pending message as a question, oldest first; none in the other modes,
  // where messages wait for the next decision point.
  std::vector<QuestionToAsk> DeliverMessages(absl::Span<const PendingMessage> pending) const;
  // Whether DeliverMessages can ask anything (so that the loop reads pending
  // messages before each turn only then).
  bool DeliversBetweenDecisionPoints() const { return mode_ == kernelseek::v1::QUESTION_MODE_HUMAN; }

  kernelseek::v1::QuestionMode mode() const { return mode_; }

 private:
  std::vector<QuestionToAsk> HumanQuestions(kernelseek::v1::Trigger trigger,
                                            absl::Span<const PendingMessage> pending) const;

  const kernelseek::v1::QuestionMode mode_;
  const QuestionBank* const bank_;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_QUESTIONER_H_
