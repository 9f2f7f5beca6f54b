#include "server/sqlite.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kseek {
namespace {

absl::Status SqliteError(sqlite3* db, absl::string_view what) {
  int code = sqlite3_errcode(db);
  std::string message = absl::StrCat(what, ": ", sqlite3_errmsg(db));
  // Busy or locked means another writer holds the file: worth retrying.
  if (code == SQLITE_BUSY || code == SQLITE_LOCKED) return absl::UnavailableError(message);
  if (code == SQLITE_CONSTRAINT) return absl::FailedPreconditionError(message);
  return absl::InternalError(message);
}

// The C side of Database::AddTextFunction: the user data is the function.
void CallTextFunction(sqlite3_context* context, int argc, sqlite3_value** argv) {
  auto* fn = reinterpret_cast<std::string (*)(absl::string_view)>(sqlite3_user_data(context));
  const void* data = argc == 1 ? sqlite3_value_blob(argv[0]) : nullptr;
  const int size = argc == 1 ? sqlite3_value_bytes(argv[0]) : 0;
  std::string result =
      fn(data == nullptr ? absl::string_view() : absl::string_view(static_cast<const char*>(data), size));
  sqlite3_result_text(context, result.data(), static_cast<int>(result.size()), SQLITE_TRANSIENT);
}

// What to check when the file or its folder cannot be written.
std::string WritableHint(const std::string& path) {
  return absl::StrCat(" (the file and its folder must be writable: SQLite keeps ", path, "-wal and ", path,
                      "-shm beside it)");
}

}  // namespace

Statement::~Statement() {
  if (stmt_ == nullptr) return;
  if (cached_in_use_ != nullptr) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    *cached_in_use_ = false;
  } else {
    sqlite3_finalize(stmt_);
  }
}

void Statement::CheckBind(int rc, int index) {
  if (rc == SQLITE_OK || !bind_error_.ok()) return;
  bind_error_ = absl::InvalidArgumentError(absl::StrCat("sqlite bind of parameter ", index, " of \"",
                                                        sqlite3_sql(stmt_), "\": ", sqlite3_errstr(rc)));
}

Statement& Statement::Bind(int index, int64_t value) {
  CheckBind(sqlite3_bind_int64(stmt_, index, value), index);
  return *this;
}

Statement& Statement::Bind(int index, double value) {
  CheckBind(sqlite3_bind_double(stmt_, index, value), index);
  return *this;
}

Statement& Statement::Bind(int index, absl::string_view text) {
  CheckBind(sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8), index);
  return *this;
}

Statement& Statement::BindBlob(int index, absl::string_view bytes) {
  CheckBind(sqlite3_bind_blob64(stmt_, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT), index);
  return *this;
}

Statement& Statement::BindNull(int index) {
  CheckBind(sqlite3_bind_null(stmt_, index), index);
  return *this;
}

absl::StatusOr<bool> Statement::Step() {
  if (!bind_error_.ok()) return bind_error_;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(db_, absl::StrCat("sqlite step of \"", sqlite3_sql(stmt_), "\""));
}

absl::Status Statement::Run() {
  while (true) {
    absl::StatusOr<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
  }
}

absl::StatusOr<std::vector<int64_t>> Statement::FirstColumnInts() {
  std::vector<int64_t> values;
  while (true) {
    absl::StatusOr<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return values;
    values.push_back(ColumnInt64(0));
  }
}

std::string Statement::ColumnBytes(int index) const {
  const void* data = sqlite3_column_blob(stmt_, index);
  int size = sqlite3_column_bytes(stmt_, index);
  if (data == nullptr) return "";
  return std::string(static_cast<const char*>(data), size);
}

absl::StatusOr<std::unique_ptr<Database>> Database::Connect(const std::string& path) {
  // SQLite would create a missing file 0644 (and gives -wal and -shm the
  // file's mode), so it is created 0600 here first.
  struct stat info {};
  if (stat(path.c_str(), &info) != 0 && errno == ENOENT) {
    const int fd = open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot create database ", path, ": ", std::strerror(errno)));
    }
    if (fd >= 0) close(fd);
  }
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string message = raw ? sqlite3_errmsg(raw) : "out of memory";
    sqlite3_close(raw);
    return absl::FailedPreconditionError(absl::StrCat("cannot open database ", path, ": ", message));
  }
  std::unique_ptr<Database> db(new Database(raw));
  // SQLite silently falls back to read-only when the file is not writable;
  // then every later write would fail INTERNAL, so refuse now.
  if (sqlite3_db_readonly(raw, "main") == 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        "database ", path, " is read-only for this process; the server writes it (check the file's permissions)"));
  }
  sqlite3_busy_timeout(raw, 5000);
  // WAL with synchronous=NORMAL: a committed transaction survives a crash of
  // this process (kill -9); only an OS crash or power loss can drop the last
  // few, which keeps commits cheap enough for thousands of jobs a second.
  if (absl::Status s = db->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
      !s.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot set up database ", path, ": ", s.message(), WritableHint(path)));
  }
  return db;
}

