#include "server/compile_artifact_cache.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "problem/problem_digest.h"
#include "server/compile_artifact_store.h"
#include "server/sqlite.h"
#include "tests/server/open_store.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using kernelseek::v1::CompileCacheEntry;

std::string KeyOf(int i) { return Sha256Hex(absl::StrCat("build ", i)); }

CompileCacheEntry Entry(const std::string& key, const std::string& artifact) {
  CompileCacheEntry entry;
  entry.set_key(key);
  entry.mutable_result()->set_success(true);
  entry.set_artifact(artifact);
  entry.set_artifact_sha256(Sha256Hex(artifact));
  return entry;
}

struct Fixture {
  Fixture() {
    store = testing::OpenStore<CompileArtifactStore>(dir.File("kseek.db"));
  }
  testing::TempDir dir;
  std::unique_ptr<CompileArtifactStore> store;
  FakeClock clock;
};

TEST_CASE("the server keeps a worker's build and serves it by key") {
  Fixture f;
  CompileArtifactCache cache(f.store.get(), &f.clock, {});
  absl::StatusOr<bool> stored = cache.Put("gpu-1", Entry(KeyOf(1), "ELF"));
  REQUIRE(stored.ok());
  CHECK(*stored);
  absl::StatusOr<std::optional<CompileCacheEntry>> got = cache.Get(KeyOf(1));
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CHECK((*got)->artifact() == "ELF");
  CHECK((*got)->result().success());
  got = cache.Get(KeyOf(2));
  REQUIRE(got.ok());
  CHECK_FALSE(got->has_value());
}

TEST_CASE("the first upload of a key stays: a later one cannot replace it") {
  Fixture f;
  CompileArtifactCache cache(f.store.get(), &f.clock, {});
  REQUIRE(*cache.Put("gpu-1", Entry(KeyOf(1), "first")));
  absl::StatusOr<bool> second = cache.Put("gpu-2", Entry(KeyOf(1), "second"));
  REQUIRE(second.ok());
  CHECK_FALSE(*second);
  CHECK((*cache.Get(KeyOf(1)))->artifact() == "first");
}

TEST_CASE("the server refuses an entry with a bad key, a wrong digest or over its size") {
  Fixture f;
  CompileArtifactCache cache(f.store.get(), &f.clock, {.max_entry_bytes = 1000});
  CompileCacheEntry wrong_digest = Entry(KeyOf(1), "ELF");
  wrong_digest.set_artifact("FLE");
  absl::StatusOr<bool> r = cache.Put("gpu-1", wrong_digest);
  CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(r.status().message()), Catch::Contains("SHA-256"));
  CHECK(cache.Put("gpu-1", Entry("../x", "ELF")).status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(cache.Put("gpu-1", Entry(KeyOf(2), std::string(2000, 'x'))).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(cache.Get("not-a-key").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_FALSE(cache.Get(KeyOf(1))->has_value());
  CHECK_FALSE(cache.Get(KeyOf(2))->has_value());
}

TEST_CASE("the server's cache drops the least recently used builds beyond its size") {
  Fixture f;
  const std::string artifact(1000, 'a');
  const uint64_t one = Entry(KeyOf(0), artifact).SerializeAsString().size();
  CompileArtifactCache cache(f.store.get(), &f.clock, {.max_total_bytes = 2 * one + one / 2});
  REQUIRE(*cache.Put("w", Entry(KeyOf(0), artifact)));
  f.clock.Advance(absl::Seconds(1));
  REQUIRE(*cache.Put("w", Entry(KeyOf(1), artifact)));
  f.clock.Advance(absl::Seconds(1));
  REQUIRE(cache.Get(KeyOf(0))->has_value());  // 1 is now the least recently used
  f.clock.Advance(absl::Seconds(1));
  REQUIRE(*cache.Put("w", Entry(KeyOf(2), artifact)));
  CHECK(cache.Get(KeyOf(0))->has_value());
  CHECK_FALSE(cache.Get(KeyOf(1))->has_value());
  CHECK(cache.Get(KeyOf(2))->has_value());
}

TEST_CASE("a stored build that no longer matches its digest is removed, not served") {
  Fixture f;
  CompileArtifactCache cache(f.store.get(), &f.clock, {});
  REQUIRE(*cache.Put("gpu-1", Entry(KeyOf(1), "ELF")));
  {
    auto db = Database::Open(f.dir.File("kseek.db"));
    REQUIRE(db.ok());
    CompileCacheEntry tampered = Entry(KeyOf(1), "ELF");
    tampered.set_artifact("EVIL");
    auto q = (*db)->Prepare("UPDATE compile_artifacts SET entry = ? WHERE key = ?");
    REQUIRE(q.ok());
    REQUIRE(q->BindBlob(1, tampered.SerializeAsString()).Bind(2, KeyOf(1)).Run().ok());
  }
  absl::StatusOr<std::optional<CompileCacheEntry>> got = cache.Get(KeyOf(1));
  REQUIRE(got.ok());
  CHECK_FALSE(got->has_value());
  // Gone, so a good build can be uploaded again.
  CHECK(*cache.Put("gpu-2", Entry(KeyOf(1), "ELF")));
}

}  // namespace
}  // namespace kseek
