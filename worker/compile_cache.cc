#include "worker/compile_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log.h"
#include "problem/problem_digest.h"

namespace kseek {
namespace {

namespace fs = std::filesystem;
using kernelseek::v1::CompileCacheEntry;

constexpr char kSuffix[] = ".entry";

std::string Short(const std::string& key) { return key.substr(0, 12); }

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("cannot read ", path));
  return text.str();
}

// Writes `bytes` to a fresh temp file in `dir`, syncs it and renames it to
// `path`: a reader (of this or another process) sees the old file or the
// whole new one, never a part.
absl::Status WriteAtomically(const std::string& dir, const std::string& path, const std::string& bytes) {
  std::string temp = absl::StrCat(dir, "/.tmp-XXXXXX");
  int fd = mkstemp(temp.data());
  if (fd < 0) return absl::FailedPreconditionError(absl::StrCat("cannot create a file in ", dir, ": ", std::strerror(errno)));
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      unlink(temp.c_str());
      return absl::FailedPreconditionError(absl::StrCat("cannot write ", temp, ": ", std::strerror(err)));
    }
    written += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    const int err = errno;
    unlink(temp.c_str());
    return absl::FailedPreconditionError(absl::StrCat("cannot write ", temp, ": ", std::strerror(err)));
  }
  if (rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(temp.c_str());
    return absl::FailedPreconditionError(absl::StrCat("cannot rename ", temp, " to ", path, ": ", std::strerror(err)));
  }
  return absl::OkStatus();
}

}  // namespace

std::string CompileCacheKeyText(const CompileCacheKeyParts& parts) {
  // Length-prefixed arguments, so that no two argument lists read the same.
  std::string argv;
  for (const std::string& a : parts.nvcc_argv) absl::StrAppend(&argv, a.size(), ":", a, " ");
  return absl::StrCat("kseek compile cache v1\n", "source-sha256 ", parts.source_sha256, "\n",
                      "nvcc-version-sha256 ", Sha256Hex(parts.nvcc_version), "\n", "arch ", parts.arch, "\n",
                      "argv ", argv, "\n", "sass-summary ", parts.sass_summary ? 1 : 0, "\n");
}

std::string CompileCacheKey(const CompileCacheKeyParts& parts) { return Sha256Hex(CompileCacheKeyText(parts)); }

absl::Status CheckCompileCacheKey(const std::string& key) {
  if (!IsSha256Hex(key)) {
    return absl::InvalidArgumentError(
        absl::StrCat("compile cache key \"", key.substr(0, 80), "\" is not 64 lowercase hex digits"));
  }
  return absl::OkStatus();
}

