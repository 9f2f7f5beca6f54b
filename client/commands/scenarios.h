// kseek scenarios: lists a problem's scenarios.
#ifndef KSEEK_CLIENT_COMMANDS_SCENARIOS_H_
#define KSEEK_CLIENT_COMMANDS_SCENARIOS_H_

#include <string>
#include <vector>

#include "client/commands/command.h"

namespace kseek {

int RunScenarios(const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_SCENARIOS_H_
