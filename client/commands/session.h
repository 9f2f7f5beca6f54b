// kseek session start|show|stop: optimization sessions.
#ifndef KSEEK_CLIENT_COMMANDS_SESSION_H_
#define KSEEK_CLIENT_COMMANDS_SESSION_H_

#include <string>
#include <vector>

#include "client/commands/command.h"

namespace kseek {

// Stops session `id` and prints how it ended (its JSON with `json`), as
// `kseek session stop` and `kseek cancel --session` do. Returns the exit code.
int StopSessionAndPrint(CoordinatorClient* client, const std::string& server, const std::string& id,
                        bool json);

int RunSession(const std::vector<std::string>& args, const GlobalOptions& global);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_SESSION_H_
