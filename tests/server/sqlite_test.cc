#include "server/sqlite.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

std::unique_ptr<Database> OpenWithTable(testing::TempDir& dir) {
  auto db = Database::Open(dir.File("db.sqlite"));
  REQUIRE(db.ok());
  REQUIRE((*db)->Exec("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB)").ok());
  return *std::move(db);
}

int64_t CountRows(Database& db) {
  auto q = db.Prepare("SELECT COUNT(*) FROM t");
  REQUIRE(q.ok());
  REQUIRE(q->Step().value());
  return q->ColumnInt64(0);
}

TEST_CASE("a failed bind is an error naming the SQL and the parameter, and nothing runs") {
  testing::TempDir dir;
  auto db = OpenWithTable(dir);
  auto q = db->Prepare("INSERT INTO t (i, s) VALUES (?, ?)");
  REQUIRE(q.ok());
  q->Bind(1, int64_t{7}).Bind(3, "out of range");
  REQUIRE_FALSE(q->bind_status().ok());
  absl::Status s = q->Run();
  REQUIRE(s.code() == absl::StatusCode::kInvalidArgument);
  REQUIRE_THAT(std::string(s.message()), Catch::Contains("parameter 3"));
  REQUIRE_THAT(std::string(s.message()), Catch::Contains("INSERT INTO t (i, s) VALUES (?, ?)"));
  REQUIRE(CountRows(*db) == 0);
}

TEST_CASE("the first failed bind is the one reported") {
  testing::TempDir dir;
  auto db = OpenWithTable(dir);
  auto q = db->Prepare("SELECT ?");
  REQUIRE(q.ok());
  q->Bind(0, int64_t{1}).Bind(2, int64_t{2}).Bind(1, int64_t{3});
  REQUIRE_THAT(std::string(q->Step().status().message()), Catch::Contains("parameter 0"));
}

TEST_CASE("doubles come back exactly, not through text") {
  testing::TempDir dir;
  auto db = OpenWithTable(dir);
  const double values[] = {0.1,
                           1.0 / 3.0,
                           std::nextafter(1.0, 2.0),
                           std::numeric_limits<double>::denorm_min(),
                           std::numeric_limits<double>::max(),
                           -123456.78901234567};
  for (double v : values) {
    auto ins = db->GetCachedStatement("INSERT INTO t (r) VALUES (?)");
    REQUIRE(ins.ok());
    REQUIRE(ins->Bind(1, v).Run().ok());
  }
  auto q = db->Prepare("SELECT r FROM t ORDER BY rowid");
  REQUIRE(q.ok());
  for (double v : values) {
    REQUIRE(q->Step().value());
    REQUIRE(q->ColumnDouble(0) == v);
  }
  REQUIRE_FALSE(q->Step().value());
}

TEST_CASE("typed getters read integers, text and blobs with embedded NULs") {
  testing::TempDir dir;
  auto db = OpenWithTable(dir);
  const std::string blob("a\0b\xff", 4);
  auto ins = db->Prepare("INSERT INTO t (i, s, b) VALUES (?, ?, ?)");
  REQUIRE(ins.ok());
  REQUIRE(ins->Bind(1, int64_t{1} << 40).Bind(2, "text").BindBlob(3, blob).Run().ok());
  auto q = db->Prepare("SELECT i, s, b, r FROM t");
  REQUIRE(q.ok());
  REQUIRE(q->Step().value());
  REQUIRE(q->ColumnInt64(0) == (int64_t{1} << 40));
  REQUIRE(q->ColumnString(1) == "text");
  REQUIRE(q->ColumnBlob(2) == blob);
  REQUIRE(q->ColumnIsNull(3));
  REQUIRE(q->ColumnDouble(3) == 0.0);
}

