// -o FILE; see output_file.h.
#include "client/commands/output_file.h"

#include <fstream>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "client/commands/command.h"
#include "client/exit_codes.h"

namespace kseek {

std::vector<std::string> ExpandOutputFlag(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    if (arg == "-o") {
      out.push_back("--output");
    } else if (arg.starts_with("-o") && arg.size() > 2 && arg[2] != '-') {
      out.push_back("--output=" + arg.substr(2));
    } else {
      out.push_back(arg);
    }
    if (arg == "--") break;
  }
  for (size_t i = out.size(); i < args.size(); ++i) out.push_back(args[i]);
  return out;
}

int WriteOutput(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text << std::flush;
    return kExitOk;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Fail(kExitUsage, absl::StrCat("cannot write ", path));
  return kExitOk;
}

}  // namespace kseek
