#include "common/tls.h"

#include <catch2/catch.hpp>

namespace kseek {
namespace {

TEST_CASE("IsLoopbackHost: 127/8, ::1 and localhost only", "[tls]") {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST"}) {
    INFO(host);
    CHECK(IsLoopbackHost(host));
  }
  for (const char* host : {"0.0.0.0", "10.0.0.1", "127.0.0", "127.0.0.1.example.com", "127.0.0.x", "[::]", "::",
                           "localhost.example.com", "example.com", ""}) {
    INFO(host);
    CHECK_FALSE(IsLoopbackHost(host));
  }
}

TEST_CASE("MakeChannelCredentials: plaintext to loopback, refused elsewhere without --insecure-plaintext", "[tls]") {
  CHECK(MakeChannelCredentials({}, "127.0.0.1:7070").ok());
  CHECK(MakeChannelCredentials({}, "localhost:7070").ok());
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> refused = MakeChannelCredentials({}, "10.1.2.3:7070");
  CHECK(refused.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(refused.status().message()),
             Catch::Contains("10.1.2.3:7070") && Catch::Contains("--tls-ca") && Catch::Contains("--insecure-plaintext"));
  ClientTlsConfig plaintext;
  plaintext.insecure_plaintext = true;
  CHECK(MakeChannelCredentials(plaintext, "10.1.2.3:7070").ok());
}

TEST_CASE("MakeChannelCredentials refuses contradictions and unreadable files", "[tls]") {
  ClientTlsConfig both;
  both.ca_file = "/nonexistent/ca.pem";
  both.insecure_plaintext = true;
  CHECK(MakeChannelCredentials(both, "127.0.0.1:7070").status().code() == absl::StatusCode::kInvalidArgument);
  ClientTlsConfig missing;
  missing.ca_file = "/nonexistent/ca.pem";
  CHECK_THAT(std::string(MakeChannelCredentials(missing, "127.0.0.1:7070").status().message()),
             Catch::Contains("cannot read /nonexistent/ca.pem"));
  ClientTlsConfig half;
  half.ca_file = "/nonexistent/ca.pem";
  half.cert_file = "/nonexistent/cert.pem";
  CHECK_THAT(std::string(MakeChannelCredentials(half, "127.0.0.1:7070").status().message()),
             Catch::Contains("--tls-cert and --tls-key go together"));
}

TEST_CASE("MakeServerCredentials: plaintext on loopback only, --worker-client-ca needs a certificate", "[tls]") {
  CHECK(MakeServerCredentials({}, "127.0.0.1:0").ok());
  CHECK(MakeServerCredentials({}, "0.0.0.0:7070").status().code() == absl::StatusCode::kInvalidArgument);
  ServerTlsConfig plaintext;
  plaintext.insecure_plaintext = true;
  CHECK(MakeServerCredentials(plaintext, "0.0.0.0:7070").ok());
  ServerTlsConfig mtls_without_cert;
  mtls_without_cert.worker_client_ca = "/nonexistent/ca.pem";
  CHECK_THAT(std::string(MakeServerCredentials(mtls_without_cert, "127.0.0.1:0").status().message()),
             Catch::Contains("--worker-client-ca needs --tls-cert"));
}

TEST_CASE("IsCertificateVerifyFailure recognises OpenSSL's and BoringSSL's wording", "[tls]") {
  CHECK(IsCertificateVerifyFailure(
      "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:1: Ssl handshake failed: "
      "SSL_ERROR_SSL: error:0A000086:SSL routines::certificate verify failed"));
  CHECK(IsCertificateVerifyFailure("SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED"));
  CHECK_FALSE(IsCertificateVerifyFailure("failed to connect to all addresses; last error: Socket closed"));
}

}  // namespace
}  // namespace kseek

namespace kseek {
namespace {

TEST_CASE("IsPlaintextPeer recognises a TLS handshake answered in plaintext", "[tls]") {
  CHECK(IsPlaintextPeer("last error: UNKNOWN: ipv4:127.0.0.1:1: Ssl handshake failed: SSL_ERROR_SSL: "
                        "error:0A00010B:SSL routines::wrong version number"));
  CHECK_FALSE(IsPlaintextPeer("Ssl handshake failed: SSL_ERROR_SSL: certificate verify failed"));
}

}  // namespace
}  // namespace kseek
