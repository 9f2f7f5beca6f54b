// Thin RAII wrappers over the SQLite C API: Database (one connection) and
// Statement (one prepared statement). Errors come back as absl::Status with
// SQLite's message. Neither class is thread-safe; Store serialises access.
#ifndef KERNELSEEK_SERVER_SQLITE_H_
#define KERNELSEEK_SERVER_SQLITE_H_

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kseek {

class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_) { other.stmt_ = nullptr; }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(stmt_); }

  // Binds are 1-based, as in SQLite.
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, double value);
  Statement& Bind(int index, absl::string_view text);
  Statement& BindBlob(int index, absl::string_view bytes);
  Statement& BindNull(int index);

  // Steps once: true while a row is available, false when done.
  absl::StatusOr<bool> Step();
  // Steps to completion, for statements that return no rows.
  absl::Status Run();
  // Steps to completion, collecting the first column of every row.
  absl::StatusOr<std::vector<int64_t>> FirstColumnInts();

  int64_t ColumnInt(int index) const { return sqlite3_column_int64(stmt_, index); }
  std::string ColumnText(int index) const;
  bool ColumnIsNull(int index) const { return sqlite3_column_type(stmt_, index) == SQLITE_NULL; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

class Database {
 public:
  // Opens (creating if needed, mode 0600) the file at `path` in WAL mode with
  // foreign keys on and a busy timeout, so a second process waits instead of
  // failing. Before returning it checks what every later call relies on:
  // FAILED_PRECONDITION with the path and what to do when the file is
  // read-only, is not a database, fails PRAGMA integrity_check, or cannot be
  // written (a committed probe transaction; e.g. its folder is not writable).
  static absl::StatusOr<std::unique_ptr<Database>> Open(const std::string& path);
  ~Database();

  absl::StatusOr<Statement> Prepare(absl::string_view sql);
  // Runs one or more statements that return no rows.
  absl::Status Exec(absl::string_view sql);
  int64_t LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }
  int Changes() const { return sqlite3_changes(db_); }
  // Makes `fn` callable from SQL as `name(x)`: one argument, read as a blob,
  // and a text result. `fn` must be pure (SQLite may call it any number of
  // times) and must not touch this Database.
  absl::Status AddTextFunction(const std::string& name, std::string (*fn)(absl::string_view));
  // PRAGMA integrity_check: DATA_LOSS with its first findings.
  absl::Status CheckIntegrity();

 private:
  explicit Database(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

// Runs `body` inside BEGIN IMMEDIATE ... COMMIT, rolling back if it fails.
template <typename Body>
absl::Status InTransaction(Database& db, Body&& body) {
  if (absl::Status s = db.Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  absl::Status status = body();
  if (!status.ok()) {
    db.Exec("ROLLBACK").IgnoreError();
    return status;
  }
  return db.Exec("COMMIT");
}

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_SQLITE_H_
