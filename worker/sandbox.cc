#include "worker/sandbox.h"

#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/temp_dir.h"

namespace kseek {
namespace {

constexpr int64_t kNobody = 65534;
constexpr char kSandboxPath[] = "/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin";

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

// The folder a tool lives in and, for a bin/ folder, its lib/ and lib64/
// beside it (kseek-runner's bundle keeps its libraries in ../lib), each with
// its links resolved: a link is no place to mount on (/usr/local/lib64 may
// point into the CUDA toolkit).
void AddToolFolders(const std::string& tool, std::vector<std::string>* out) {
  if (tool.empty()) return;
  std::error_code error;
  std::filesystem::path real = std::filesystem::canonical(tool, error);
  if (error) return;
  std::filesystem::path dir = real.parent_path();
  out->push_back(dir.string());
  if (dir.filename() == "bin") {
    for (const char* lib : {"lib", "lib64"}) {
      std::filesystem::path sibling = std::filesystem::canonical(dir.parent_path() / lib, error);
      if (!error && std::filesystem::is_directory(sibling, error)) out->push_back(sibling.string());
    }
  }
}

// Whether `path` is `folder` or lies inside it, compared by whole names.
bool IsWithin(const std::string& path, const std::string& folder) {
  if (!absl::StartsWith(path, folder)) return false;
  return path.size() == folder.size() || folder.back() == '/' || path[folder.size()] == '/';
}

void AddBind(const char* how, const std::string& path, std::vector<std::string>* argv) {
  argv->insert(argv->end(), {how, path, path});
}

}  // namespace

SandboxConfig Sandbox::DefaultConfig(const std::string& bwrap_path, const std::vector<std::string>& tools,
                                     int gpu_index) {
  SandboxConfig config;
  config.bwrap_path = bwrap_path;
  // Only what programs and their loader read; /etc holds the host's secrets
  // (shadow, ssh keys, credentials), so of it just the loader's files.
  config.read_only_paths = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
                            "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives"};
  for (const std::string& tool : tools) AddToolFolders(tool, &config.read_only_paths);
  config.gpu_read_only_paths = {"/sys", "/usr/local/nvidia"};
  if (const char* ld = std::getenv("LD_LIBRARY_PATH"); ld != nullptr) {
    for (absl::string_view dir : absl::StrSplit(ld, ':', absl::SkipEmpty())) {
      config.gpu_read_only_paths.emplace_back(dir);
    }
  }
  glob_t found{};
  if (glob("/dev/nvidia*", 0, nullptr, &found) == 0) {
    for (size_t i = 0; i < found.gl_pathc; ++i) {
      absl::string_view device = found.gl_pathv[i];
      absl::string_view suffix = device.substr(std::string_view("/dev/nvidia").size());
      const bool one_gpu = !suffix.empty() && std::all_of(suffix.begin(), suffix.end(), absl::ascii_isdigit);
      if (one_gpu && gpu_index >= 0 && suffix != absl::StrCat(gpu_index)) continue;
      config.gpu_devices.emplace_back(device);
    }
  }
  globfree(&found);
  if (geteuid() == 0) config.uid = config.gid = kNobody;
  config.compile_limits = {.address_space_bytes = 8ull << 30,
                           .cpu_seconds = 600,
                           .file_size_bytes = 1ull << 30,
                           .processes = 256,
                           .open_files = 1024};
  // No address-space limit: the CUDA driver reserves the GPU's whole virtual
  // address range. Private writable memory is what a runaway host side eats.
  config.gpu_limits = {.data_bytes = 64ull << 30,
                       .cpu_seconds = 3600,
                       .file_size_bytes = 4ull << 30,
                       .processes = 256,
                       .open_files = 4096};
  return config;
}

