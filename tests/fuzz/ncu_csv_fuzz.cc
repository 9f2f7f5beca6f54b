// Fuzz target: Nsight Compute's CSV logs of a user's kernel (kernel names,
// source lines of the user's file).
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "worker/ncu_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  (void)kseek::ParseNcuCsv(text);
  (void)kseek::ParseNcuSourceCsv(text, 10);
  return 0;
}
