#include "client/exit_codes.h"

#include "absl/strings/str_cat.h"
#include "common/tls.h"

namespace kseek {

ExitCode ExitCodeForRpcError(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitOk;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kOutOfRange:
      return kExitUsage;
    default:
      return kExitServer;
  }
}

std::string DescribeRpcError(const absl::Status& status, absl::string_view server) {
  absl::string_view detail = status.message();
  switch (status.code()) {
    case absl::StatusCode::kUnauthenticated:
      // The server says why: unknown, revoked or expired (with when).
      return detail.empty() ? "token rejected by server" : absl::StrCat("token rejected by server: ", detail);
    case absl::StatusCode::kUnavailable:
      if (IsCertificateVerifyFailure(detail)) {
        return absl::StrCat("the TLS certificate of the server at ", server,
                            " could not be verified against the CA of --tls-ca (or $KSEEK_TLS_CA): "
                            "wrong CA, or the server's certificate does not name this address (",
                            detail, ")");
      }
      if (IsPlaintextPeer(detail)) {
        return absl::StrCat("the server at ", server,
                            " does not speak TLS (started without --tls-cert?): drop --tls-ca and $KSEEK_TLS_CA "
                            "for a loopback server, or serve TLS (",
                            detail, ")");
      }
      return detail.empty() ? absl::StrCat("cannot reach server at ", server)
                            : absl::StrCat("cannot reach server at ", server, " (", detail, ")");
    case absl::StatusCode::kDeadlineExceeded:
      return absl::StrCat("server at ", server, " did not answer in time");
    case absl::StatusCode::kPermissionDenied:
      return absl::StrCat("permission denied: ", detail);
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kResourceExhausted:
      return absl::StrCat("server rejected the request: ", detail);
    case absl::StatusCode::kNotFound:
      return std::string(detail.empty() ? "not found" : detail);
    default:
      return absl::StrCat("server error (", absl::StatusCodeToString(status.code()), "): ", detail);
  }
}

}  // namespace kseek
