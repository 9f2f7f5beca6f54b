// The -o FILE of the commands that write a file (trace, best).
#ifndef KSEEK_CLIENT_COMMANDS_OUTPUT_FILE_H_
#define KSEEK_CLIENT_COMMANDS_OUTPUT_FILE_H_

#include <string>
#include <vector>

namespace kseek {

// `-o FILE` as users expect it from other tools; FlagSet spells flags --name.
std::vector<std::string> ExpandOutputFlag(const std::vector<std::string>& args);

// Writes `text` to `path`; "-" is stdout. Returns the exit code.
int WriteOutput(const std::string& path, const std::string& text);

}  // namespace kseek

#endif  // KSEEK_CLIENT_COMMANDS_OUTPUT_FILE_H_
