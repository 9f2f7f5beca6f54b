// kseek workers: lists workers.
#ifndef KSEEK_CLIENT_COMMANDS_WORKERS_H_
#define KSEEK_CLIENT_COMMANDS_WORKERS_H_

#include <string>
#include <vector>

#include "client/commands/command.h"

namespace kseek {

int RunWorkers(const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_WORKERS_H_
