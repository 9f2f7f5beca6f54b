// Parsing one protobuf text-format file with the first syntax error named as
// "NAME:LINE:COLUMN: message", the way every data file of the project (LLM
// endpoints, the question bank, config files) reports a typo. Thread-safe.
#ifndef KERNELSEEK_COMMON_TEXT_PROTO_H_
#define KERNELSEEK_COMMON_TEXT_PROTO_H_

#include <string>

#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>

#include "absl/status/status.h"

namespace kseek {

// Parses `text` into `message` (cleared first). `name` is the file name the
// error shows. Unknown fields and bad values are errors (INVALID_ARGUMENT).
// When `locations` is given, the parser records where each field was, so a
// caller's own checks can name lines too.
absl::Status ParseTextProto(const std::string& text, const std::string& name, google::protobuf::Message* message,
                            google::protobuf::TextFormat::ParseInfoTree* locations = nullptr);

// Reads `path` and parses it as ParseTextProto does, naming `path`.
// INVALID_ARGUMENT also when the file cannot be read.
absl::Status ParseTextProtoFile(const std::string& path, google::protobuf::Message* message);

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_TEXT_PROTO_H_
