// CompileCache: builds this worker (and, through the server, the fleet) has
// already made, by a key of everything that decides a build, so that the
// verify, bench and profile jobs of one kernel version compile it once.
//
// The key is the SHA-256 of CompileCacheKeyText: the source's SHA-256, the
// nvcc command line (every flag and define, the job folder and output shown
// as placeholders), nvcc's whole `--version` text, the arch, and whether a
// SASS summary was made. An entry is only ever used for exactly that key.
//
// On disk: one file per key, DIR/<key>.entry (a serialized CompileCacheEntry),
// written to a temp file in DIR and renamed, so a reader sees a whole entry
// or none. Each read checks the entry's key and the artifact's SHA-256; a
// corrupt entry is removed and read as a miss. The folder is kept under
// max_bytes by removing the least recently used entries (a hit touches the
// file's mtime). Thread-safe; several worker processes may share a folder.
#ifndef KERNELSEEK_WORKER_COMPILE_CACHE_H_
#define KERNELSEEK_WORKER_COMPILE_CACHE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

// What the key is made of (see the header comment).
struct CompileCacheKeyParts {
  std::string source_sha256;
  std::vector<std::string> nvcc_argv;  // job folder as $WORK, output as $OUT
  std::string nvcc_version;            // `nvcc --version`, whole
  std::string arch;
  bool sass_summary = false;
};

// The canonical text the key hashes, one component per line.
std::string CompileCacheKeyText(const CompileCacheKeyParts& parts);
// SHA-256 hex of CompileCacheKeyText.
std::string CompileCacheKey(const CompileCacheKeyParts& parts);
// OK for 64 lowercase hex digits; INVALID_ARGUMENT otherwise.
absl::Status CheckCompileCacheKey(const std::string& key);
// OK when `entry` is for `key` and its artifact has its stated SHA-256;
// DATA_LOSS saying which does not hold otherwise.
absl::Status CheckCompileCacheEntry(const kernelseek::v1::CompileCacheEntry& entry, const std::string& key);

// The fleet's share of the cache, on the server (WorkerHub's
// Get/PutCompiledArtifact). Implementations are thread-safe.
class RemoteCompileCache {
 public:
  virtual ~RemoteCompileCache() = default;
  // nullopt when the server has no entry for `key`; an error when it could
  // not be asked. The caller checks the entry.
  virtual absl::StatusOr<std::optional<kernelseek::v1::CompileCacheEntry>> Fetch(const std::string& key) = 0;
  virtual absl::Status Upload(const kernelseek::v1::CompileCacheEntry& entry) = 0;
};

struct CompileCacheOptions {
  std::string dir;
  uint64_t max_bytes = uint64_t{2} << 30;
  // An entry larger than this is neither kept nor uploaded.
  uint64_t max_entry_bytes = uint64_t{256} << 20;
  // Not owned; null: this worker's disk only.
  RemoteCompileCache* remote = nullptr;
};

class CompileCache {
 public:
  // Makes `dir` (0700) if needed; FAILED_PRECONDITION when it cannot, or for
  // a max_bytes of 0.
  static absl::StatusOr<std::unique_ptr<CompileCache>> Open(CompileCacheOptions options);

  struct Found {
    kernelseek::v1::CompileCacheEntry entry;
    bool from_server = false;
  };
  // The entry for `key`: from disk, else from the server (then kept on disk
  // too); nullopt on a miss. A corrupt or unreadable entry on disk is
  // removed and `*note` says so; a server that cannot be reached, or serves
  // an entry that fails its check, is a miss with a note too.
  std::optional<Found> Lookup(const std::string& key, std::string* note);

  // Keeps `entry` on disk (replacing any entry of its key), evicts the least
  // recently used entries beyond max_bytes, and, when `upload`, sends it to
  // the server. An error only when it could not be kept on disk; a failed
  // upload is added to `*note`.
  absl::Status Put(const kernelseek::v1::CompileCacheEntry& entry, bool upload, std::string* note);

  // Bytes of the entries on disk now.
  uint64_t DiskBytes();
  const CompileCacheOptions& options() const { return options_; }

 private:
  explicit CompileCache(CompileCacheOptions options) : options_(std::move(options)) {}
  std::string PathOf(const std::string& key) const;
  absl::Status WriteLocked(const kernelseek::v1::CompileCacheEntry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EvictLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const CompileCacheOptions options_;
  // Serialises this process's writes and evictions; readers of a renamed
  // file need no lock.
  absl::Mutex mu_;
};

}  // namespace kseek

#endif  // KERNELSEEK_WORKER_COMPILE_CACHE_H_
