// kseek trace: exports a session's whole trace.
#ifndef KSEEK_CLIENT_COMMANDS_TRACE_H_
#define KSEEK_CLIENT_COMMANDS_TRACE_H_

#include <string>
#include <vector>

#include "client/commands/command.h"

namespace kseek {

int RunTrace(const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_TRACE_H_
