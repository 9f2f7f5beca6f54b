// FlagSet: the command-line flags of one program or subcommand, with --help.
//
// Each main.cc builds one FlagSet per (sub)command, binds flags to its own
// variables, and calls Parse. Flags may also come from an environment variable
// named at definition; the command line wins. Not thread-safe; used once.
#ifndef KERNELSEEK_COMMON_FLAGS_H_
#define KERNELSEEK_COMMON_FLAGS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace kseek {

class FlagSet {
 public:
  // `usage` is the synopsis after the program name, e.g. "compile FILE [flags]";
  // `description` a paragraph shown under it by --help.
  FlagSet(std::string program, std::string usage, std::string description);

  void String(std::string name, std::string* target, std::string help, std::string env_var = "");
  void Int(std::string name, int64_t* target, std::string help, std::string env_var = "");
  void Double(std::string name, double* target, std::string help, std::string env_var = "");
  void Bool(std::string name, bool* target, std::string help);
  // A flag that may be given several times; each value is appended.
  void Repeated(std::string name, std::vector<std::string>* target, std::string help);
  // Leaves the flag `name` (defined before) out of --help: for flags that
  // only tests use, whose help says so in the source.
  void Hide(const std::string& name);

  // Sets flags from a config file before Parse: each (name, value) as if
  // --name=value came first, so that the environment and the command line
  // override it. `source` (the file) prefixes errors. INVALID_ARGUMENT for a
  // name no flag has or a bad value. --help still shows the built-in defaults.
  absl::Status SetFromConfig(const std::vector<std::pair<std::string, std::string>>& values,
                             const std::string& source);

  // Parses `args` (without the program or subcommand name) into the bound
  // variables and returns the positional arguments. Accepts --name=value,
  // --name value, --bool, --bool=false and "--" to end flags. An unknown flag
  // or a bad value is INVALID_ARGUMENT naming it. After -h/--help, returns
  // no error and help_requested() is true.
  absl::StatusOr<std::vector<std::string>> Parse(const std::vector<std::string>& args);

  bool help_requested() const { return help_requested_; }
  std::string Usage() const;

 private:
  struct Flag {
    std::string name;
    std::string help;
    std::string env_var;
    std::string default_text;
    bool is_bool = false;
    bool hidden = false;
    std::function<absl::Status(const std::string&)> set;
  };
  void Add(Flag flag);
  const Flag* Find(const std::string& name) const;

  std::string program_;
  std::string usage_;
  std::string description_;
  std::vector<Flag> flags_;
  bool help_requested_ = false;
};

// A HOST:PORT address as --listen and --server take it. HOST may be a name,
// an IPv4 address or a bracketed IPv6 address ("[::1]:7070").
struct HostPort {
  std::string host;
  int port = 0;
};
// INVALID_ARGUMENT naming `flag` and the value when there is no HOST, no
// ':PORT', or the port is not a number in 1-65535 (0 too when `allow_port_zero`,
// which asks the kernel for a free port).
absl::StatusOr<HostPort> ParseHostPort(const std::string& flag, const std::string& address, bool allow_port_zero);

// For a main() whose command takes flags and no positional arguments:
// parses `args` into `flags`. Returns 0 after printing the usage for --help,
// 2 after printing "PROGRAM: what was wrong" on stderr for a bad flag or a
// stray argument, and nullopt when the program should go on.
std::optional<int> ParseCommandFlags(FlagSet& flags, const std::vector<std::string>& args,
                                     const std::string& program);

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_FLAGS_H_
