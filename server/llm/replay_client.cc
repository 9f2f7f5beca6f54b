#include "server/llm/replay_client.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "server/llm/chat_json.h"
#include "common/untrusted_json.h"

namespace kseek::llm {

absl::StatusOr<std::unique_ptr<ReplayLlmClient>> ReplayLlmClient::FromJsonl(
    const std::string& jsonl, const std::string& name) {
  std::vector<ChatResponse> turns;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(jsonl, '\n')) {
    ++line_number;
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    nlohmann::json event = ParseUntrustedJson(std::string_view(line.data(), line.size()));
    if (!event.is_object()) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ":", line_number, ": not a JSON object"));
    }
    auto kind = event.find("kind");
    if (kind == event.end() || *kind != kModelTurnEventKind) continue;
    auto payload = event.find("payload");
    if (payload == event.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ":", line_number, ": model turn without a payload"));
    }
    absl::StatusOr<ChatResponse> turn = ChatResponseFromJson(*payload);
    if (!turn.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ":", line_number, ": ", turn.status().message()));
    }
    turns.push_back(*std::move(turn));
  }
  if (turns.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " has no event of kind \"", kModelTurnEventKind, "\" to replay"));
  }
  return std::unique_ptr<ReplayLlmClient>(new ReplayLlmClient(name, std::move(turns)));
}

absl::StatusOr<std::unique_ptr<ReplayLlmClient>> ReplayLlmClient::FromFile(
    const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open replay trace ", path));
  std::ostringstream text;
  text << in.rdbuf();
  return FromJsonl(std::move(text).str(), path);
}

absl::StatusOr<ChatResponse> ReplayLlmClient::Complete(const ChatRequest& request) {
  absl::MutexLock lock(&mu_);
  if (next_ >= turns_.size()) {
    return absl::OutOfRangeError(absl::StrCat("replay trace ", name_, " has only ", turns_.size(),
                                              " model turns, all replayed"));
  }
  return turns_[next_++];
}

}  // namespace kseek::llm
