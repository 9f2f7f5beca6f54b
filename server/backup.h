// BackupDatabase: an online copy of the server's SQLite database with
// SQLite's backup API, consistent even while a server writes to it. A plain
// function for `kseek-server backup`; thread-safe (own connections).
#ifndef KERNELSEEK_SERVER_BACKUP_H_
#define KERNELSEEK_SERVER_BACKUP_H_

#include <string>

#include "absl/status/statusor.h"

namespace kseek {

// Copies `db_path` to `to_path`, which is created 0600 and must not exist
// (ALREADY_EXISTS; nothing is written). Returns the pages copied. NOT_FOUND
// when `db_path` is missing; UNAVAILABLE when the server kept the database
// locked past a few seconds; INTERNAL with SQLite's message otherwise. A
// failed backup removes the partial file.
absl::StatusOr<int> BackupDatabase(const std::string& db_path, const std::string& to_path);

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_BACKUP_H_
