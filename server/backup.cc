#include "server/backup.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace kseek {
namespace {

// Pages per sqlite3_backup_step: small enough that the server's writers wait
// only briefly for each step's read lock.
constexpr int kPagesPerStep = 256;
constexpr absl::Duration kBusyBudget = absl::Seconds(30);

}  // namespace

absl::StatusOr<int> BackupDatabase(const std::string& db_path, const std::string& to_path) {
  struct stat info;
  if (stat(db_path.c_str(), &info) != 0) {
    return absl::NotFoundError(absl::StrCat("database ", db_path, ": ", strerror(errno)));
  }
  // O_EXCL: an existing file (an older backup, the database itself) is never
  // overwritten; 0600 before a byte is written.
  int fd = open(to_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) {
      return absl::AlreadyExistsError(absl::StrCat(to_path, " exists: give a new file name (backups never overwrite)"));
    }
    return absl::InternalError(absl::StrCat("cannot create ", to_path, ": ", strerror(errno)));
  }
  fchmod(fd, 0600);  // in case the umask took bits off the mode above; it never adds
  close(fd);
  bool done = false;
  absl::Cleanup remove_partial = [&] {
    if (!done) unlink(to_path.c_str());
  };

  sqlite3* source = nullptr;
  sqlite3* dest = nullptr;
  absl::Cleanup close_both = [&] {
    sqlite3_close(source);
    sqlite3_close(dest);
  };
  if (sqlite3_open_v2(db_path.c_str(), &source, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    return absl::InternalError(absl::StrCat("cannot open ", db_path, ": ", sqlite3_errmsg(source)));
  }
  sqlite3_busy_timeout(source, 5000);
  if (sqlite3_open_v2(to_path.c_str(), &dest, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    return absl::InternalError(absl::StrCat("cannot open ", to_path, ": ", sqlite3_errmsg(dest)));
  }
  sqlite3_backup* backup = sqlite3_backup_init(dest, "main", source, "main");
  if (backup == nullptr) {
    return absl::InternalError(absl::StrCat("cannot start the backup of ", db_path, ": ", sqlite3_errmsg(dest)));
  }
  const absl::Time give_up = absl::Now() + kBusyBudget;
  int rc = SQLITE_OK;
  while (true) {
    rc = sqlite3_backup_step(backup, kPagesPerStep);
    if (rc == SQLITE_DONE) break;
    if (rc == SQLITE_OK) continue;
    if ((rc == SQLITE_BUSY || rc == SQLITE_LOCKED) && absl::Now() < give_up) {
      absl::SleepFor(absl::Milliseconds(50));
      continue;
    }
    break;
  }
  const int pages = sqlite3_backup_pagecount(backup);
  sqlite3_backup_finish(backup);
  if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) {
    return absl::UnavailableError(absl::StrCat(db_path, " stayed locked for ", absl::FormatDuration(kBusyBudget),
                                               "; try again"));
  }
  if (rc != SQLITE_DONE) {
    return absl::InternalError(absl::StrCat("backup of ", db_path, " failed: ", sqlite3_errstr(rc)));
  }
  // The copy is in rollback-journal mode, so it is one self-contained file.
  char* error = nullptr;
  if (sqlite3_exec(dest, "PRAGMA journal_mode=DELETE", nullptr, nullptr, &error) != SQLITE_OK) {
    std::string message = error != nullptr ? error : "unknown error";
    sqlite3_free(error);
    return absl::InternalError(absl::StrCat("finishing ", to_path, ": ", message));
  }
  done = true;
  return pages;
}

}  // namespace kseek
