#include "server/questioner.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

namespace kseek {
namespace {

using kernelseek::v1::Layer;
using kernelseek::v1::QuestionMode;
using kernelseek::v1::Trigger;

constexpr char kBank[] = R"pb(
  question {
    id: "plateau_algorithm"
    text: "Plateau algorithm?"
    triggers: [ TRIGGER_PLATEAU ]
    layers: [ LAYER_ALGORITHM ]
    kind: QUESTION_KIND_MOVE_LAYER
  }
  question {
    id: "plateau_measurement"
    text: "Plateau measurement?"
    triggers: [ TRIGGER_PLATEAU ]
    layers: [ LAYER_MEASUREMENT ]
    kind: QUESTION_KIND_MOVE_LAYER
  }
  question {
    id: "limit"
    text: "Limit?"
    triggers: [ TRIGGER_CLAIMED_LIMIT ]
    layers: [ LAYER_MEASUREMENT ]
    kind: QUESTION_KIND_REJECT_LIMIT
  }
)pb";

const QuestionBank& Bank() {
  static const QuestionBank* bank = [] {
    absl::StatusOr<QuestionBank> loaded = QuestionBank::FromTexts({{"test.textproto", kBank}});
    // The bank text above is fixed; a failure here is a broken test.
    if (!loaded.ok()) std::abort();
    return new QuestionBank(*std::move(loaded));
  }();
  return *bank;
}

const std::vector<PendingMessage> kNoMessages;
const std::vector<std::string> kNoneAsked;

TEST_CASE("bank mode asks the bank question pointing away from the current layer", "[questioner]") {
  Questioner questioner(kernelseek::v1::QUESTION_MODE_BANK, &Bank());
  QuestionDecision d =
      questioner.Decide(kernelseek::v1::TRIGGER_PLATEAU, kernelseek::v1::LAYER_MEASUREMENT, kNoMessages, kNoneAsked);
  REQUIRE(d.record.action == QuestionAction::kBankQuestion);
  REQUIRE(d.record.trigger == kernelseek::v1::TRIGGER_PLATEAU);
  REQUIRE(d.record.mode == kernelseek::v1::QUESTION_MODE_BANK);
  REQUIRE(d.record.layer == kernelseek::v1::LAYER_MEASUREMENT);
  REQUIRE(d.record.question_id == "plateau_algorithm");
  REQUIRE(d.record.reason.empty());
  REQUIRE(d.questions.size() == 1);
  REQUIRE(d.questions[0].source == QuestionSource::kBank);
  REQUIRE(d.questions[0].question_id == "plateau_algorithm");
  REQUIRE(d.questions[0].text == "Plateau algorithm?");
  REQUIRE(d.questions[0].prompt ==
          "Decision point (several benchmarks without real gain). Question: Plateau algorithm?");
}

TEST_CASE("bank mode asks the least recently asked question once every one was asked", "[questioner]") {
  Questioner questioner(kernelseek::v1::QUESTION_MODE_BANK, &Bank());
  // Not yet asked beats pointing away from the layer.
  const std::vector<std::string> once = {"plateau_algorithm"};
  REQUIRE(questioner.Decide(kernelseek::v1::TRIGGER_PLATEAU, kernelseek::v1::LAYER_MEASUREMENT, kNoMessages, once)
              .record.question_id == "plateau_measurement");
  // Both asked once: the one asked longest ago comes round again.
  const std::vector<std::string> both = {"plateau_measurement", "plateau_algorithm"};
  REQUIRE(questioner.Decide(kernelseek::v1::TRIGGER_PLATEAU, kernelseek::v1::LAYER_UNSPECIFIED, kNoMessages, both)
              .record.question_id == "plateau_measurement");
}

TEST_CASE("a pending human message beats the bank in every mode and all pending messages are asked",
          "[questioner]") {
  const std::vector<PendingMessage> pending = {{.seq = 7, .author = "ana", .text = "What did the profiler say?"},
                                               {.seq = 9, .author = "bo", .text = "And the SASS?"}};
  for (QuestionMode mode : {kernelseek::v1::QUESTION_MODE_BANK, kernelseek::v1::QUESTION_MODE_SELF,
                            kernelseek::v1::QUESTION_MODE_HUMAN, kernelseek::v1::QUESTION_MODE_OFF}) {
    INFO(QuestionModeName(mode));
    Questioner questioner(mode, &Bank());
    QuestionDecision d =
        questioner.Decide(kernelseek::v1::TRIGGER_CLAIMED_LIMIT, kernelseek::v1::LAYER_ALGORITHM, pending, kNoneAsked);
    REQUIRE(d.record.action == QuestionAction::kHumanMessage);
    REQUIRE(d.record.question_id.empty());
    REQUIRE(d.questions.size() == 2);
    REQUIRE(d.questions[0].source == QuestionSource::kHuman);
    REQUIRE(d.questions[0].message_seq == 7);
    REQUIRE(d.questions[0].from == "ana");
    REQUIRE(d.questions[0].text == "What did the profiler say?");
    REQUIRE(d.questions[0].prompt ==
            "Decision point (you claimed a limit). A question from ana: What did the profiler say?");
    REQUIRE(d.questions[1].message_seq == 9);
    REQUIRE(d.questions[1].from == "bo");
  }
}

TEST_CASE("bank mode asks nothing and says why when the bank has no question for the trigger", "[questioner]") {
  Questioner questioner(kernelseek::v1::QUESTION_MODE_BANK, &Bank());
  QuestionDecision d = questioner.Decide(kernelseek::v1::TRIGGER_LARGE_GAIN, kernelseek::v1::LAYER_ALGORITHM,
                                         kNoMessages, kNoneAsked);
  REQUIRE(d.record.action == QuestionAction::kNone);
  REQUIRE_FALSE(d.record.reason.empty());
  REQUIRE(d.questions.empty());
}

TEST_CASE("self mode hands the agent every bank question of the trigger to answer itself", "[questioner]") {
  Questioner questioner(kernelseek::v1::QUESTION_MODE_SELF, &Bank());
  QuestionDecision d =
      questioner.Decide(kernelseek::v1::TRIGGER_PLATEAU, kernelseek::v1::LAYER_ALGORITHM, kNoMessages, kNoneAsked);
  REQUIRE(d.record.action == QuestionAction::kSelfQuestion);
  REQUIRE(d.questions.size() == 1);
  const QuestionToAsk& q = d.questions[0];
  REQUIRE(q.source == QuestionSource::kSelf);
  REQUIRE(q.question_id.empty());
  REQUIRE(q.prompt == q.text);
  REQUIRE_THAT(q.text, Catch::StartsWith("Decision point (several benchmarks without real gain). "));
  REQUIRE_THAT(q.text, Catch::Contains("answer it yourself"));
  REQUIRE_THAT(q.text, Catch::EndsWith(":\n- Plateau algorithm?\n- Plateau measurement?"));
  REQUIRE_THAT(q.text, !Catch::Contains("Limit?"));
}

TEST_CASE("off and human modes ask nothing without a pending message", "[questioner]") {
  for (QuestionMode mode : {kernelseek::v1::QUESTION_MODE_OFF, kernelseek::v1::QUESTION_MODE_HUMAN}) {
    INFO(QuestionModeName(mode));
    Questioner questioner(mode, &Bank());
    QuestionDecision d = questioner.Decide(kernelseek::v1::TRIGGER_PLATEAU, kernelseek::v1::LAYER_ALGORITHM,
                                           kNoMessages, kNoneAsked);
    REQUIRE(d.record.action == QuestionAction::kNone);
    REQUIRE(d.record.mode == mode);
    REQUIRE(d.record.reason.empty());
    REQUIRE(d.questions.empty());
  }
}

TEST_CASE("bank and self modes without a bank ask nothing", "[questioner]") {
  for (QuestionMode mode : {kernelseek::v1::QUESTION_MODE_BANK, kernelseek::v1::QUESTION_MODE_SELF}) {
    INFO(QuestionModeName(mode));
    Questioner questioner(mode, nullptr);
    QuestionDecision d = questioner.Decide(kernelseek::v1::TRIGGER_PLATEAU, kernelseek::v1::LAYER_ALGORITHM,
                                           kNoMessages, kNoneAsked);
    REQUIRE(d.record.action == QuestionAction::kNone);
    REQUIRE(d.questions.empty());
  }
}

TEST_CASE("messages outside a decision point are delivered as messages", "[questioner]") {
  Questioner questioner(kernelseek::v1::QUESTION_MODE_HUMAN, nullptr);
  REQUIRE(questioner.DeliverMessages(kNoMessages).empty());
  std::vector<QuestionToAsk> asked = questioner.DeliverMessages({{.seq = 3, .author = "ana", .text = "Hi"}});
  REQUIRE(asked.size() == 1);
  REQUIRE(asked[0].source == QuestionSource::kHuman);
  REQUIRE(asked[0].message_seq == 3);
  REQUIRE(asked[0].prompt == "A message from ana: Hi");
}

TEST_CASE("outside mode human messages wait for a decision point", "[questioner]") {
  const std::vector<PendingMessage> pending = {{.seq = 3, .author = "ana", .text = "Hi"}};
  for (QuestionMode mode : {kernelseek::v1::QUESTION_MODE_BANK, kernelseek::v1::QUESTION_MODE_SELF,
                            kernelseek::v1::QUESTION_MODE_OFF}) {
    INFO(QuestionModeName(mode));
    Questioner questioner(mode, &Bank());
    REQUIRE_FALSE(questioner.DeliversBetweenDecisionPoints());
    REQUIRE(questioner.DeliverMessages(pending).empty());
  }
  REQUIRE(Questioner(kernelseek::v1::QUESTION_MODE_HUMAN, nullptr).DeliversBetweenDecisionPoints());
}

TEST_CASE("the trace names of actions sources and modes are stable", "[questioner]") {
  REQUIRE(std::string(QuestionActionName(QuestionAction::kHumanMessage)) == "human_message");
  REQUIRE(std::string(QuestionActionName(QuestionAction::kBankQuestion)) == "bank_question");
  REQUIRE(std::string(QuestionActionName(QuestionAction::kSelfQuestion)) == "self_question");
  REQUIRE(std::string(QuestionActionName(QuestionAction::kNone)) == "none");
  REQUIRE(std::string(QuestionSourceName(QuestionSource::kHuman)) == "human");
  REQUIRE(std::string(QuestionSourceName(QuestionSource::kBank)) == "bank");
  REQUIRE(std::string(QuestionSourceName(QuestionSource::kSelf)) == "self");
  REQUIRE(std::string(QuestionModeName(kernelseek::v1::QUESTION_MODE_OFF)) == "off");
}

}  // namespace
}  // namespace kseek