TEST_CASE("a cached statement is prepared once, reused, and reset with its binds cleared") {
  testing::TempDir dir;
  auto db = OpenWithTable(dir);
  const char* sql = "SELECT COUNT(*) FROM t WHERE i = ?";
  sqlite3_stmt* first_raw = nullptr;
  {
    auto q = db->GetCachedStatement(sql);
    REQUIRE(q.ok());
    REQUIRE(q->cached());
    first_raw = q->raw();
    REQUIRE(q->Bind(1, int64_t{5}).Step().value());
    REQUIRE(sqlite3_stmt_busy(first_raw) != 0);
  }
  // Reset when it went: not busy, and its bind is gone.
  REQUIRE(sqlite3_stmt_busy(first_raw) == 0);
  REQUIRE(sqlite3_column_count(first_raw) == 1);
  {
    auto q = db->GetCachedStatement(sql);
    REQUIRE(q.ok());
    REQUIRE(q->raw() == first_raw);
    REQUIRE(sqlite3_bind_parameter_count(q->raw()) == 1);
    REQUIRE(sqlite3_sql(q->raw()) == std::string(sql));
    char* expanded = sqlite3_expanded_sql(q->raw());
    std::string text(expanded);
    sqlite3_free(expanded);
    REQUIRE(text == "SELECT COUNT(*) FROM t WHERE i = NULL");
  }
  REQUIRE(db->cached_statement_count() == 1);
}

TEST_CASE("the same SQL asked for while its cached statement is in use gets a fresh one") {
  testing::TempDir dir;
  auto db = OpenWithTable(dir);
  REQUIRE(db->Exec("INSERT INTO t (i) VALUES (1), (2)").ok());
  const char* sql = "SELECT i FROM t ORDER BY i";
  auto outer = db->GetCachedStatement(sql);
  REQUIRE(outer.ok());
  REQUIRE(outer->Step().value());
  auto inner = db->GetCachedStatement(sql);
  REQUIRE(inner.ok());
  REQUIRE_FALSE(inner->cached());
  REQUIRE(inner->raw() != outer->raw());
  REQUIRE(inner->FirstColumnInts().value() == std::vector<int64_t>{1, 2});
  // The outer one was not disturbed.
  REQUIRE(outer->ColumnInt64(0) == 1);
  REQUIRE(outer->Step().value());
  REQUIRE(outer->ColumnInt64(0) == 2);
}

TEST_CASE("a statement that fails to prepare is not cached") {
  testing::TempDir dir;
  auto db = OpenWithTable(dir);
  auto q = db->GetCachedStatement("SELECT nope FROM t");
  REQUIRE(q.status().code() == absl::StatusCode::kInternal);
  REQUIRE_THAT(std::string(q.status().message()), Catch::Contains("SELECT nope FROM t"));
  REQUIRE(db->cached_statement_count() == 0);
}

TEST_CASE("a transaction not committed is rolled back when it goes") {
  testing::TempDir dir;
  auto db = OpenWithTable(dir);
  {
    Transaction transaction(*db);
    REQUIRE(transaction.Begin().ok());
    REQUIRE(db->Exec("INSERT INTO t (i) VALUES (1)").ok());
    REQUIRE(CountRows(*db) == 1);
  }
  REQUIRE(CountRows(*db) == 0);
  {
    Transaction transaction(*db);
    REQUIRE(transaction.Begin().ok());
    REQUIRE(db->Exec("INSERT INTO t (i) VALUES (1)").ok());
    REQUIRE(transaction.Commit().ok());
    REQUIRE_FALSE(transaction.is_open());
  }
  REQUIRE(CountRows(*db) == 1);
}

TEST_CASE("a transaction cannot be begun twice or committed unbegun") {
  testing::TempDir dir;
  auto db = OpenWithTable(dir);
  Transaction transaction(*db);
  REQUIRE(transaction.Commit().code() == absl::StatusCode::kFailedPrecondition);
  REQUIRE(transaction.Begin().ok());
  REQUIRE(transaction.Begin().code() == absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("InTransaction rolls back every write when a later statement fails") {
  testing::TempDir dir;
  auto db = OpenWithTable(dir);
  absl::Status s = InTransaction(*db, [&]() -> absl::Status {
    auto first = db->GetCachedStatement("INSERT INTO t (i) VALUES (?)");
    if (!first.ok()) return first.status();
    if (absl::Status r = first->Bind(1, int64_t{1}).Run(); !r.ok()) return r;
    auto second = db->GetCachedStatement("INSERT INTO t (i) VALUES (?)");
    if (!second.ok()) return second.status();
    return second->Bind(2, int64_t{2}).Run();
  });
  REQUIRE(s.code() == absl::StatusCode::kInvalidArgument);
  REQUIRE(CountRows(*db) == 0);
  REQUIRE(InTransaction(*db, [&] { return db->Exec("INSERT INTO t (i) VALUES (3)"); }).ok());
  REQUIRE(CountRows(*db) == 1);
}

}  // namespace
}  // namespace kseek
