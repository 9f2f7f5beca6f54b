#include "worker/wheel_site.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/subprocess.h"

namespace kseek {

absl::StatusOr<std::string> PrepareWheelSite(const WheelSiteConfig& config) {
  namespace fs = std::filesystem;
  std::error_code error;
  std::vector<std::string> wheels;
  std::string stamp;
  for (const auto& entry : fs::directory_iterator(config.wheels_dir, error)) {
    if (entry.path().extension() == ".whl" && entry.is_regular_file(error)) wheels.push_back(entry.path().string());
  }
  if (error) return absl::NotFoundError(absl::StrCat("cannot read wheel folder ", config.wheels_dir, ": ", error.message()));
  if (wheels.empty()) return absl::NotFoundError(absl::StrCat("no *.whl in ", config.wheels_dir));
  std::sort(wheels.begin(), wheels.end());
  for (const std::string& w : wheels) {
    absl::StrAppend(&stamp, fs::path(w).filename().string(), " ", fs::file_size(w, error), "\n");
  }
  // One folder per set of wheels, so a changed set never mixes with the old.
  const std::string site = absl::StrFormat("%s/site-%016x", config.cache_dir, std::hash<std::string>{}(stamp));
  // The baseline programs look for this name to read the folder's .pth files.
  const std::string stamp_path = site + "/.kseek-wheels";
  {
    std::ifstream in(stamp_path);
    std::stringstream held;
    held << in.rdbuf();
    if (in && held.str() == stamp) return site;
  }
  fs::remove_all(site, error);
  fs::create_directories(site, error);
  if (error) return absl::FailedPreconditionError(absl::StrCat("cannot create ", site, ": ", error.message()));
  SubprocessSpec pip;
  pip.argv = {config.python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-compile",
              "--no-cache-dir", "--disable-pip-version-check", "--target", site};
  pip.argv.insert(pip.argv.end(), wheels.begin(), wheels.end());
  pip.time_limit = config.install_limit;
  absl::StatusOr<SubprocessResult> ran = RunSubprocess(pip);
  if (!ran.ok()) return ran.status();
  if (!ran->Succeeded()) {
    return absl::FailedPreconditionError(absl::StrCat("installing ", wheels.size(), " wheel(s) from ",
                                                      config.wheels_dir, " failed (", ran->Describe(), "): ",
                                                      OutputTail(ran->stderr_text + ran->stdout_text, 1000)));
  }
  std::ofstream(stamp_path) << stamp;
  return site;
}

std::pair<std::string, std::string> PythonPathEnv(const std::string& dirs) {
  const char* held = std::getenv("PYTHONPATH");
  return {"PYTHONPATH", held != nullptr && *held != '\0' ? absl::StrCat(dirs, ":", held) : dirs};
}

}  // namespace kseek