absl::Status CheckCompileCacheEntry(const CompileCacheEntry& entry, const std::string& key) {
  if (entry.key() != key) {
    return absl::DataLossError(
        absl::StrCat("compile cache entry holds key ", Short(entry.key()), ", not ", Short(key)));
  }
  const std::string digest = Sha256Hex(entry.artifact());
  if (digest != entry.artifact_sha256()) {
    return absl::DataLossError(absl::StrCat("compile cache entry ", Short(key), ": artifact's SHA-256 is ",
                                            Short(digest), ", the entry says ", Short(entry.artifact_sha256())));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<CompileCache>> CompileCache::Open(CompileCacheOptions options) {
  if (options.dir.empty()) return absl::FailedPreconditionError("no compile cache folder given");
  if (options.max_bytes == 0) return absl::FailedPreconditionError("compile cache size limit is 0 bytes");
  std::error_code error;
  fs::create_directories(options.dir, error);
  if (error || !fs::is_directory(options.dir)) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot make compile cache folder ", options.dir, ": ", error.message()));
  }
  // Users' builds: not for other local users to read or replace.
  chmod(options.dir.c_str(), 0700);
  if (access(options.dir.c_str(), W_OK | X_OK) != 0) {
    return absl::FailedPreconditionError(absl::StrCat("compile cache folder ", options.dir, " is not writable"));
  }
  return std::unique_ptr<CompileCache>(new CompileCache(std::move(options)));
}

std::string CompileCache::PathOf(const std::string& key) const { return absl::StrCat(options_.dir, "/", key, kSuffix); }

std::optional<CompileCache::Found> CompileCache::Lookup(const std::string& key, std::string* note) {
  if (!CheckCompileCacheKey(key).ok()) return std::nullopt;
  const std::string path = PathOf(key);
  if (absl::StatusOr<std::string> bytes = ReadFile(path); bytes.ok()) {
    CompileCacheEntry entry;
    absl::Status check = entry.ParseFromString(*bytes)
                             ? CheckCompileCacheEntry(entry, key)
                             : absl::DataLossError(absl::StrCat("compile cache entry ", Short(key), " does not parse"));
    if (check.ok()) {
      // Most recently used: eviction goes by mtime.
      utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
      return Found{std::move(entry), false};
    }
    absl::StrAppend(note, check.message(), "; removed, building afresh");
    Log(absl::StrCat("compile cache: ", check.message(), "; removed"));
    unlink(path.c_str());
  }
  if (options_.remote == nullptr) return std::nullopt;
  absl::StatusOr<std::optional<CompileCacheEntry>> fetched = options_.remote->Fetch(key);
  if (!fetched.ok()) {
    absl::StrAppend(note, note->empty() ? "" : "; ", "server cache not reached: ", fetched.status().message());
    return std::nullopt;
  }
  if (!fetched->has_value()) return std::nullopt;
  if (absl::Status check = CheckCompileCacheEntry(**fetched, key); !check.ok()) {
    absl::StrAppend(note, note->empty() ? "" : "; ", "server's ", check.message(), "; not used");
    return std::nullopt;
  }
  {
    absl::MutexLock lock(&mu_);
    if (absl::Status s = WriteLocked(**fetched); !s.ok()) {
      absl::StrAppend(note, note->empty() ? "" : "; ", "not kept on disk: ", s.message());
    } else {
      EvictLocked();
    }
  }
  return Found{**std::move(fetched), true};
}

absl::Status CompileCache::Put(const CompileCacheEntry& entry, bool upload, std::string* note) {
  if (absl::Status s = CheckCompileCacheKey(entry.key()); !s.ok()) return s;
  {
    absl::MutexLock lock(&mu_);
    if (absl::Status s = WriteLocked(entry); !s.ok()) return s;
    EvictLocked();
  }
  if (upload && options_.remote != nullptr && entry.ByteSizeLong() <= options_.max_entry_bytes) {
    if (absl::Status s = options_.remote->Upload(entry); !s.ok()) {
      absl::StrAppend(note, note->empty() ? "" : "; ", "not uploaded to the server: ", s.message());
    }
  }
  return absl::OkStatus();
}

absl::Status CompileCache::WriteLocked(const CompileCacheEntry& entry) {
  if (entry.ByteSizeLong() > options_.max_entry_bytes || entry.ByteSizeLong() > options_.max_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat("compile cache entry of ", entry.ByteSizeLong(),
                                                     " bytes is over the limit of ",
                                                     std::min(options_.max_entry_bytes, options_.max_bytes)));
  }
  return WriteAtomically(options_.dir, PathOf(entry.key()), entry.SerializeAsString());
}

void CompileCache::EvictLocked() {
  struct File {
    fs::path path;
    fs::file_time_type used;
    uint64_t bytes;
  };
  std::vector<File> files;
  uint64_t total = 0;
  std::error_code error;
  for (const fs::directory_entry& e : fs::directory_iterator(options_.dir, error)) {
    if (!absl::EndsWith(e.path().filename().string(), kSuffix)) continue;
    std::error_code ignored;
    const uint64_t bytes = e.file_size(ignored);
    files.push_back({e.path(), e.last_write_time(ignored), bytes});
    total += bytes;
  }
  if (total <= options_.max_bytes) return;
  std::sort(files.begin(), files.end(), [](const File& a, const File& b) { return a.used < b.used; });
  for (const File& f : files) {
    if (total <= options_.max_bytes) break;
    std::error_code ignored;
    if (fs::remove(f.path, ignored)) total -= f.bytes;
  }
}

uint64_t CompileCache::DiskBytes() {
  absl::MutexLock lock(&mu_);
  uint64_t total = 0;
  std::error_code error;
  for (const fs::directory_entry& e : fs::directory_iterator(options_.dir, error)) {
    std::error_code ignored;
    if (absl::EndsWith(e.path().filename().string(), kSuffix)) total += e.file_size(ignored);
  }
  return total;
}

}  // namespace kseek
