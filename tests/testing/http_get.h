// HttpGet: a plain HTTP/1.0 GET on loopback for tests that scrape the
// server's metrics endpoint; no TLS, no redirects. Thread-safe.
#ifndef KERNELSEEK_TESTS_TESTING_HTTP_GET_H_
#define KERNELSEEK_TESTS_TESTING_HTTP_GET_H_

#include <string>

#include "absl/status/statusor.h"

namespace kseek::testing {

struct HttpGetResult {
  int status_code = 0;
  std::string body;
};

// GET http://127.0.0.1:PORT/PATH. UNAVAILABLE when nothing answers.
absl::StatusOr<HttpGetResult> HttpGet(int port, const std::string& path);

}  // namespace kseek::testing

#endif  // KERNELSEEK_TESTS_TESTING_HTTP_GET_H_
