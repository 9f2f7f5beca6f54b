#include "server/compile_artifact_cache.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "problem/problem_digest.h"

namespace kseek {
namespace {

absl::Status CheckKey(const std::string& key) {
  if (!IsSha256Hex(key)) {
    return absl::InvalidArgumentError(
        absl::StrCat("compile cache key \"", key.substr(0, 80), "\" is not 64 lowercase hex digits"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> CompileArtifactCache::Put(const std::string& worker,
                                               const kernelseek::v1::CompileCacheEntry& entry) {
  if (absl::Status s = CheckKey(entry.key()); !s.ok()) return s;
  const size_t size = entry.ByteSizeLong();
  if (size > options_.max_entry_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("compile cache entry ", entry.key().substr(0, 12), " is ", size,
                                                   " bytes, over the server's limit of ", options_.max_entry_bytes));
  }
  const std::string digest = Sha256Hex(entry.artifact());
  if (digest != entry.artifact_sha256()) {
    return absl::InvalidArgumentError(absl::StrCat("compile cache entry ", entry.key().substr(0, 12),
                                                   ": the artifact's SHA-256 is ", digest, ", the entry says \"",
                                                   entry.artifact_sha256().substr(0, 64), "\""));
  }
  CompileArtifactRow row;
  row.key = entry.key();
  row.artifact_sha256 = digest;
  row.entry = entry.SerializeAsString();
  row.worker = worker;
  row.now = clock_->Now();
  return store_->PutCompileArtifact(row, options_.max_total_bytes);
}

absl::StatusOr<std::optional<kernelseek::v1::CompileCacheEntry>> CompileArtifactCache::Get(const std::string& key) {
  if (absl::Status s = CheckKey(key); !s.ok()) return s;
  absl::StatusOr<std::optional<CompileArtifactRow>> row = store_->GetCompileArtifact(key, clock_->Now());
  if (!row.ok()) return row.status();
  if (!row->has_value()) return std::nullopt;
  kernelseek::v1::CompileCacheEntry entry;
  // What was checked on the way in is checked again: a row damaged since
  // is never served.
  if (!entry.ParseFromString((*row)->entry) || entry.key() != key ||
      Sha256Hex(entry.artifact()) != (*row)->artifact_sha256 || entry.artifact_sha256() != (*row)->artifact_sha256) {
    Log(absl::StrCat("compile cache entry ", key.substr(0, 12), " from ", (*row)->worker,
                     " no longer matches its digest; removed"));
    if (absl::Status s = store_->DeleteCompileArtifact(key); !s.ok()) return s;
    return std::nullopt;
  }
  return entry;
}

}  // namespace kseek
