// CompileArtifactCache: the server's share of the fleet's compile cache.
//
// A worker that built something uploads it (a CompileCacheEntry: the build's
// result and its shared object, under the key of everything that decides the
// build; worker/compile_cache.h); a worker that needs the same key fetches it
// instead of compiling. The server cannot rebuild to check a key, so it keeps
// the first upload of each key (a later one cannot replace it), checks the
// artifact's SHA-256 against the entry's on the way in and again on the way
// out (a row that no longer matches is removed and served as a miss), bounds
// each entry and the total (least recently used rows go first), and records
// which worker uploaded what. Thread-safe (CompileArtifactStore is).
#ifndef KERNELSEEK_SERVER_COMPILE_ARTIFACT_CACHE_H_
#define KERNELSEEK_SERVER_COMPILE_ARTIFACT_CACHE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "proto/kernelseek.pb.h"
#include "server/compile_artifact_store.h"

namespace kseek {

struct CompileArtifactCacheOptions {
  // Fits in one gRPC message of the worker's (16 MiB) with room to spare.
  uint64_t max_entry_bytes = uint64_t{12} << 20;
  uint64_t max_total_bytes = uint64_t{2} << 30;
};

class CompileArtifactCache {
 public:
  CompileArtifactCache(CompileArtifactStore* store, const Clock* clock, CompileArtifactCacheOptions options)
      : store_(store), clock_(clock), options_(options) {}

  // Stores `entry` from `worker`. True when stored, false when the key was
  // there already. INVALID_ARGUMENT for a key that is not 64 lowercase hex
  // digits, an artifact whose SHA-256 is not the entry's, or an entry over
  // max_entry_bytes.
  absl::StatusOr<bool> Put(const std::string& worker, const kernelseek::v1::CompileCacheEntry& entry);
  // The entry of `key`, checked; nullopt when there is none (or it no longer
  // matched its digest, and was removed). INVALID_ARGUMENT for a bad key.
  absl::StatusOr<std::optional<kernelseek::v1::CompileCacheEntry>> Get(const std::string& key);

 private:
  CompileArtifactStore* const store_;
  const Clock* const clock_;
  const CompileArtifactCacheOptions options_;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_COMPILE_ARTIFACT_CACHE_H_
