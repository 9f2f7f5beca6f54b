#include "worker/compile_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "problem/problem_digest.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using kernelseek::v1::CompileCacheEntry;

CompileCacheKeyParts Parts() {
  CompileCacheKeyParts parts;
  parts.source_sha256 = Sha256Hex("__global__ void k() {}");
  parts.nvcc_argv = {"/usr/local/cuda/bin/nvcc", "-shared", "-O3", "-DTILE=64", "$WORK/k.cu", "-o", "$OUT"};
  parts.nvcc_version = "Cuda compilation tools, release 13.0, V13.0.88";
  parts.arch = "sm_90a";
  parts.sass_summary = true;
  return parts;
}

CompileCacheEntry Entry(const std::string& key, const std::string& artifact) {
  CompileCacheEntry entry;
  entry.set_key(key);
  entry.mutable_result()->set_success(true);
  entry.mutable_result()->set_command("nvcc ...");
  entry.set_artifact(artifact);
  entry.set_artifact_sha256(Sha256Hex(artifact));
  return entry;
}

std::string KeyOf(int i) { return Sha256Hex(absl::StrCat("entry ", i)); }

// The server's side, in memory; counts calls.
class FakeRemote final : public RemoteCompileCache {
 public:
  absl::StatusOr<std::optional<CompileCacheEntry>> Fetch(const std::string& key) override {
    ++fetches;
    if (!reachable) return absl::UnavailableError("connection refused");
    auto it = entries.find(key);
    if (it == entries.end()) return std::nullopt;
    return it->second;
  }
  absl::Status Upload(const CompileCacheEntry& entry) override {
    ++uploads;
    entries[entry.key()] = entry;
    return absl::OkStatus();
  }
  std::map<std::string, CompileCacheEntry> entries;
  bool reachable = true;
  int fetches = 0;
  int uploads = 0;
};

TEST_CASE("the compile cache key changes with every component and only with them") {
  const std::string base = CompileCacheKey(Parts());
  CHECK(base.size() == 64);
  CHECK(CheckCompileCacheKey(base).ok());
  CHECK(CompileCacheKey(Parts()) == base);

  CompileCacheKeyParts p = Parts();
  p.source_sha256 = Sha256Hex("__global__ void k() { }");
  CHECK(CompileCacheKey(p) != base);
  p = Parts();
  p.nvcc_argv[3] = "-DTILE=128";
  CHECK(CompileCacheKey(p) != base);
  p = Parts();
  p.nvcc_argv.push_back("-lineinfo");
  CHECK(CompileCacheKey(p) != base);
  p = Parts();
  p.nvcc_version = "Cuda compilation tools, release 13.0, V13.0.89";
  CHECK(CompileCacheKey(p) != base);
  p = Parts();
  p.arch = "sm_100a";
  CHECK(CompileCacheKey(p) != base);
  p = Parts();
  p.sass_summary = false;
  CHECK(CompileCacheKey(p) != base);
  // Arguments are length-prefixed: splitting one differently is another key.
  p = Parts();
  p.nvcc_argv = {"/usr/local/cuda/bin/nvcc", "-shared -O3", "-DTILE=64", "$WORK/k.cu", "-o", "$OUT"};
  CHECK(CompileCacheKey(p) != base);

  CHECK_FALSE(CheckCompileCacheKey("../../etc/passwd").ok());
  CHECK_FALSE(CheckCompileCacheKey(std::string(64, 'A')).ok());
}

TEST_CASE("a stored entry is found by its key, and only by it") {
  testing::TempDir dir;
  auto cache = CompileCache::Open({.dir = dir.File("cache"), .max_bytes = 1 << 20});
  REQUIRE(cache.ok());
  std::string note;
  const std::string key = CompileCacheKey(Parts());
  CHECK_FALSE((*cache)->Lookup(key, &note).has_value());
  REQUIRE((*cache)->Put(Entry(key, "ELF shared object"), false, &note).ok());
  std::optional<CompileCache::Found> found = (*cache)->Lookup(key, &note);
  REQUIRE(found.has_value());
  CHECK(found->entry.artifact() == "ELF shared object");
  CHECK_FALSE(found->from_server);
  CHECK(note.empty());
  CHECK_FALSE((*cache)->Lookup(KeyOf(1), &note).has_value());
  // Only the owner may read users' builds.
  struct stat info;
  REQUIRE(stat(dir.File("cache").c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0700);
  // Written by rename: no temp file is left beside the entries.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.File("cache"))) {
    ++files;
    CHECK(e.path().filename().string() == key + ".entry");
  }
  CHECK(files == 1);
}

