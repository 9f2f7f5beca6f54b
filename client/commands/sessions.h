// kseek sessions: lists optimization sessions.
#ifndef KSEEK_CLIENT_COMMANDS_SESSIONS_H_
#define KSEEK_CLIENT_COMMANDS_SESSIONS_H_

#include <string>
#include <vector>

#include "client/commands/command.h"

namespace kseek {

int RunSessions(const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_SESSIONS_H_
