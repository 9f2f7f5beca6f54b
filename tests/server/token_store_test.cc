#include "server/token_store.h"

#include <catch2/catch.hpp>
#include <string>

#include "tests/server/open_store.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

TEST_CASE("tokens are found by hash with their kind") {
  testing::TempDir dir;
  auto store = testing::OpenStore<TokenStore>(dir.File("db.sqlite"));
  REQUIRE(store->AddToken({.kind = TokenKind::kWorker, .name = "gpu-1", .created_at = absl::Now()}, "abc123").ok());
  auto found = store->FindToken("abc123").value();
  REQUIRE(found.has_value());
  REQUIRE(found->kind == TokenKind::kWorker);
  REQUIRE(found->name == "gpu-1");
  REQUIRE_FALSE(store->FindToken("other").value().has_value());
  // The same hash twice is a constraint violation, not a silent overwrite.
  REQUIRE_FALSE(
      store->AddToken({.kind = TokenKind::kUser, .name = "x", .team = "t", .created_at = absl::Now()}, "abc123").ok());
}

TEST_CASE("tokens keep team, role, expiry and author - a revocation is stored once") {
  testing::TempDir dir;
  auto store = testing::OpenStore<TokenStore>(dir.File("db.sqlite"));
  const absl::Time t0 = absl::FromUnixSeconds(1'800'000'000);
  TokenRecord viewer{.kind = TokenKind::kUser, .name = "vic", .team = "blue", .role = Role::kViewer,
                     .created_at = t0, .created_by = "ada", .expires_at = t0 + absl::Hours(12)};
  int64_t id = store->AddToken(viewer, "h-vic").value();
  REQUIRE(store->AddToken({.kind = TokenKind::kUser, .name = "rex", .team = "red", .role = Role::kAdmin,
                           .created_at = t0},
                          "h-rex")
              .ok());
  auto found = store->FindToken("h-vic").value();
  REQUIRE(found.has_value());
  CHECK(found->id == id);
  CHECK(found->team == "blue");
  CHECK(found->role == Role::kViewer);
  CHECK(found->created_by == "ada");
  CHECK(found->expires_at == t0 + absl::Hours(12));
  REQUIRE(store->ListTokens("blue").value().size() == 1);
  CHECK(store->ListTokens("").value().size() == 2);

  // Scoped to another team, the token does not exist.
  CHECK(store->RevokeToken(id, "red", "rex", t0).status().code() == absl::StatusCode::kNotFound);
  auto revoked = store->RevokeToken(id, "blue", "ada", t0 + absl::Minutes(1));
  REQUIRE(revoked.ok());
  CHECK(revoked->revoked_at == t0 + absl::Minutes(1));
  CHECK(store->FindToken("h-vic").value()->revoked_by == "ada");
  auto again = store->RevokeToken(id, "", "", t0 + absl::Minutes(2));
  CHECK(again.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(again.status().message()),
             Catch::Contains("already revoked at 2027-01-15 08:01:00 UTC by ada"));
  CHECK(store->RevokeToken(999, "", "", t0).status().code() == absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace kseek
