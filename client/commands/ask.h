// kseek ask: posts a question or note to a session's agent.
#ifndef KSEEK_CLIENT_COMMANDS_ASK_H_
#define KSEEK_CLIENT_COMMANDS_ASK_H_

#include <string>
#include <vector>

#include "client/commands/command.h"

namespace kseek {

int RunAsk(const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_ASK_H_
