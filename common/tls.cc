#include "common/tls.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/flags.h"

namespace kseek {
namespace {

absl::StatusOr<std::string> ReadPem(absl::string_view flag, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat("--", flag, ": cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  std::string pem = std::move(text).str();
  if (pem.find("-----BEGIN ") == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", path, " is not a PEM file"));
  }
  return pem;
}

absl::StatusOr<std::string> HostOf(absl::string_view flag, const std::string& address) {
  absl::StatusOr<HostPort> parsed = ParseHostPort(std::string(flag), address, /*allow_port_zero=*/true);
  if (!parsed.ok()) return parsed.status();
  return parsed->host;
}

}  // namespace

bool IsLoopbackHost(absl::string_view host) {
  if (absl::ConsumePrefix(&host, "[")) absl::ConsumeSuffix(&host, "]");
  if (absl::EqualsIgnoreCase(host, "localhost") || host == "::1") return true;
  // 127.0.0.0/8, written as four decimal parts.
  if (!absl::ConsumePrefix(&host, "127.")) return false;
  int dots = 0;
  for (char c : host) {
    if (c == '.') {
      ++dots;
    } else if (!absl::ascii_isdigit(c)) {
      return false;
    }
  }
  return dots == 2 && !host.empty() && host.front() != '.' && host.back() != '.';
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(const ClientTlsConfig& config,
                                                                                 const std::string& target) {
  if (config.cert_file.empty() != config.key_file.empty()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together: give both or neither");
  }
  if (config.ca_file.empty()) {
    if (!config.cert_file.empty()) {
      return absl::InvalidArgumentError("--tls-cert needs --tls-ca: a client certificate is only sent over TLS");
    }
    absl::StatusOr<std::string> host = HostOf("server", target);
    if (!host.ok()) return host.status();
    if (!config.insecure_plaintext && !IsLoopbackHost(*host)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "refusing plaintext to ", target, ", which is not a loopback address: give --tls-ca FILE (the CA that "
          "signed the server's certificate), or --insecure-plaintext on a network you trust"));
    }
    return grpc::InsecureChannelCredentials();
  }
  if (config.insecure_plaintext) {
    return absl::InvalidArgumentError("--tls-ca and --insecure-plaintext contradict each other: give one");
  }
  grpc::SslCredentialsOptions options;
  absl::StatusOr<std::string> ca = ReadPem("tls-ca", config.ca_file);
  if (!ca.ok()) return ca.status();
  options.pem_root_certs = *std::move(ca);
  if (!config.cert_file.empty()) {
    absl::StatusOr<std::string> cert = ReadPem("tls-cert", config.cert_file);
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem("tls-key", config.key_file);
    if (!key.ok()) return key.status();
    options.pem_cert_chain = *std::move(cert);
    options.pem_private_key = *std::move(key);
  }
  return grpc::SslCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(const ServerTlsConfig& config,
                                                                               const std::string& listen) {
  if (config.cert_file.empty() != config.key_file.empty()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together: give both or neither");
  }
  if (config.cert_file.empty()) {
    if (!config.worker_client_ca.empty()) {
      return absl::InvalidArgumentError("--worker-client-ca needs --tls-cert and --tls-key: client certificates "
                                        "are only checked over TLS");
    }
    absl::StatusOr<std::string> host = HostOf("listen", listen);
    if (!host.ok()) return host.status();
    if (!config.insecure_plaintext && !IsLoopbackHost(*host)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "refusing to serve plaintext on ", listen, ", which is not a loopback address: give --tls-cert FILE "
          "and --tls-key FILE, or --insecure-plaintext on a network you trust"));
    }
    return grpc::InsecureServerCredentials();
  }
  if (config.insecure_plaintext) {
    return absl::InvalidArgumentError("--tls-cert and --insecure-plaintext contradict each other: give one");
  }
  absl::StatusOr<std::string> cert = ReadPem("tls-cert", config.cert_file);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem("tls-key", config.key_file);
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions options(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  options.pem_key_cert_pairs.push_back({*std::move(key), *std::move(cert)});
  if (!config.worker_client_ca.empty()) {
    absl::StatusOr<std::string> ca = ReadPem("worker-client-ca", config.worker_client_ca);
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *std::move(ca);
    // Asked for, not required: users' kseek has no certificate and shares the
    // port. A certificate that is presented must verify; WorkerHub then
    // refuses callers without one.
    options.client_certificate_request = GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

bool IsCertificateVerifyFailure(absl::string_view message) {
  const std::string lower = absl::AsciiStrToLower(message);
  return absl::StrContains(lower, "certificate_verify_failed") || absl::StrContains(lower, "certificate verify failed");
}

bool IsPlaintextPeer(absl::string_view message) {
  const std::string lower = absl::AsciiStrToLower(message);
  return absl::StrContains(lower, "ssl handshake failed") && absl::StrContains(lower, "wrong version number");
}

}  // namespace kseek
