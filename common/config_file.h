// Config files of the daemons (kseek-server, kseek-worker): a protobuf
// text-format message whose fields are named after the program's flags
// (schema: proto/config.proto), loaded before the command line so that flags
// override it. Only main.cc files call this. Thread-compatible.
#ifndef KERNELSEEK_COMMON_CONFIG_FILE_H_
#define KERNELSEEK_COMMON_CONFIG_FILE_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/message.h>

#include "absl/status/status.h"
#include "common/flags.h"

namespace kseek {

// The value of --config in `args` (--config FILE or --config=FILE, before a
// "--"), or "" when there is none.
std::string ConfigPathInArgs(const std::vector<std::string>& args);

// The fields set in `config` as (flag name, value) pairs: field lease_timeout
// becomes ("lease-timeout", "30"); bools are "true"/"false". Repeated and
// message fields are not flags and are left out (the schema has none).
std::vector<std::pair<std::string, std::string>> ConfigFlagValues(const google::protobuf::Message& config);

// Parses the text-format file `path` into `config` (its type is the schema)
// and sets `flags` from it. INVALID_ARGUMENT naming PATH:LINE:COLUMN for a
// syntax error, an unknown field or a value of the wrong type.
absl::Status LoadConfigFile(const std::string& path, google::protobuf::Message* config, FlagSet* flags);

// ParseCommandFlags (see common/flags.h) with `--config FILE` first loaded
// into `flags` (and `config`): a bad file prints "PROGRAM: FILE:LINE:COL: ..."
// and returns 2. `flags` must define a "config" flag. -h/--help shows the
// usage without reading the file.
std::optional<int> ParseCommandFlagsWithConfig(FlagSet& flags, const std::vector<std::string>& args,
                                               const std::string& program, google::protobuf::Message* config);

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_CONFIG_FILE_H_