TEST_CASE("a corrupt entry is detected, removed and read as a miss") {
  testing::TempDir dir;
  auto cache = CompileCache::Open({.dir = dir.File("cache"), .max_bytes = 1 << 20});
  REQUIRE(cache.ok());
  const std::string key = CompileCacheKey(Parts());
  std::string note;
  const std::string path = dir.File("cache/" + key + ".entry");

  SECTION("the artifact's bytes changed") {
    REQUIRE((*cache)->Put(Entry(key, "ELF shared object"), false, &note).ok());
    std::string bytes;
    {
      std::ifstream in(path, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const size_t at = bytes.find("ELF shared object");
    REQUIRE(at != std::string::npos);
    bytes[at] = 'X';
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    CHECK_FALSE((*cache)->Lookup(key, &note).has_value());
    CHECK_THAT(note, Catch::Contains("SHA-256") && Catch::Contains("building afresh"));
  }
  SECTION("the file is cut short") {
    REQUIRE((*cache)->Put(Entry(key, std::string(1000, 'x')), false, &note).ok());
    std::filesystem::resize_file(path, 100);
    CHECK_FALSE((*cache)->Lookup(key, &note).has_value());
    CHECK_FALSE(note.empty());
  }
  SECTION("the entry under one key holds another's") {
    REQUIRE((*cache)->Put(Entry(KeyOf(2), "other build"), false, &note).ok());
    std::filesystem::rename(dir.File("cache/" + KeyOf(2) + ".entry"), path);
    CHECK_FALSE((*cache)->Lookup(key, &note).has_value());
    CHECK_THAT(note, Catch::Contains("holds key"));
  }
  CHECK_FALSE(std::filesystem::exists(path));
  // Stored again, it is found again.
  REQUIRE((*cache)->Put(Entry(key, "rebuilt"), false, &note).ok());
  REQUIRE((*cache)->Lookup(key, &note).has_value());
}

TEST_CASE("the cache stays under its size by dropping the least recently used entries") {
  testing::TempDir dir;
  const std::string artifact(10000, 'a');
  const uint64_t one = Entry(KeyOf(0), artifact).ByteSizeLong();
  // Room for three entries, not four.
  auto cache = CompileCache::Open({.dir = dir.File("cache"), .max_bytes = 3 * one + one / 2});
  REQUIRE(cache.ok());
  std::string note;
  for (int i = 0; i < 3; ++i) {
    REQUIRE((*cache)->Put(Entry(KeyOf(i), artifact), false, &note).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Entry 0 is used again, so entry 1 is now the least recently used.
  REQUIRE((*cache)->Lookup(KeyOf(0), &note).has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE((*cache)->Put(Entry(KeyOf(3), artifact), false, &note).ok());
  CHECK((*cache)->DiskBytes() <= 3 * one + one / 2);
  CHECK((*cache)->Lookup(KeyOf(0), &note).has_value());
  CHECK_FALSE((*cache)->Lookup(KeyOf(1), &note).has_value());
  CHECK((*cache)->Lookup(KeyOf(2), &note).has_value());
  CHECK((*cache)->Lookup(KeyOf(3), &note).has_value());

  // An entry larger than the whole cache is refused, not kept in place of all.
  absl::Status big = (*cache)->Put(Entry(KeyOf(9), std::string(4 * one, 'b')), false, &note);
  CHECK(big.code() == absl::StatusCode::kResourceExhausted);
  CHECK((*cache)->Lookup(KeyOf(3), &note).has_value());
}

TEST_CASE("the compile cache asks the server on a miss and uploads what it stores") {
  testing::TempDir dir;
  FakeRemote remote;
  auto first = CompileCache::Open({.dir = dir.File("a"), .max_bytes = 1 << 20, .remote = &remote});
  auto second = CompileCache::Open({.dir = dir.File("b"), .max_bytes = 1 << 20, .remote = &remote});
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  const std::string key = CompileCacheKey(Parts());
  std::string note;
  REQUIRE((*first)->Put(Entry(key, "built by a"), /*upload=*/true, &note).ok());
  CHECK(remote.uploads == 1);

  std::optional<CompileCache::Found> found = (*second)->Lookup(key, &note);
  REQUIRE(found.has_value());
  CHECK(found->from_server);
  CHECK(found->entry.artifact() == "built by a");
  // Kept on b's disk: the next lookup does not ask the server.
  const int fetches = remote.fetches;
  found = (*second)->Lookup(key, &note);
  REQUIRE(found.has_value());
  CHECK_FALSE(found->from_server);
  CHECK(remote.fetches == fetches);

  SECTION("an entry the server serves under another key, or with a bad digest, is not used") {
    const std::string other = KeyOf(7);
    remote.entries[other] = Entry(key, "built by a");  // under the wrong key
    CHECK_FALSE((*second)->Lookup(other, &note).has_value());
    CHECK_THAT(note, Catch::Contains("not used"));
    CompileCacheEntry poisoned = Entry(KeyOf(8), "good");
    poisoned.set_artifact("evil");
    remote.entries[KeyOf(8)] = poisoned;
    note.clear();
    CHECK_FALSE((*second)->Lookup(KeyOf(8), &note).has_value());
    CHECK_THAT(note, Catch::Contains("SHA-256"));
    CHECK_FALSE(std::filesystem::exists(dir.File("b/" + KeyOf(8) + ".entry")));
  }
  SECTION("a server that cannot be reached is a miss with a note") {
    remote.reachable = false;
    note.clear();
    CHECK_FALSE((*second)->Lookup(KeyOf(5), &note).has_value());
    CHECK_THAT(note, Catch::Contains("connection refused"));
  }
}

TEST_CASE("a compile cache folder that cannot be made is an error at start") {
  testing::TempDir dir;
  std::ofstream(dir.File("file")) << "x";
  auto cache = CompileCache::Open({.dir = dir.File("file/cache"), .max_bytes = 1 << 20});
  REQUIRE_FALSE(cache.ok());
  CHECK_THAT(std::string(cache.status().message()), Catch::Contains("file/cache"));
  CHECK_FALSE(CompileCache::Open({.dir = dir.File("c"), .max_bytes = 0}).ok());
}

}  // namespace
}  // namespace kseek