absl::StatusOr<std::unique_ptr<Database>> Database::Open(const std::string& path) {
  absl::StatusOr<std::unique_ptr<Database>> connected = Connect(path);
  if (!connected.ok()) return connected.status();
  std::unique_ptr<Database> db = *std::move(connected);
  if (absl::Status s = db->CheckIntegrity(); !s.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("database ", path, " is damaged: ", s.message(), "; restore it from a backup"));
  }
  // A real write, committed, so that a file or folder that cannot be written
  // (a WAL that cannot be created, a full disk) is found before serving.
  if (absl::Status s = InTransaction(*db, [&] {
        return db->Exec("CREATE TABLE kseek_write_probe (x); DROP TABLE kseek_write_probe;");
      });
      !s.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write database ", path, ": ", s.message(), WritableHint(path)));
  }
  return db;
}

absl::Status Database::AddTextFunction(const std::string& name, std::string (*fn)(absl::string_view)) {
  if (sqlite3_create_function_v2(db_, name.c_str(), 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                 reinterpret_cast<void*>(fn), &CallTextFunction, nullptr, nullptr,
                                 nullptr) != SQLITE_OK) {
    return SqliteError(db_, absl::StrCat("cannot add SQL function ", name));
  }
  return absl::OkStatus();
}

absl::Status Database::CheckIntegrity() {
  absl::StatusOr<Statement> q = Prepare("PRAGMA integrity_check(10)");
  if (!q.ok()) return q.status();
  std::vector<std::string> problems;
  while (true) {
    absl::StatusOr<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    std::string line = q->ColumnString(0);
    if (line != "ok") problems.push_back(std::move(line));
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat("PRAGMA integrity_check: ", absl::StrJoin(problems, "; ")));
}

Database::~Database() {
  for (auto& [sql, cached] : cache_) sqlite3_finalize(cached.stmt);
  sqlite3_close_v2(db_);
}

absl::StatusOr<Statement> Database::GetCachedStatement(absl::string_view sql) {
  auto [it, inserted] = cache_.try_emplace(std::string(sql));
  if (it->second.in_use) return Prepare(sql);
  if (inserted) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt,
                           nullptr) != SQLITE_OK) {
      absl::Status status = SqliteError(db_, absl::StrCat("sqlite prepare of \"", sql, "\""));
      cache_.erase(it);
      return status;
    }
    it->second.stmt = stmt;
  }
  it->second.in_use = true;
  return Statement(db_, it->second.stmt, &it->second.in_use);
}

Transaction::~Transaction() { Rollback(); }

absl::Status Transaction::Begin() {
  if (open_) return absl::FailedPreconditionError("transaction already begun");
  if (absl::Status s = db_.Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  open_ = true;
  return absl::OkStatus();
}

absl::Status Transaction::Commit() {
  if (!open_) return absl::FailedPreconditionError("commit of a transaction that was not begun");
  absl::Status s = db_.Exec("COMMIT");
  // A failed COMMIT (SQLITE_BUSY) leaves the transaction open; the
  // destructor then rolls it back.
  if (s.ok()) open_ = false;
  return s;
}

void Transaction::Rollback() {
  if (!open_) return;
  open_ = false;
  db_.Exec("ROLLBACK").IgnoreError();
}

absl::StatusOr<Statement> Database::Prepare(absl::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK) {
    return SqliteError(db_, absl::StrCat("sqlite prepare of \"", sql, "\""));
  }
  return Statement(db_, stmt);
}

absl::Status Database::Exec(absl::string_view sql) {
  std::string text(sql);
  char* error = nullptr;
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    absl::Status status = SqliteError(db_, absl::StrCat("sqlite exec of \"", text, "\""));
    sqlite3_free(error);
    return status;
  }
  return absl::OkStatus();
}

}  // namespace kseek
