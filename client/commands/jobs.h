// kseek jobs: lists jobs.
#ifndef KSEEK_CLIENT_COMMANDS_JOBS_H_
#define KSEEK_CLIENT_COMMANDS_JOBS_H_

#include <string>
#include <vector>

#include "client/commands/command.h"

namespace kseek {

int RunJobs(const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_JOBS_H_
