#include "common/text_proto.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <google/protobuf/io/tokenizer.h>

#include "absl/strings/str_cat.h"

namespace kseek {
namespace {

// Keeps the first parse error as "name:line:column: message"; the parser's
// later errors are usually consequences of the first one.
class FirstErrorCollector final : public google::protobuf::io::ErrorCollector {
 public:
  explicit FirstErrorCollector(std::string name) : name_(std::move(name)) {}
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (error_.empty()) error_ = absl::StrCat(name_, ":", line + 1, ":", column + 1, ": ", message);
  }
  const std::string& error() const { return error_; }

 private:
  std::string name_;
  std::string error_;
};

}  // namespace

absl::Status ParseTextProto(const std::string& text, const std::string& name, google::protobuf::Message* message,
                            google::protobuf::TextFormat::ParseInfoTree* locations) {
  google::protobuf::TextFormat::Parser parser;
  FirstErrorCollector errors(name);
  parser.RecordErrorsTo(&errors);
  if (locations != nullptr) parser.WriteLocationsTo(locations);
  if (!parser.ParseFromString(text, message)) {
    return absl::InvalidArgumentError(errors.error().empty() ? absl::StrCat(name, ": cannot parse") : errors.error());
  }
  return absl::OkStatus();
}

absl::Status ParseTextProtoFile(const std::string& path, google::protobuf::Message* message) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return ParseTextProto(std::move(text).str(), path, message);
}

}  // namespace kseek
