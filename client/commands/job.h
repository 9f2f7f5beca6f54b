// kseek job: shows one job, or follows it with --wait.
#ifndef KSEEK_CLIENT_COMMANDS_JOB_H_
#define KSEEK_CLIENT_COMMANDS_JOB_H_

#include <string>
#include <vector>

#include "client/commands/command.h"

namespace kseek {

int RunJob(const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_JOB_H_
