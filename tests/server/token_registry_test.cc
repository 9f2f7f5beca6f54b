#include "server/token_registry.h"

#include <catch2/catch.hpp>

#include "server/token_store.h"
#include "tests/server/open_store.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);  // 2027-01-15 08:00:00 UTC

TEST_CASE("an expiry (--expires) takes a duration from now, a date or an RFC 3339 time in the future") {
  CHECK(ParseExpiry("30d", kNow).value() == kNow + absl::Hours(24 * 30));
  CHECK(ParseExpiry("12h", kNow).value() == kNow + absl::Hours(12));
  CHECK(ParseExpiry("90m", kNow).value() == kNow + absl::Minutes(90));
  CHECK(FormatUtc(ParseExpiry("2027-01-31", kNow).value()) == "2027-01-31 00:00:00 UTC");
  CHECK(FormatUtc(ParseExpiry("2027-01-15T18:30:00Z", kNow).value()) == "2027-01-15 18:30:00 UTC");
  for (const char* bad : {"", "d", "30", "30s", "-1d", "0h", "3651d", "soon", "2027-13-01"}) {
    INFO(bad);
    CHECK(ParseExpiry(bad, kNow).status().code() == absl::StatusCode::kInvalidArgument);
  }
  auto past = ParseExpiry("2027-01-15", kNow);
  CHECK(past.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(past.status().message()), Catch::Contains("not in the future"));
}

TEST_CASE("user, team and worker names are short and of plain characters") {
  CHECK(ValidateName("team", "gpu-team_2.a").ok());
  for (const char* bad : {"", "-x", ".x", "a b", "a/b", "ä", "a;b"}) {
    INFO(bad);
    CHECK(ValidateName("team", bad).code() == absl::StatusCode::kInvalidArgument);
  }
  CHECK(ValidateName("team", std::string(65, 'a')).code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(ValidateName("--user", "a b").message()), Catch::Contains("--user \"a b\""));
}

TEST_CASE("a token is created, listed without its secret and revoked once") {
  testing::TempDir dir;
  FakeClock clock(kNow);
  auto store = testing::OpenStore<TokenStore>(dir.File("db.sqlite"));
  TokenRegistry registry(store.get(), &clock);
  auto created = registry.Create({.name = "ana", .team = "blue", .role = Role::kAdmin, .expires = "30d"});
  REQUIRE(created.ok());
  CHECK(created->token.rfind("ksu_", 0) == 0);
  CHECK(created->record.expires_at == kNow + absl::Hours(24 * 30));
  REQUIRE(registry.Create({.kind = TokenKind::kWorker, .name = "gpu-1"}).ok());
  CHECK(registry.Create({.name = "bad name", .team = "blue"}).status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(registry.Create({.name = "bo", .team = ""}).status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(registry.Create({.name = "bo", .team = "blue", .expires = "yesterday"}).status().code() ==
        absl::StatusCode::kInvalidArgument);
  // Nothing of the refused ones was stored.
  std::vector<TokenRecord> blue = registry.List("blue").value();
  REQUIRE(blue.size() == 1);
  CHECK(blue[0].name == "ana");
  CHECK(registry.List("").value().size() == 2);

  clock.Advance(absl::Minutes(5));
  auto revoked = registry.Revoke(created->record.id, "blue", "ana");
  REQUIRE(revoked.ok());
  CHECK(revoked->revoked_at == kNow + absl::Minutes(5));
  CHECK(registry.Revoke(created->record.id, "blue", "ana").status().code() ==
        absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace kseek
