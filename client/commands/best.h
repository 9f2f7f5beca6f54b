// kseek best: writes a session's best kernel version to a file.
#ifndef KSEEK_CLIENT_COMMANDS_BEST_H_
#define KSEEK_CLIENT_COMMANDS_BEST_H_

#include <string>
#include <vector>

#include "client/commands/command.h"

namespace kseek {

int RunBest(const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_BEST_H_
