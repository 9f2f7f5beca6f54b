#include "server/question_bank.h"

#include <google/protobuf/text_format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/text_proto.h"

namespace kseek {
namespace {

namespace fs = std::filesystem;
using kernelseek::v1::Layer;
using kernelseek::v1::Question;
using kernelseek::v1::QuestionBankFile;
using kernelseek::v1::QuestionKind;
using kernelseek::v1::Trigger;

constexpr char kExtension[] = ".textproto";

bool IsValidId(const std::string& id) {
  return !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// Checks one question; `where` is "file:line" of its `question {` block.
absl::Status ValidateQuestion(const Question& q, const std::string& where) {
  auto fail = [&](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": question \"", q.id(), "\": ", what));
  };
  if (!IsValidId(q.id())) return fail("id must be non-empty and use only [a-z0-9_]");
  if (q.text().empty()) return fail("text is empty");
  if (q.triggers().empty()) return fail("no triggers");
  for (int t : q.triggers()) {
    if (t == kernelseek::v1::TRIGGER_UNSPECIFIED) return fail("trigger TRIGGER_UNSPECIFIED");
  }
  if (q.layers().empty()) return fail("no layers");
  for (int l : q.layers()) {
    if (l == kernelseek::v1::LAYER_UNSPECIFIED) return fail("layer LAYER_UNSPECIFIED");
  }
  if (q.kind() == kernelseek::v1::QUESTION_KIND_UNSPECIFIED) return fail("no kind");
  return absl::OkStatus();
}

// How well a question fits an agent stuck in `current`: pointing only to other
// layers is best, pointing only back to `current` is worst.
int LayerFit(const Question& q, Layer current) {
  if (current == kernelseek::v1::LAYER_UNSPECIFIED) return 2;
  bool points_to_current = false;
  bool points_elsewhere = false;
  for (int l : q.layers()) {
    if (l == current) {
      points_to_current = true;
    } else {
      points_elsewhere = true;
    }
  }
  if (!points_to_current) return 2;
  return points_elsewhere ? 1 : 0;
}

bool HasTrigger(const Question& q, Trigger trigger) {
  return std::find(q.triggers().begin(), q.triggers().end(), trigger) != q.triggers().end();
}

}  // namespace

absl::StatusOr<QuestionBank> QuestionBank::LoadDirectory(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::NotFoundError(
        absl::StrCat("question bank directory \"", dir, "\" does not exist or is not a directory"));
  }
  std::vector<fs::path> paths;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == kExtension && it->is_regular_file()) paths.push_back(it->path());
  }
  if (ec) {
    return absl::NotFoundError(
        absl::StrCat("cannot list question bank directory \"", dir, "\": ", ec.message()));
  }
  std::sort(paths.begin(), paths.end());

  std::vector<NamedText> files;
  for (const fs::path& path : paths) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
      return absl::NotFoundError(absl::StrCat("cannot read question bank file ", path.string()));
    }
    files.push_back({path.string(), std::move(text).str()});
  }
  if (files.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("question bank directory \"", dir, "\" has no *", kExtension, " files"));
  }
  return FromTexts(files);
}

absl::StatusOr<QuestionBank> QuestionBank::FromTexts(const std::vector<NamedText>& files) {
  std::vector<Question> questions;
  absl::flat_hash_map<std::string, std::string> where_by_id;
  const google::protobuf::FieldDescriptor* question_field =
      QuestionBankFile::descriptor()->FindFieldByName("question");

  for (const NamedText& file : files) {
    google::protobuf::TextFormat::ParseInfoTree locations;
    QuestionBankFile parsed;
    if (absl::Status s = ParseTextProto(file.text, file.name, &parsed, &locations); !s.ok()) return s;
    for (int i = 0; i < parsed.question_size(); ++i) {
      const Question& q = parsed.question(i);
      std::string where =
          absl::StrCat(file.name, ":", locations.GetLocation(question_field, i).line + 1);
      if (absl::Status s = ValidateQuestion(q, where); !s.ok()) return s;
      auto [it, inserted] = where_by_id.emplace(q.id(), where);
      if (!inserted) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": question id \"", q.id(), "\" is already used at ", it->second));
      }
      questions.push_back(q);
    }
  }
  if (questions.empty()) {
    std::vector<std::string> names;
    for (const NamedText& file : files) names.push_back(file.name);
    return absl::InvalidArgumentError(
        absl::StrCat("question bank has no questions (files: ", absl::StrJoin(names, ", "), ")"));
  }
  return QuestionBank(std::move(questions));
}

absl::StatusOr<const Question*> QuestionBank::Pick(
    Trigger trigger, Layer current_layer, absl::Span<const std::string> already_asked) const {
  if (trigger == kernelseek::v1::TRIGGER_UNSPECIFIED) {
    return absl::InvalidArgumentError("cannot pick a question for TRIGGER_UNSPECIFIED");
  }
  struct History {
    int times_asked = 0;
    int last_asked = -1;  // position in already_asked; -1 = never
  };
  absl::flat_hash_map<std::string_view, History> history;
  for (int i = 0; i < static_cast<int>(already_asked.size()); ++i) {
    History& h = history[already_asked[i]];
    ++h.times_asked;
    h.last_asked = i;
  }

  const Question* best = nullptr;
  // Smaller is better: fewest times asked, best layer fit, least recently asked.
  std::tuple<int, int, int> best_key;
  for (const Question& q : questions_) {
    if (!HasTrigger(q, trigger)) continue;
    History h;
    if (auto it = history.find(q.id()); it != history.end()) h = it->second;
    std::tuple<int, int, int> key{h.times_asked, -LayerFit(q, current_layer), h.last_asked};
    // Strict comparison keeps the earliest question in bank order on ties.
    if (best == nullptr || key < best_key) {
      best = &q;
      best_key = key;
    }
  }
  if (best == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("question bank has no question for trigger ", Trigger_Name(trigger)));
  }
  return best;
}

const Question* QuestionBank::Find(std::string_view id) const {
  for (const Question& q : questions_) {
    if (q.id() == id) return &q;
  }
  return nullptr;
}

}  // namespace kseek
