#include "common/config_file.h"

#include <algorithm>
#include <iostream>

#include <google/protobuf/descriptor.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/text_proto.h"

namespace kseek {

std::string ConfigPathInArgs(const std::vector<std::string>& args) {
  std::string path;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") break;
    if (args[i] == "--config" && i + 1 < args.size()) {
      path = args[++i];
    } else if (args[i].rfind("--config=", 0) == 0) {
      path = args[i].substr(9);
    }
  }
  return path;
}

std::vector<std::pair<std::string, std::string>> ConfigFlagValues(const google::protobuf::Message& config) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Reflection* reflection = config.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(config, &fields);
  std::vector<std::pair<std::string, std::string>> values;
  for (const FieldDescriptor* field : fields) {
    if (field->is_repeated()) continue;
    std::string value;
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_STRING:
        value = reflection->GetString(config, field);
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        value = reflection->GetBool(config, field) ? "true" : "false";
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        value = absl::StrCat(reflection->GetInt64(config, field));
        break;
      case FieldDescriptor::CPPTYPE_INT32:
        value = absl::StrCat(reflection->GetInt32(config, field));
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        value = absl::StrCat(reflection->GetDouble(config, field));
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        value = reflection->GetEnum(config, field)->name();
        break;
      default:
        continue;
    }
    values.emplace_back(absl::StrReplaceAll(field->name(), {{"_", "-"}}), std::move(value));
  }
  return values;
}

absl::Status LoadConfigFile(const std::string& path, google::protobuf::Message* config, FlagSet* flags) {
  if (absl::Status s = ParseTextProtoFile(path, config); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--config: ", s.message()));
  }
  return flags->SetFromConfig(ConfigFlagValues(*config), path);
}

std::optional<int> ParseCommandFlagsWithConfig(FlagSet& flags, const std::vector<std::string>& args,
                                               const std::string& program, google::protobuf::Message* config) {
  const bool help = std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "-h" || a == "--help"; });
  if (const std::string path = ConfigPathInArgs(args); !path.empty() && !help) {
    if (absl::Status s = LoadConfigFile(path, config, &flags); !s.ok()) {
      std::cerr << program << ": " << s.message() << "\n";
      return 2;
    }
  }
  return ParseCommandFlags(flags, args, program);
}

}  // namespace kseek
