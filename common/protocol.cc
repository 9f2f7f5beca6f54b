#include "common/protocol.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/support/client_interceptor.h>
#include <grpcpp/support/server_interceptor.h>

#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/version.h"

namespace kseek {
namespace {

using grpc::experimental::InterceptionHookPoints;

// One call's: sends the client's version, reads the server's, and fails a
// successful call of a server with another (or none).
class ClientProtocolInterceptor : public grpc::experimental::Interceptor {
 public:
  ClientProtocolInterceptor(int version, std::string program) : version_(version), program_(std::move(program)) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->insert({kProtocolMetadataKey, absl::StrCat(version_)});
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      const auto* metadata = methods->GetRecvInitialMetadata();
      if (auto found = metadata->find(kProtocolMetadataKey); found != metadata->end()) {
        server_value_ = std::string(found->second.data(), found->second.size());
      }
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_STATUS)) {
      grpc::Status* status = methods->GetRecvStatus();
      // A failed call keeps its own status: the server's refusal of this
      // client's version says more than this side could.
      if (status->ok()) {
        absl::Status verdict = CheckServerProtocol(server_value_, version_, program_);
        if (!verdict.ok()) {
          *status = grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, std::string(verdict.message()));
        }
      }
    }
    methods->Proceed();
  }

 private:
  const int version_;
  const std::string program_;
  std::optional<std::string> server_value_;
};

class ClientProtocolInterceptorFactory : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  ClientProtocolInterceptorFactory(int version, std::string program)
      : version_(version), program_(std::move(program)) {}

  grpc::experimental::Interceptor* CreateClientInterceptor(grpc::experimental::ClientRpcInfo* info) override {
    return new ClientProtocolInterceptor(version_, program_);
  }

 private:
  const int version_;
  const std::string program_;
};

class ServerProtocolInterceptor : public grpc::experimental::Interceptor {
 public:
  explicit ServerProtocolInterceptor(std::string value) : value_(std::move(value)) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->insert({kProtocolMetadataKey, value_});
    }
    methods->Proceed();
  }

 private:
  const std::string value_;
};

class ServerProtocolInterceptorFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit ServerProtocolInterceptorFactory(int version) : value_(absl::StrCat(version)) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override {
    return new ServerProtocolInterceptor(value_);
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

absl::Status CheckServerProtocol(std::optional<absl::string_view> server_value, int client_version,
                                 absl::string_view client_program) {
  int server_version = 0;
  if (!server_value.has_value() || !absl::SimpleAtoi(*server_value, &server_version)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "kseek-server sends no protocol version (it is older than kseek-server 0.13), this ", client_program,
        " speaks protocol ", client_version, ": upgrade kseek-server"));
  }
  if (server_version == client_version) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat("kseek-server speaks protocol ", server_version, ", this ",
                                                    client_program, " speaks protocol ", client_version, ": upgrade ",
                                                    server_version < client_version ? "kseek-server" : client_program));
}

std::string VersionLine(absl::string_view program) {
  return absl::StrCat(program, " ", kProjectVersion, " (protocol ", kProtocolVersion, ")");
}

std::shared_ptr<grpc::Channel> CreateProtocolChannel(const std::string& target,
                                                     const std::shared_ptr<grpc::ChannelCredentials>& credentials,
                                                     const grpc::ChannelArguments& args, int protocol_version,
                                                     absl::string_view client_program) {
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(
      std::make_unique<ClientProtocolInterceptorFactory>(protocol_version, std::string(client_program)));
  return grpc::experimental::CreateCustomChannelWithInterceptors(target, credentials, args, std::move(interceptors));
}

void AddServerProtocolInterceptor(grpc::ServerBuilder* builder, int protocol_version) {
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(std::make_unique<ServerProtocolInterceptorFactory>(protocol_version));
  builder->experimental().SetInterceptorCreators(std::move(interceptors));
}

}  // namespace kseek
