// kseek session start|show|stop: optimization sessions.
#ifndef KSEEK_CLIENT_COMMANDS_SESSION_H_
#define KSEEK_CLIENT_COMMANDS_SESSION_H_

#include <string>
#include <vector>

#include "client/commands/command.h"

namespace kseek {

int RunSession(const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_SESSION_H_
