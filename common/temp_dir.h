// TempDir: a private (mode 0700) directory made with mkdtemp and removed with
// everything in it when the object goes away, whatever happened inside.
// Movable, not copyable; not thread-safe.
#ifndef KERNELSEEK_COMMON_TEMP_DIR_H_
#define KERNELSEEK_COMMON_TEMP_DIR_H_

#include <string>

#include "absl/status/statusor.h"

namespace kseek {

class TempDir {
 public:
  // Makes PARENT/PREFIX-XXXXXX. FAILED_PRECONDITION naming the parent and the
  // system's reason when it cannot.
  static absl::StatusOr<TempDir> Create(const std::string& parent, const std::string& prefix);
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir();

  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_TEMP_DIR_H_
