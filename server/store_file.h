// StoreFile: the one SQLite file kseek-server keeps everything in, and its
// schema. Open checks the file (integrity, writable) and applies the
// numbered migrations, all of them in this one place; the stores that read
// and write the tables (TokenStore, JobStore, CompileArtifactStore,
// SessionStore) then each open their own connection to it with Connect.
//
// Why a connection per store rather than one Database shared by all: a
// sqlite3 connection has one transaction at a time and its statement cache is
// not thread-safe, so a shared connection needs one mutex around every use by
// every store, and job traffic would wait behind session writes. With a
// connection each, WAL lets every store read while another writes, and
// writers take the file's single write lock in turn (BEGIN IMMEDIATE and the
// busy timeout, as two processes would), so a store waits at most for one
// other store's transaction, never for its reads. Each store still has its
// own mutex, as its connection is used by one thread at a time.
//
// Thread-safe. The stores do not refer to the StoreFile once connected.
#ifndef KERNELSEEK_SERVER_STORE_FILE_H_
#define KERNELSEEK_SERVER_STORE_FILE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/sqlite.h"

namespace kseek {

// The team of tokens and rows made before teams existed (schema version 4).
inline constexpr char kDefaultTeam[] = "default";

class StoreFile {
 public:
  // Opens (creating if needed) the file at `path` and migrates it to
  // LatestSchemaVersion. FAILED_PRECONDITION for a file a newer server wrote.
  static absl::StatusOr<std::unique_ptr<StoreFile>> Open(const std::string& path);
  // Migrates only up to `schema_version`: for tests that make a database as
  // an older server left it, to check what Open then does with it.
  static absl::StatusOr<std::unique_ptr<StoreFile>> OpenAtVersion(const std::string& path, int schema_version);

  // The schema version this build writes; Open migrates older files up to it.
  static int LatestSchemaVersion();
  absl::StatusOr<int> SchemaVersion();

  // A new connection to the file, for one store to own.
  absl::StatusOr<std::unique_ptr<Database>> Connect() const { return Database::Connect(path_); }
  const std::string& path() const { return path_; }

 private:
  StoreFile(std::string path, std::unique_ptr<Database> db) : path_(std::move(path)), db_(std::move(db)) {}
  absl::Status Migrate(int target_version) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<int> SchemaVersionLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  absl::Mutex mu_;
  // The checked connection the migrations ran on.
  std::unique_ptr<Database> db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_STORE_FILE_H_
