// kseek watch: follows a session's trace live.
#ifndef KSEEK_CLIENT_COMMANDS_WATCH_H_
#define KSEEK_CLIENT_COMMANDS_WATCH_H_

#include <string>
#include <vector>

#include "client/commands/command.h"

namespace kseek {

int RunWatch(const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_WATCH_H_
