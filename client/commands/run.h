// kseek verify, bench and profile: run a kernel on a problem's scenarios on a GPU worker.
#ifndef KSEEK_CLIENT_COMMANDS_RUN_H_
#define KSEEK_CLIENT_COMMANDS_RUN_H_

#include <string>
#include <vector>

#include "client/commands/command.h"

namespace kseek {

int RunVerify(const std::vector<std::string>& args, const GlobalOptions& global);

int RunBench(const std::vector<std::string>& args, const GlobalOptions& global);

int RunProfile(const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_RUN_H_
