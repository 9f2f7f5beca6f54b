#include "server/llm/replay_client.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/session_event.h"
#include "common/untrusted_json.h"
#include "server/llm/chat_json.h"

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
    kernelseek::v1::SessionEvent recorded;
    if (absl::Status s = SetBodyFromJson(kModelTurnEventKind, *payload, &recorded); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(name, ":", line_number, ": ", s.message()));
    }
    absl::StatusOr<ChatResponse> turn = ChatResponseFromEvent(recorded.model_message());
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
    const std::string& path, const std::string& name, size_t max_bytes) {
  // O_NONBLOCK so that opening a FIFO cannot hang; O_NOFOLLOW so that a link
  // cannot point the read elsewhere.
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(absl::StrCat("cannot open replay trace ", name));
  struct stat info {};
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat("replay trace ", name, " is not a regular file"));
  }
  if (static_cast<uint64_t>(info.st_size) > max_bytes) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat("replay trace ", name, " is ", info.st_size,
                                                   " bytes; the limit is ", max_bytes));
  }
  std::string text;
  char buffer[1 << 16];
  while (text.size() <= max_bytes) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  if (text.size() > max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("replay trace ", name, " grew past the limit of ", max_bytes,
                                                   " bytes while being read"));
  }
  return FromJsonl(text, name);
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
