#include "common/flags.h"

#include <cstdlib>
#include <iostream>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

namespace kseek {

FlagSet::FlagSet(std::string program, std::string usage, std::string description)
    : program_(std::move(program)), usage_(std::move(usage)), description_(std::move(description)) {}

void FlagSet::Add(Flag flag) { flags_.push_back(std::move(flag)); }

void FlagSet::String(std::string name, std::string* target, std::string help, std::string env_var) {
  Add({.name = std::move(name),
       .help = std::move(help),
       .env_var = std::move(env_var),
       .default_text = *target,
       .set = [target](const std::string& v) {
         *target = v;
         return absl::OkStatus();
       }});
}

void FlagSet::Int(std::string name, int64_t* target, std::string help, std::string env_var) {
  std::string flag_name = name;
  Add({.name = std::move(name),
       .help = std::move(help),
       .env_var = std::move(env_var),
       .default_text = absl::StrCat(*target),
       .set = [target, flag_name](const std::string& v) {
         if (!absl::SimpleAtoi(v, target)) {
           return absl::InvalidArgumentError(
               absl::StrCat("--", flag_name, " wants an integer, got \"", v, "\""));
         }
         return absl::OkStatus();
       }});
}

void FlagSet::Double(std::string name, double* target, std::string help, std::string env_var) {
  std::string flag_name = name;
  Add({.name = std::move(name),
       .help = std::move(help),
       .env_var = std::move(env_var),
       .default_text = absl::StrCat(*target),
       .set = [target, flag_name](const std::string& v) {
         if (!absl::SimpleAtod(v, target)) {
           return absl::InvalidArgumentError(
               absl::StrCat("--", flag_name, " wants a number, got \"", v, "\""));
         }
         return absl::OkStatus();
       }});
}

void FlagSet::Bool(std::string name, bool* target, std::string help) {
  std::string flag_name = name;
  Add({.name = std::move(name),
       .help = std::move(help),
       .is_bool = true,
       .set = [target, flag_name](const std::string& v) {
         if (!absl::SimpleAtob(v, target)) {
           return absl::InvalidArgumentError(
               absl::StrCat("--", flag_name, " wants true or false, got \"", v, "\""));
         }
         return absl::OkStatus();
       }});
}

void FlagSet::Repeated(std::string name, std::vector<std::string>* target, std::string help) {
  Add({.name = std::move(name),
       .help = std::move(help) + " (repeatable)",
       .set = [target](const std::string& v) {
         target->push_back(v);
         return absl::OkStatus();
       }});
}

const FlagSet::Flag* FlagSet::Find(const std::string& name) const {
  for (const Flag& flag : flags_) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

absl::StatusOr<std::vector<std::string>> FlagSet::Parse(const std::vector<std::string>& args) {
  for (const Flag& flag : flags_) {
    if (flag.env_var.empty()) continue;
    if (const char* value = std::getenv(flag.env_var.c_str()); value != nullptr && *value != '\0') {
      if (absl::Status s = flag.set(value); !s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("$", flag.env_var, ": ", s.message()));
      }
    }
  }
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      positional.insert(positional.end(), args.begin() + i + 1, args.end());
      break;
    }
    if (arg == "-h" || arg == "--help") {
      help_requested_ = true;
      return positional;
    }
    if (arg.size() < 3 || arg.rfind("--", 0) != 0) {
      if (arg.size() > 1 && arg[0] == '-') {
        return absl::InvalidArgumentError(
            absl::StrCat("unknown flag \"", arg, "\" (flags are spelled --name; see --help)"));
      }
      positional.push_back(arg);
      continue;
    }
    std::string body = arg.substr(2);
    std::string name = body;
    std::string value;
    bool has_value = false;
    if (size_t eq = body.find('='); eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    const Flag* flag = Find(name);
    if (flag == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag --", name, " for ", program_, " (see --help)"));
    }
    if (!has_value) {
      if (flag->is_bool) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
      }
    }
    if (absl::Status s = flag->set(value); !s.ok()) return s;
  }
  return positional;
}

absl::Status FlagSet::SetFromConfig(const std::vector<std::pair<std::string, std::string>>& values,
                                    const std::string& source) {
  for (const auto& [name, value] : values) {
    const Flag* flag = Find(name);
    if (flag == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(source, ": ", name, " is not a setting of ", program_));
    }
    if (absl::Status s = flag->set(value); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(source, ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

void FlagSet::Hide(const std::string& name) {
  for (Flag& flag : flags_) {
    if (flag.name == name) flag.hidden = true;
  }
}

std::string FlagSet::Usage() const {
  std::string out = absl::StrCat("usage: ", program_, " ", usage_, "\n");
  if (!description_.empty()) absl::StrAppend(&out, "\n", description_, "\n");
  if (!flags_.empty()) absl::StrAppend(&out, "\nflags:\n");
  for (const Flag& flag : flags_) {
    if (flag.hidden) continue;
    std::string left = absl::StrCat("  --", flag.name, flag.is_bool ? "" : " VALUE");
    std::string right = flag.help;
    if (!flag.default_text.empty()) absl::StrAppend(&right, " [default: ", flag.default_text, "]");
    if (!flag.env_var.empty()) absl::StrAppend(&right, " [env: ", flag.env_var, "]");
    absl::StrAppend(&out, absl::StrFormat("%-28s %s\n", left, right));
  }
  absl::StrAppend(&out, absl::StrFormat("%-28s %s\n", "  -h, --help", "show this help"));
  return out;
}

absl::StatusOr<HostPort> ParseHostPort(const std::string& flag, const std::string& address, bool allow_port_zero) {
  const size_t colon = address.rfind(':');
  const std::string range = allow_port_zero ? "1-65535 (or 0: any free port)" : "1-65535";
  if (colon == std::string::npos || colon == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " \"", address, "\" is not HOST:PORT, e.g. 127.0.0.1:7070"));
  }
  HostPort result;
  result.host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  if (result.host.front() == '[' ? result.host.back() != ']' || result.host.size() < 3
                                 : result.host.find(':') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, " \"", address,
                                                   "\": HOST is not a name or address (IPv6 goes in brackets: [::1]:7070)"));
  }
  int64_t value = -1;
  const bool digits = !port.empty() && port.size() <= 5 &&
                      port.find_first_not_of("0123456789") == std::string::npos && absl::SimpleAtoi(port, &value);
  if (!digits || value > 65535 || (value == 0 && !allow_port_zero)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " \"", address, "\": port \"", port, "\" is not a port number in ", range));
  }
  result.port = static_cast<int>(value);
  return result;
}

std::optional<int> ParseCommandFlags(FlagSet& flags, const std::vector<std::string>& args,
                                     const std::string& program) {
  absl::StatusOr<std::vector<std::string>> rest = flags.Parse(args);
  if (!rest.ok()) {
    std::cerr << program << ": " << rest.status().message() << "\n";
    return 2;
  }
  if (flags.help_requested()) {
    std::cout << flags.Usage();
    return 0;
  }
  if (!rest->empty()) {
    std::cerr << program << ": unexpected argument \"" << rest->front() << "\"\n";
    return 2;
  }
  return std::nullopt;
}

}  // namespace kseek
