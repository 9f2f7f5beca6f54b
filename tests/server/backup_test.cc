#include "server/backup.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

void Exec(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  INFO((error != nullptr ? error : "") << " in " << sql);
  sqlite3_free(error);
  REQUIRE(rc == SQLITE_OK);
}

int64_t Count(const std::string& path) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM t", -1, &stmt, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(stmt) == SQLITE_ROW);
  int64_t n = sqlite3_column_int64(stmt, 0);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return n;
}

TEST_CASE("BackupDatabase copies what is committed while a writer holds an open transaction", "[backup]") {
  testing::TempDir dir;
  const std::string db_path = dir.File("kseek.db");
  sqlite3* writer = nullptr;
  REQUIRE(sqlite3_open(db_path.c_str(), &writer) == SQLITE_OK);
  Exec(writer, "PRAGMA journal_mode=WAL");
  Exec(writer, "CREATE TABLE t(x)");
  Exec(writer, "INSERT INTO t VALUES (1), (2), (3)");
  // The server in the middle of a write: not committed, so not in the copy.
  Exec(writer, "BEGIN IMMEDIATE");
  Exec(writer, "INSERT INTO t VALUES (4)");

  const std::string backup = dir.File("copy.db");
  absl::StatusOr<int> pages = BackupDatabase(db_path, backup);
  REQUIRE(pages.ok());
  CHECK(*pages > 0);
  Exec(writer, "COMMIT");
  sqlite3_close(writer);

  CHECK(Count(backup) == 3);
  CHECK(Count(db_path) == 4);
  struct stat info;
  REQUIRE(stat(backup.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
  // One self-contained file: nothing beside it is needed to open it.
  CHECK(access((backup + "-wal").c_str(), F_OK) != 0);
}

TEST_CASE("BackupDatabase never overwrites, and leaves no file when the database is missing", "[backup]") {
  testing::TempDir dir;
  const std::string existing = dir.File("old-backup.db");
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(dir.File("kseek.db").c_str(), &db) == SQLITE_OK);
    Exec(db, "CREATE TABLE t(x)");
    sqlite3_close(db);
    FILE* f = fopen(existing.c_str(), "w");
    REQUIRE(f != nullptr);
    fputs("an older backup", f);
    fclose(f);
  }
  absl::StatusOr<int> refused = BackupDatabase(dir.File("kseek.db"), existing);
  CHECK(refused.status().code() == absl::StatusCode::kAlreadyExists);
  struct stat info;
  REQUIRE(stat(existing.c_str(), &info) == 0);
  CHECK(info.st_size == 15);

  absl::StatusOr<int> missing = BackupDatabase(dir.File("no-such.db"), dir.File("copy.db"));
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  CHECK(access(dir.File("copy.db").c_str(), F_OK) != 0);
}

}  // namespace
}  // namespace kseek
