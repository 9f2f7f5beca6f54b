// Thin RAII wrappers over the SQLite C API, after Chromium's sql/: Database
// (one connection, with a cache of its prepared statements), Statement (one
// prepared statement: checked binds, typed getters) and Transaction. Errors
// come back as absl::Status with SQLite's message and the SQL. None of them
// is thread-safe; each store serialises access to its own Database.
#ifndef KERNELSEEK_SERVER_SQLITE_H_
#define KERNELSEEK_SERVER_SQLITE_H_

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kseek {

// One prepared statement. A Statement from Database::Prepare owns its
// sqlite3_stmt; one from Database::GetCachedStatement borrows the
// connection's cached one and, on destruction, resets it and clears its
// binds so the next user starts clean.
class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt, bool* cached_in_use = nullptr)
      : db_(db), stmt_(stmt), cached_in_use_(cached_in_use) {}
  Statement(Statement&& other) noexcept
      : db_(other.db_),
        stmt_(other.stmt_),
        cached_in_use_(other.cached_in_use_),
        bind_error_(std::move(other.bind_error_)) {
    other.stmt_ = nullptr;
    other.cached_in_use_ = nullptr;
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;
  ~Statement();

  // Binds are 1-based, as in SQLite. A failed bind (an index out of range, a
  // value too big) is remembered, with the SQL and the index, and returned by
  // the next Step or Run, which then do not execute: binds chain, so the
  // error cannot be returned here.
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, double value);
  Statement& Bind(int index, absl::string_view text);
  Statement& BindBlob(int index, absl::string_view bytes);
  Statement& BindNull(int index);
  // The first failed bind since construction, or OK.
  const absl::Status& bind_status() const { return bind_error_; }

  // Steps once: true while a row is available, false when done.
  absl::StatusOr<bool> Step();
  // Steps to completion, for statements that return no rows.
  absl::Status Run();
  // Steps to completion, collecting the first column of every row.
  absl::StatusOr<std::vector<int64_t>> FirstColumnInts();

  // Column indexes are 0-based, as in SQLite. NULL reads as 0, 0.0 or "".
  int64_t ColumnInt64(int index) const { return sqlite3_column_int64(stmt_, index); }
  // Reads the stored REAL itself (sqlite3_column_double), bit for bit.
  double ColumnDouble(int index) const { return sqlite3_column_double(stmt_, index); }
  std::string ColumnString(int index) const { return ColumnBytes(index); }
  std::string ColumnBlob(int index) const { return ColumnBytes(index); }
  bool ColumnIsNull(int index) const { return sqlite3_column_type(stmt_, index) == SQLITE_NULL; }

  // Whether this Statement borrows a cached sqlite3_stmt (for tests).
  bool cached() const { return cached_in_use_ != nullptr; }
  sqlite3_stmt* raw() const { return stmt_; }

 private:
  std::string ColumnBytes(int index) const;
  void CheckBind(int rc, int index);

  sqlite3* db_;
  sqlite3_stmt* stmt_;
  // Non-null for a cached statement: the cache's "in use" flag, cleared on
  // destruction.
  bool* cached_in_use_;
  absl::Status bind_error_;
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
  // Another connection to a file that Open has checked: the same mode,
  // pragmas and busy timeout, and the read-only refusal, without the
  // integrity check (which reads the whole file) and the write probe.
  static absl::StatusOr<std::unique_ptr<Database>> Connect(const std::string& path);
  ~Database();

  // A fresh statement, finalized when the Statement goes.
  absl::StatusOr<Statement> Prepare(absl::string_view sql);
  // The connection's statement for `sql`, prepared on first use and kept
  // (as Chromium's sql::Database::GetCachedStatement); the Statement resets
  // it when it goes. Should the same SQL be asked for while its cached
  // statement is still in use (a nested query), a fresh one is prepared.
  absl::StatusOr<Statement> GetCachedStatement(absl::string_view sql);
  // How many statements the cache holds (for tests).
  size_t cached_statement_count() const { return cache_.size(); }
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
  struct CachedStatement {
    sqlite3_stmt* stmt = nullptr;
    bool in_use = false;
  };

  explicit Database(sqlite3* db) : db_(db) {}
  sqlite3* db_;
  // Node-based, so the in_use flags a Statement points to stay put.
  std::unordered_map<std::string, CachedStatement> cache_;
};

// A transaction for the scope it lives in (as Chromium's sql::Transaction):
// Begin starts it (BEGIN IMMEDIATE, so the write lock is taken up front),
// Commit commits it, and if it was begun and not committed it is rolled back
// when it goes, so an early return on an error leaves nothing half written.
class Transaction {
 public:
  explicit Transaction(Database& db) : db_(db) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  absl::Status Begin();
  absl::Status Commit();
  // Rolls back now; safe to call when not begun.
  void Rollback();
  bool is_open() const { return open_; }

 private:
  Database& db_;
  bool open_ = false;
};

// Runs `body` inside a Transaction, committing if it returns OK and rolling
// back otherwise.
template <typename Body>
absl::Status InTransaction(Database& db, Body&& body) {
  Transaction transaction(db);
  if (absl::Status s = transaction.Begin(); !s.ok()) return s;
  if (absl::Status status = body(); !status.ok()) return status;
  return transaction.Commit();
}

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_SQLITE_H_
