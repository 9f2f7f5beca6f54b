#include "worker/runner/reference.h"

namespace kseek::runner {

ReferenceFn FindReference(absl::string_view name) {
  if (name == "attention_fwd") return &AttentionFwdReference;
  return nullptr;
}

}  // namespace kseek::runner
