// CompileArtifactStore: the rows of the fleet's compile cache (schema
// version 5), bounded in total with least recently used rows going first.
// CompileArtifactCache decides what goes in and checks what comes out.
//
// Owns its own connection to the StoreFile (see store_file.h for why); every
// method takes an internal mutex, so it is thread-safe. Each method is one
// transaction: when it returns OK the change is on disk and survives a crash
// of the process.
#ifndef KERNELSEEK_SERVER_COMPILE_ARTIFACT_STORE_H_
#define KERNELSEEK_SERVER_COMPILE_ARTIFACT_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/sqlite.h"
#include "server/store_file.h"

namespace kseek {

// One build in the fleet's compile cache.
struct CompileArtifactRow {
  std::string key;              // 64 hex digits
  std::string artifact_sha256;  // of the entry's artifact, as the server checked it
  std::string entry;            // a serialized CompileCacheEntry
  std::string worker;           // who uploaded it
  absl::Time now;               // Put: when; Get: when it was stored
};

class CompileArtifactStore {
 public:
  static absl::StatusOr<std::unique_ptr<CompileArtifactStore>> Open(const StoreFile& file);

  // Stores `row` unless its key is there already (the first upload stays),
  // then removes the least recently used rows until the total of the
  // entries is at most max_total_bytes. True when `row` was stored and kept.
  absl::StatusOr<bool> PutCompileArtifact(const CompileArtifactRow& row, uint64_t max_total_bytes);
  // The row of `key`, nullopt if none; marks it used at `now`.
  absl::StatusOr<std::optional<CompileArtifactRow>> GetCompileArtifact(const std::string& key, absl::Time now);
  absl::Status DeleteCompileArtifact(const std::string& key);

 private:
  explicit CompileArtifactStore(std::unique_ptr<Database> db) : db_(std::move(db)) {}

  absl::Mutex mu_;
  std::unique_ptr<Database> db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_COMPILE_ARTIFACT_STORE_H_
