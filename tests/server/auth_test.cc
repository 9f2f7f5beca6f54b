#include "server/auth.h"

#include <catch2/catch.hpp>

#include "common/clock.h"
#include "server/token_registry.h"
#include "server/token_store.h"
#include "tests/server/open_store.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

TEST_CASE("a token revoked through another connection to the database fails the very next check") {
  testing::TempDir dir;
  FakeClock clock;
  auto serving = testing::OpenStore<TokenStore>(dir.File("db.sqlite"));
  Authenticator auth(serving.get(), &clock);
  CreatedToken ana = TokenRegistry(serving.get(), &clock).Create({.name = "ana", .team = "blue"}).value();
  // The check that would have filled a cache.
  auto first = auth.CheckToken(ana.token, TokenKind::kUser);
  REQUIRE(first.ok());
  CHECK(first->name == "ana");
  CHECK(first->team == "blue");
  CHECK(first->role == Role::kMember);

  {
    // As `kseek-server token revoke` does, in its own process.
    auto operator_store = testing::OpenStore<TokenStore>(dir.File("db.sqlite"));
    REQUIRE(TokenRegistry(operator_store.get(), &clock).Revoke(ana.record.id, "", "").ok());
  }
  auto after = auth.CheckToken(ana.token, TokenKind::kUser);
  CHECK(after.status().code() == absl::StatusCode::kUnauthenticated);
  CHECK(after.status().message() == "token revoked at 2027-01-15 08:00:00 UTC");
}

TEST_CASE("a token stops working when it expires") {
  testing::TempDir dir;
  FakeClock clock;
  auto store = testing::OpenStore<TokenStore>(dir.File("db.sqlite"));
  Authenticator auth(store.get(), &clock);
  TokenRegistry registry(store.get(), &clock);
  CreatedToken worker = registry.Create({.kind = TokenKind::kWorker, .name = "gpu-1", .expires = "12h"}).value();
  clock.Advance(absl::Hours(12) - absl::Seconds(1));
  CHECK(auth.CheckToken(worker.token, TokenKind::kWorker).ok());
  clock.Advance(absl::Seconds(1));
  auto expired = auth.CheckToken(worker.token, TokenKind::kWorker);
  CHECK(expired.status().code() == absl::StatusCode::kUnauthenticated);
  CHECK(expired.status().message() == "token expired at 2027-01-15 20:00:00 UTC");
}

TEST_CASE("an unknown token and a token of the other kind are refused") {
  testing::TempDir dir;
  FakeClock clock;
  auto store = testing::OpenStore<TokenStore>(dir.File("db.sqlite"));
  Authenticator auth(store.get(), &clock);
  CreatedToken viewer =
      TokenRegistry(store.get(), &clock).Create({.name = "vic", .team = "blue", .role = Role::kViewer}).value();
  CHECK(auth.CheckToken("ksu_nope", TokenKind::kUser).status().code() == absl::StatusCode::kUnauthenticated);
  CHECK(auth.CheckToken(viewer.token, TokenKind::kWorker).status().code() == absl::StatusCode::kPermissionDenied);
  auto record = auth.CheckToken(viewer.token, TokenKind::kUser);
  REQUIRE(record.ok());
  CHECK(record->role == Role::kViewer);
}

}  // namespace
}  // namespace kseek
