// Fuzz target: nvcc's and ptxas's output, which carries a user's text (an
// #error line, a file name) into the worker's parsers.
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "worker/ptxas_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  kseek::ParseNvccDiagnostics(text, "$WORK/kernel.cu", "kernel.cu");
  kseek::ParsePtxasReport(text);
  return 0;
}
