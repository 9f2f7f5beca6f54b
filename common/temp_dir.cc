#include "common/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"

namespace kseek {

absl::StatusOr<TempDir> TempDir::Create(const std::string& parent, const std::string& prefix) {
  std::string pattern = absl::StrCat(parent, "/", prefix, "-XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create a temp dir under '", parent, "': ", std::strerror(errno)));
  }
  return TempDir(std::move(pattern));
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::exchange(other.path_, "")) {}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace kseek
