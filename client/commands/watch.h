// kseek watch: follows a session's trace live.
#ifndef KSEEK_CLIENT_COMMANDS_WATCH_H_
#define KSEEK_CLIENT_COMMANDS_WATCH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "client/commands/command.h"

namespace kseek {

// What watch and trace print when their session stream is lost and resumes
// after event `last_seq`.
void PrintStreamResume(const absl::Status& lost, int64_t last_seq, const std::string& server);

int RunWatch(const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_WATCH_H_