absl::StatusOr<Sandbox> Sandbox::Create(SandboxConfig config) {
  if (config.bwrap_path.empty()) return absl::InvalidArgumentError("no bubblewrap path for the sandbox");
  Sandbox sandbox(std::move(config));
  absl::StatusOr<TempDir> probe_dir = TempDir::Create("/tmp", "kseek-sandbox-check");
  if (!probe_dir.ok()) return probe_dir.status();
  if (absl::Status s = sandbox.HandOver(probe_dir->path()); !s.ok()) return s;
  SubprocessSpec probe;
  probe.argv = {"true"};
  probe.time_limit = absl::Seconds(30);
  sandbox.Apply(SandboxKind::kCompile, {probe_dir->path()}, {}, &probe);
  absl::StatusOr<SubprocessResult> ran = RunSubprocess(probe);
  if (!ran.ok()) {
    return absl::FailedPreconditionError(absl::StrCat("cannot start bubblewrap: ", ran.status().message()));
  }
  if (!ran->Succeeded()) {
    return absl::FailedPreconditionError(absl::StrCat("bubblewrap cannot make a sandbox here (", ran->Describe(),
                                                      "): ", OutputTail(ran->stderr_text, 500)));
  }
  return sandbox;
}

Sandbox Sandbox::Disabled() {
  SandboxConfig config = DefaultConfig("", {});
  config.uid = config.gid = -1;
  return Sandbox(std::move(config));
}

void Sandbox::Apply(SandboxKind kind, const std::vector<std::string>& writable,
                    const std::vector<std::string>& read_only, SubprocessSpec* spec) const {
  const bool gpu = kind == SandboxKind::kGpu;
  spec->limits = gpu ? config_.gpu_limits : config_.compile_limits;
  spec->inherit_environment = false;
  const std::string home = writable.empty() ? "/tmp" : writable.front();
  std::vector<std::pair<std::string, std::string>> env = {
      {"PATH", kSandboxPath}, {"LC_ALL", "C"}, {"HOME", home}, {"TMPDIR", home}};
  if (gpu) {
    for (const char* name : {"CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH"}) {
      if (const char* value = std::getenv(name); value != nullptr) env.emplace_back(name, value);
    }
  }
  env.insert(env.end(), spec->extra_env.begin(), spec->extra_env.end());
  spec->extra_env = std::move(env);
  if (!enabled()) return;

  spec->run_as_uid = config_.uid;
  spec->run_as_gid = config_.gid;
  std::vector<std::string> argv = {config_.bwrap_path, "--unshare-all", "--die-with-parent", "--new-session",
                                   "--cap-drop", "ALL"};
  // Mounts apply in order: the fresh /proc, /tmp and /dev first, so that
  // binds below them (a tool or job folder under /tmp) are not hidden.
  argv.insert(argv.end(), {"--proc", "/proc", "--tmpfs", "/tmp"});
  if (gpu) {
    argv.insert(argv.end(), {"--dev", "/dev"});
    for (const std::string& device : config_.gpu_devices) {
      if (Exists(device)) AddBind("--dev-bind", device, &argv);
    }
  } else {
    // /dev/null alone: no /dev/zero or /dev/urandom to #include.
    argv.insert(argv.end(), {"--tmpfs", "/dev", "--dev-bind", "/dev/null", "/dev/null"});
  }
  // A path inside one already shown is visible through it; mounting it
  // again could land on a link (bubblewrap then fails to make the sandbox).
  std::vector<std::string> shown;
  auto bind_ro = [&](const std::string& path) {
    for (const std::string& folder : shown) {
      if (IsWithin(path, folder)) return;
    }
    if (!Exists(path)) return;
    shown.push_back(path);
    AddBind("--ro-bind", path, &argv);
  };
  for (const std::string& path : config_.read_only_paths) bind_ro(path);
  if (gpu) {
    for (const std::string& path : config_.gpu_read_only_paths) bind_ro(path);
  }
  for (const std::string& path : read_only) bind_ro(path);
  for (const std::string& path : writable) AddBind("--bind", path, &argv);
  if (!spec->working_dir.empty()) argv.insert(argv.end(), {"--chdir", spec->working_dir});
  argv.emplace_back("--");
  argv.insert(argv.end(), spec->argv.begin(), spec->argv.end());
  spec->argv = std::move(argv);
}

absl::Status Sandbox::HandOver(const std::string& dir) const {
  if (!enabled() || config_.uid < 0) return absl::OkStatus();
  if (chown(dir.c_str(), static_cast<uid_t>(config_.uid), static_cast<gid_t>(config_.gid)) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot hand job folder ", dir, " to the sandbox's user ", config_.uid, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace kseek
