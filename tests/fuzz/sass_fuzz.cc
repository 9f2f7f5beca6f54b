// Fuzz target: cuobjdump --dump-sass output, of a binary built from a user's
// source (function names and inline PTX are the user's).
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "worker/sass_summary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kseek::SummarizeSass(absl::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
