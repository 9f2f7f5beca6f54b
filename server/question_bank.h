// QuestionBank: the validated questions of question_bank/*.textproto, and the
// choice of which one to ask at a decision point.
//
// Loaded once at server start; a file that does not parse or a question that
// breaks the schema's rules is an error naming the file and line, so a typo
// never becomes a silently missing question. Immutable after loading, so
// concurrent Pick() calls from several sessions are safe. Pointers returned by
// Pick() and Find() stay valid as long as the bank (moving it keeps them valid).
#ifndef KERNELSEEK_SERVER_QUESTION_BANK_H_
#define KERNELSEEK_SERVER_QUESTION_BANK_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "proto/question_bank.pb.h"

namespace kseek {

class QuestionBank {
 public:
  // A file's name (as it should appear in errors) and its text-format content.
  struct NamedText {
    std::string name;
    std::string text;
  };

  // Loads every *.textproto file of `dir`, in file-name order. NOT_FOUND when
  // `dir` is not a readable directory; INVALID_ARGUMENT, with "file:line:",
  // for a parse error, a question breaking the rules below, an id used twice
  // or a directory without questions.
  //
  // Rules per question: id of [a-z0-9_]+, non-empty text, at least one
  // trigger and one layer, none of them UNSPECIFIED, and a kind.
  static absl::StatusOr<QuestionBank> LoadDirectory(const std::string& dir);

  // Same rules as LoadDirectory, from texts already in memory.
  static absl::StatusOr<QuestionBank> FromTexts(const std::vector<NamedText>& files);

  // Chooses the question to ask at a decision point of kind `trigger` when the
  // agent has mostly been working in `current_layer` (LAYER_UNSPECIFIED when
  // unknown). `already_asked` holds the ids of the questions asked so far in
  // the session, oldest first; unknown ids are ignored.
  //
  // Among the questions for `trigger`, only those asked the fewest times are
  // eligible, so none repeats until all of that trigger's questions have been
  // asked. Among those it prefers questions pointing away from
  // `current_layer` (the agent is stuck there), then the least recently asked,
  // then bank order. INVALID_ARGUMENT for TRIGGER_UNSPECIFIED; NOT_FOUND when
  // the bank has no question for `trigger`.
  absl::StatusOr<const kernelseek::v1::Question*> Pick(
      kernelseek::v1::Trigger trigger, kernelseek::v1::Layer current_layer,
      absl::Span<const std::string> already_asked) const;

  // The question with this id, or nullptr.
  const kernelseek::v1::Question* Find(std::string_view id) const;

  // All questions, in bank order (files by name, then position in the file).
  const std::vector<kernelseek::v1::Question>& questions() const { return questions_; }

 private:
  explicit QuestionBank(std::vector<kernelseek::v1::Question> questions)
      : questions_(std::move(questions)) {}

  std::vector<kernelseek::v1::Question> questions_;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_QUESTION_BANK_H_
