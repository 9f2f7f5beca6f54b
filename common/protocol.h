// The protocol-version handshake, both ways: every call from kseek and
// kseek-worker carries `kseek-protocol: N` metadata (added by a client
// interceptor, so no call can forget it), and the server refuses a caller
// whose N differs from its own with a message naming the side to upgrade.
// The server's answers carry its N the same way (a server interceptor), and
// the client's interceptor turns an answer without it or with another N (a
// server older than the handshake, which checks nothing) into that error.
// Plain functions; thread-safe.
#ifndef KERNELSEEK_COMMON_PROTOCOL_H_
#define KERNELSEEK_COMMON_PROTOCOL_H_

#include <grpcpp/channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/server_builder.h>
#include <grpcpp/support/channel_arguments.h>

#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kseek {

inline constexpr char kProtocolMetadataKey[] = "kseek-protocol";

// The server's verdict on a caller (`peer_program`, "kseek" or
// "kseek-worker") that sent `peer_value` as kseek-protocol (nullopt: none
// sent, which only a kseek older than the handshake does).
// FAILED_PRECONDITION saying which side to upgrade when the versions differ,
// e.g. "kseek-server speaks protocol 3, this kseek speaks protocol 2: upgrade
// kseek"; INVALID_ARGUMENT for a value that is not a number.
absl::Status CheckPeerProtocol(std::optional<absl::string_view> peer_value, int server_version,
                               absl::string_view peer_program);

// The client's verdict on a server that answered a call successfully with
// `server_value` as its kseek-protocol (nullopt: none, a server older than the
// handshake): FAILED_PRECONDITION naming the side to upgrade when it is not
// `client_version`.
absl::Status CheckServerProtocol(std::optional<absl::string_view> server_value, int client_version,
                                 absl::string_view client_program);

// "kseek 0.13.0 (protocol 1)": what every binary's --version prints.
std::string VersionLine(absl::string_view program);

// A channel to `target` for `client_program` ("kseek", "kseek-worker") whose
// every call carries kseek-protocol: `protocol_version` (kProtocolVersion but
// for tests of the handshake) and fails as CheckServerProtocol says.
std::shared_ptr<grpc::Channel> CreateProtocolChannel(const std::string& target,
                                                     const std::shared_ptr<grpc::ChannelCredentials>& credentials,
                                                     const grpc::ChannelArguments& args, int protocol_version,
                                                     absl::string_view client_program);

// Makes every answer of the server built by `builder` carry kseek-protocol:
// `protocol_version`.
void AddServerProtocolInterceptor(grpc::ServerBuilder* builder, int protocol_version);

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_PROTOCOL_H_
