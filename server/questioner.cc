#include "server/questioner.h"

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kseek {
namespace {

using kernelseek::v1::Trigger;

std::string TriggerDescription(Trigger t) {
  switch (t) {
    case kernelseek::v1::TRIGGER_PLATEAU: return "several benchmarks without real gain";
    case kernelseek::v1::TRIGGER_CLAIMED_LIMIT: return "you claimed a limit";
    case kernelseek::v1::TRIGGER_REPEATED_FAILURE: return "several compile or verify failures in a row";
    case kernelseek::v1::TRIGGER_EARLY_FINISH: return "you tried to finish below the target";
    case kernelseek::v1::TRIGGER_LARGE_GAIN: return "a large gain";
    default: return "a message";
  }
}

}  // namespace

const char* QuestionSourceName(QuestionSource source) {
  switch (source) {
    case QuestionSource::kHuman: return "human";
    case QuestionSource::kBank: return "bank";
    case QuestionSource::kSelf: return "self";
  }
  return "self";
}

const char* QuestionActionName(QuestionAction action) {
  switch (action) {
    case QuestionAction::kNone: return "none";
    case QuestionAction::kHumanMessage: return "human_message";
    case QuestionAction::kBankQuestion: return "bank_question";
    case QuestionAction::kSelfQuestion: return "self_question";
  }
  return "none";
}

const char* QuestionModeName(kernelseek::v1::QuestionMode mode) {
  switch (mode) {
    case kernelseek::v1::QUESTION_MODE_HUMAN: return "human";
    case kernelseek::v1::QUESTION_MODE_BANK: return "bank";
    case kernelseek::v1::QUESTION_MODE_SELF: return "self";
    case kernelseek::v1::QUESTION_MODE_OFF: return "off";
    default: return "unspecified";
  }
}

QuestionDecision Questioner::Decide(Trigger trigger, kernelseek::v1::Layer layer,
                                    absl::Span<const PendingMessage> pending,
                                    absl::Span<const std::string> asked_bank_ids) const {
  QuestionDecision decision;
  decision.record.trigger = trigger;
  decision.record.mode = mode_;
  decision.record.layer = layer;
  if (!pending.empty()) {
    decision.record.action = QuestionAction::kHumanMessage;
    decision.questions = HumanQuestions(trigger, pending);
    return decision;
  }
  const std::string header = absl::StrCat("Decision point (", TriggerDescription(trigger), "). ");
  if (mode_ == kernelseek::v1::QUESTION_MODE_BANK && bank_ != nullptr) {
    absl::StatusOr<const kernelseek::v1::Question*> question = bank_->Pick(trigger, layer, asked_bank_ids);
    if (!question.ok()) {
      decision.record.action = QuestionAction::kNone;
      decision.record.reason = std::string(question.status().message());
      return decision;
    }
    decision.record.action = QuestionAction::kBankQuestion;
    decision.record.question_id = (*question)->id();
    QuestionToAsk ask;
    ask.source = QuestionSource::kBank;
    ask.text = (*question)->text();
    ask.prompt = absl::StrCat(header, "Question: ", (*question)->text());
    ask.question_id = (*question)->id();
    decision.questions.push_back(std::move(ask));
    return decision;
  }
  if (mode_ == kernelseek::v1::QUESTION_MODE_SELF && bank_ != nullptr) {
    std::vector<std::string> texts;
    for (const kernelseek::v1::Question& q : bank_->questions()) {
      for (int t : q.triggers()) {
        if (t == trigger) texts.push_back(absl::StrCat("- ", q.text()));
      }
    }
    decision.record.action = QuestionAction::kSelfQuestion;
    QuestionToAsk ask;
    ask.source = QuestionSource::kSelf;
    ask.text = absl::StrCat(
        header,
        "Before you act, pick the one question from this list that most applies to where you are, write it down, "
        "answer it yourself from evidence you can measure, and then act on your answer:\n",
        absl::StrJoin(texts, "\n"));
    ask.prompt = ask.text;
    decision.questions.push_back(std::move(ask));
    return decision;
  }
  decision.record.action = QuestionAction::kNone;
  return decision;
}

std::vector<QuestionToAsk> Questioner::DeliverMessages(absl::Span<const PendingMessage> pending) const {
  if (!DeliversBetweenDecisionPoints()) return {};
  return HumanQuestions(kernelseek::v1::TRIGGER_UNSPECIFIED, pending);
}

std::vector<QuestionToAsk> Questioner::HumanQuestions(Trigger trigger,
                                                      absl::Span<const PendingMessage> pending) const {
  std::vector<QuestionToAsk> questions;
  for (const PendingMessage& message : pending) {
    QuestionToAsk ask;
    ask.source = QuestionSource::kHuman;
    ask.text = message.text;
    ask.prompt = trigger == kernelseek::v1::TRIGGER_UNSPECIFIED
                     ? absl::StrCat("A message from ", message.author, ": ", message.text)
                     : absl::StrCat("Decision point (", TriggerDescription(trigger), "). A question from ",
                                    message.author, ": ", message.text);
    ask.message_seq = message.seq;
    ask.from = message.author;
    questions.push_back(std::move(ask));
  }
  return questions;
}

}  // namespace kseek
