// kseek token create|list|revoke: a team admin's tokens.
#ifndef KSEEK_CLIENT_COMMANDS_TOKEN_H_
#define KSEEK_CLIENT_COMMANDS_TOKEN_H_

#include <string>
#include <vector>

#include "client/commands/command.h"

namespace kseek {

int RunToken(const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_TOKEN_H_
