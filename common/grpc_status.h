// Conversions between absl::Status and grpc::Status. Their codes map 1:1.
#ifndef KERNELSEEK_COMMON_GRPC_STATUS_H_
#define KERNELSEEK_COMMON_GRPC_STATUS_H_

#include <string>

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace kseek {

inline grpc::Status ToGrpcStatus(const absl::Status& status) {
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

inline absl::Status FromGrpcStatus(const grpc::Status& status) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_GRPC_STATUS_H_
