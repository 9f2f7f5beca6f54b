// kseek cancel: cancels a job, or (--session) stops a session.
#ifndef KSEEK_CLIENT_COMMANDS_CANCEL_H_
#define KSEEK_CLIENT_COMMANDS_CANCEL_H_

#include <string>
#include <vector>

#include "client/commands/command.h"

namespace kseek {

int RunCancel(const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_CANCEL_H_
