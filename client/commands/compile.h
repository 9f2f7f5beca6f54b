// kseek compile: compiles a CUDA file on a worker.
#ifndef KSEEK_CLIENT_COMMANDS_COMPILE_H_
#define KSEEK_CLIENT_COMMANDS_COMPILE_H_

#include <string>
#include <vector>

#include "client/commands/command.h"

namespace kseek {

int RunCompile(const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_COMPILE_H_
