#include "common/protocol.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/support/client_interceptor.h>

#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/version.h"

namespace kseek {
namespace {

class ProtocolInterceptor : public grpc::experimental::Interceptor {
 public:
  explicit ProtocolInterceptor(std::string value) : value_(std::move(value)) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->insert({kProtocolMetadataKey, value_});
    }
    methods->Proceed();
  }

 private:
  const std::string value_;
};

class ProtocolInterceptorFactory : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit ProtocolInterceptorFactory(int version) : value_(absl::StrCat(version)) {}

  grpc::experimental::Interceptor* CreateClientInterceptor(grpc::experimental::ClientRpcInfo* info) override {
    return new ProtocolInterceptor(value_);
  }

 private:
  const std::string value_;
};

}  // namespace

absl::Status CheckPeerProtocol(std::optional<absl::string_view> peer_value, int server_version,
                               absl::string_view peer_program) {
  if (!peer_value.has_value()) {
    return absl::FailedPreconditionError(absl::StrCat("kseek-server speaks protocol ", server_version, ", this ",
                                                      peer_program, " sends no protocol version (it is older than ",
                                                      peer_program, " 0.13): upgrade ", peer_program));
  }
  int peer_version = 0;
  if (!absl::SimpleAtoi(*peer_value, &peer_version) || peer_version < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(kProtocolMetadataKey, " metadata \"", *peer_value, "\" is not a protocol version"));
  }
  if (peer_version == server_version) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat("kseek-server speaks protocol ", server_version, ", this ",
                                                    peer_program, " speaks protocol ", peer_version, ": upgrade ",
                                                    peer_version < server_version ? peer_program : "kseek-server"));
}

std::string VersionLine(absl::string_view program) {
  return absl::StrCat(program, " ", kProjectVersion, " (protocol ", kProtocolVersion, ")");
}

std::shared_ptr<grpc::Channel> CreateProtocolChannel(const std::string& target,
                                                     const std::shared_ptr<grpc::ChannelCredentials>& credentials,
                                                     const grpc::ChannelArguments& args, int protocol_version) {
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(std::make_unique<ProtocolInterceptorFactory>(protocol_version));
  return grpc::experimental::CreateCustomChannelWithInterceptors(target, credentials, args, std::move(interceptors));
}

}  // namespace kseek
