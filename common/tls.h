// Transport security of every gRPC connection: TLS credentials from PEM
// files for the server, its clients and its workers, and the rule that
// plaintext is only for loopback addresses unless asked for by name
// (--insecure-plaintext). Plain functions; thread-safe.
#ifndef KERNELSEEK_COMMON_TLS_H_
#define KERNELSEEK_COMMON_TLS_H_

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kseek {

// 127.0.0.0/8, ::1 (bracketed or not) and "localhost": addresses whose
// traffic never leaves the machine.
bool IsLoopbackHost(absl::string_view host);

// How kseek or kseek-worker dials the server. With `ca_file`, TLS verified
// against that CA (and `cert_file`/`key_file`, both or neither, as a client
// certificate for servers that ask workers for one); without it plaintext,
// which needs a loopback target or `insecure_plaintext`.
struct ClientTlsConfig {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  bool insecure_plaintext = false;
};

// Credentials for dialing `target` (HOST:PORT). INVALID_ARGUMENT naming the
// flag for a contradictory or unsafe configuration (plaintext to a
// non-loopback target without insecure_plaintext), or an unreadable file.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(const ClientTlsConfig& config,
                                                                                 const std::string& target);

// How kseek-server listens. With `cert_file` and `key_file`, TLS; with
// `worker_client_ca` too, clients are asked for a certificate, one that is
// presented must verify against that CA, and (see Authenticator) WorkerHub
// calls without one are refused. Without a certificate, plaintext, which needs
// a loopback listen address or `insecure_plaintext`.
struct ServerTlsConfig {
  std::string cert_file;
  std::string key_file;
  std::string worker_client_ca;
  bool insecure_plaintext = false;
};

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(const ServerTlsConfig& config,
                                                                               const std::string& listen);

// True when a failed call's message says the TLS handshake failed because a
// certificate could not be verified (wrong CA, or a name not in it).
bool IsCertificateVerifyFailure(absl::string_view message);
// True when a TLS client's handshake met a server that answered plaintext.
bool IsPlaintextPeer(absl::string_view message);

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_TLS_H_
