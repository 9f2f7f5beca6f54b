#include "worker/compiler.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "common/subprocess.h"
#include "common/temp_dir.h"
#include "problem/problem_digest.h"
#include "worker/ptxas_report.h"
#include "worker/sass_summary.h"

namespace kseek {
namespace {

using kernelseek::v1::CompileResult;
using kernelseek::v1::Diagnostic;

constexpr absl::string_view kWorkPlaceholder = "$WORK";
// The SASS dump is parsed, not shown, and a large attention kernel's dump
// runs to several MiB, so it gets its own, larger cap.
constexpr size_t kMaxSassDumpBytes = 256 << 20;
constexpr size_t kMaxSourceNameBytes = 100;

absl::Status WriteNewFile(const std::string& path, absl::string_view contents) {
  // 0644: the sandbox's user (nobody under a root worker) reads it; the job
  // folder around it (0700, that user's) keeps everyone else out.
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create '", path, "': ", std::strerror(errno)));
  }
  size_t written = 0;
  while (written < contents.size()) {
    ssize_t n = write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      close(fd);
      return absl::FailedPreconditionError(
          absl::StrCat("cannot write '", path, "': ", std::strerror(err)));
    }
    written += static_cast<size_t>(n);
  }
  if (close(fd) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write '", path, "': ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

// Writes `contents` to `path` whole or not at all: to a new file beside it,
// then renamed over it (kseek-runner must never load half a shared object).
absl::Status PlaceFile(const std::string& path, absl::string_view contents) {
  const std::string temp = absl::StrCat(path, ".cached");
  unlink(temp.c_str());
  if (absl::Status s = WriteNewFile(temp, contents); !s.ok()) return s;
  if (rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(temp.c_str());
    return absl::FailedPreconditionError(absl::StrCat("cannot rename '", temp, "' to '", path, "': ", std::strerror(err)));
  }
  return absl::OkStatus();
}

// Cuts `text` to `limit` bytes, saying so at the end.
void AppendCapped(std::string* log, absl::string_view text, size_t limit) {
  if (log->size() >= limit) return;
  size_t room = limit - log->size();
  if (text.size() <= room) {
    log->append(text.data(), text.size());
    return;
  }
  log->append(text.data(), room);
  absl::StrAppend(log, "\n[log cut at ", limit, " bytes]\n");
}

void AddError(CompileResult* result, std::string file, std::string message) {
  Diagnostic* d = result->add_diagnostics();
  d->set_file(std::move(file));
  d->set_severity(Diagnostic::SEVERITY_ERROR);
  d->set_message(std::move(message));
}

}  // namespace

std::string SanitizeSourceName(absl::string_view source_name) {
  size_t slash = source_name.find_last_of("/\\");
  absl::string_view base =
      slash == absl::string_view::npos ? source_name : source_name.substr(slash + 1);
  std::string name;
  for (char c : base) {
    name.push_back(absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '-' ? c : '_');
  }
  while (!name.empty() && (name[0] == '.' || name[0] == '-')) name.erase(0, 1);
  if (name.size() > kMaxSourceNameBytes) name.resize(kMaxSourceNameBytes);
  if (!absl::EndsWith(name, ".cu")) {
    // "kernel.cuh" or "kernel" become "kernel.cuh.cu"/"kernel.cu": nvcc picks
    // the language by extension.
    if (name.empty()) name = "kernel";
    name += ".cu";
  }
  if (name == ".cu") name = "kernel.cu";
  return name;
}

Compiler::Compiler(CompilerConfig config)
    : config_(std::move(config)),
      nvcc_(config_.nvcc_path, config_.supported_archs),
      sandbox_(config_.sandbox != nullptr ? config_.sandbox : &unsandboxed_) {}

absl::StatusOr<CompileResult> Compiler::Compile(const kernelseek::v1::JobSpec& spec) const {
  if (spec.kind() != kernelseek::v1::JOB_KIND_COMPILE) {
    return absl::InvalidArgumentError(absl::StrCat(
        "job kind ", kernelseek::v1::JobKind_Name(spec.kind()), " is not a compile job"));
  }
  return Build(spec, "");
}

absl::StatusOr<CompileResult> Compiler::BuildSharedObject(const kernelseek::v1::JobSpec& spec,
                                                          const std::string& so_path) const {
  if (so_path.empty()) return absl::InvalidArgumentError("no path for the shared object");
  return Build(spec, so_path);
}

absl::StatusOr<CompileResult> Compiler::Build(const kernelseek::v1::JobSpec& spec,
                                              const std::string& so_path) const {
  const absl::Time start = absl::Now();
  if (spec.source().size() > config_.max_source_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("source is ", spec.source().size(),
                                                   " bytes, over the limit of ",
                                                   config_.max_source_bytes, " bytes"));
  }
  if (absl::Status s = nvcc_.Validate(spec.compile()); !s.ok()) return s;

  absl::StatusOr<TempDir> work = TempDir::Create(config_.temp_dir, "kseek-compile");
  if (!work.ok()) return work.status();
  const std::string& dir = work->path();
  if (absl::Status s = sandbox_->HandOver(dir); !s.ok()) return s;
  // nvcc writes the shared object beside the runner's other files.
  std::vector<std::string> writable = {dir};
  if (!so_path.empty()) writable.push_back(std::filesystem::path(so_path).parent_path().string());
  const std::string file_name = SanitizeSourceName(spec.source_name());
  const std::string display_name = spec.source_name().empty() ? file_name : spec.source_name();
  const std::string source_path = absl::StrCat(dir, "/", file_name);
  const std::string cubin_path = absl::StrCat(
      dir, "/", absl::string_view(file_name).substr(0, file_name.size() - 3), ".cubin");
  if (absl::Status s = WriteNewFile(source_path, spec.source()); !s.ok()) return s;

  // The SASS summary is read from whichever file nvcc wrote.
  const std::string& binary_path = so_path.empty() ? cubin_path : so_path;
  absl::StatusOr<std::vector<std::string>> argv =
      so_path.empty() ? nvcc_.CubinArgv(spec.compile(), source_path, cubin_path)
                      : nvcc_.SharedObjectArgv(spec.compile(), source_path, so_path);
  if (!argv.ok()) return argv.status();
  auto hide_dir = [&](absl::string_view text) {
    return absl::StrReplaceAll(text, {{dir, kWorkPlaceholder}});
  };

  // The cache key: the job folder and the output vary from job to job and
  // decide nothing about the build, so they are placeholders in it.
  std::string cache_key;
  std::string cache_note;
  if (config_.cache != nullptr) {
    if (NvccVersion().empty()) {
      cache_note = "compile cache not used: nvcc --version gave nothing";
    } else {
      CompileCacheKeyParts parts;
      parts.source_sha256 = Sha256Hex(spec.source());
      for (const std::string& a : *argv) {
        std::string shown = so_path.empty() ? a : absl::StrReplaceAll(a, {{so_path, "$OUT"}});
        parts.nvcc_argv.push_back(hide_dir(shown));
      }
      parts.nvcc_version = NvccVersion();
      parts.arch = spec.compile().arch();
      parts.sass_summary = !config_.cuobjdump_path.empty();
      cache_key = CompileCacheKey(parts);
      std::optional<CompileCache::Found> found = config_.cache->Lookup(cache_key, &cache_note);
      absl::Status placed = absl::OkStatus();
      if (found.has_value() && !so_path.empty()) placed = PlaceFile(so_path, found->entry.artifact());
      if (found.has_value() && placed.ok()) {
        CompileResult hit = found->entry.result();
        hit.set_cache(absl::StrCat("hit ", cache_key.substr(0, 12), found->from_server ? " from server" : ""));
        if (!cache_note.empty()) AppendCapped(hit.mutable_log(), absl::StrCat("\n[", cache_note, "]\n"), config_.max_output_bytes);
        hit.set_seconds(absl::ToDoubleSeconds(absl::Now() - start));
        return hit;
      }
      if (!placed.ok()) {
        absl::StrAppend(&cache_note, cache_note.empty() ? "" : "; ", "cached build not placed: ", placed.message());
      }
    }
  }

  CompileResult result;
  result.set_command(hide_dir(FormatCommandLine(*argv)));
  SubprocessSpec nvcc_run;
  nvcc_run.argv = *argv;
  nvcc_run.working_dir = dir;
  // nvcc's intermediate files go to TMPDIR: keep them in the job's dir so
  // they are removed with it and their paths show as $WORK.
  // LC_ALL=C: the host compiler's messages must be in English to be parsed.
  nvcc_run.extra_env = {{"TMPDIR", dir}, {"LC_ALL", "C"}};
  nvcc_run.time_limit = config_.time_limit;
  nvcc_run.max_output_bytes = config_.max_output_bytes;
  sandbox_->Apply(SandboxKind::kCompile, writable, {}, &nvcc_run);
  absl::StatusOr<SubprocessResult> nvcc = RunSubprocess(nvcc_run);
  if (!nvcc.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot run nvcc: ", nvcc.status().message()));
  }

  const std::string out_text = hide_dir(nvcc->stdout_text);
  const std::string err_text = hide_dir(nvcc->stderr_text);
  std::string log;
  AppendCapped(&log, out_text, config_.max_output_bytes);
  AppendCapped(&log, err_text, config_.max_output_bytes);
  if (nvcc->stdout_truncated || nvcc->stderr_truncated) {
    AppendCapped(&log,
                 absl::StrCat("\n[nvcc output cut at ", config_.max_output_bytes, " bytes]\n"),
                 config_.max_output_bytes);
  }
  for (const std::string* text : {&out_text, &err_text}) {
    for (Diagnostic& d : ParseNvccDiagnostics(*text, absl::StrCat(kWorkPlaceholder, "/", file_name),
                                              display_name)) {
      *result.add_diagnostics() = std::move(d);
    }
  }

  if (nvcc->timed_out) {
    AddError(&result, display_name,
             absl::StrCat("compilation exceeded the time limit of ",
                          absl::FormatDuration(config_.time_limit), " and was stopped"));
  } else if (nvcc->term_signal != 0) {
    AddError(&result, "nvcc", absl::StrCat("nvcc was ", nvcc->Describe()));
  } else if (nvcc->exit_code != 0) {
    bool has_error = false;
    for (const Diagnostic& d : result.diagnostics()) {
      has_error = has_error || d.severity() == Diagnostic::SEVERITY_ERROR;
    }
    if (!has_error) {
      AddError(&result, "nvcc",
               absl::StrCat("nvcc failed with ", nvcc->Describe(), " (see the log)"));
    }
  } else {
    result.set_success(true);
    for (kernelseek::v1::KernelResources& r : ParsePtxasReport(err_text)) {
      *result.add_resources() = std::move(r);
    }
  }

  if (result.success() && config_.cuobjdump_path.empty()) {
    AppendCapped(&log, "\n[no SASS summary: this worker has no cuobjdump]\n",
                 config_.max_output_bytes);
  } else if (result.success()) {
    SubprocessSpec dump;
    dump.argv = {config_.cuobjdump_path, "--dump-sass", binary_path};
    dump.working_dir = dir;
    dump.time_limit = config_.time_limit;
    dump.max_output_bytes = std::max(kMaxSassDumpBytes, config_.max_output_bytes);
    sandbox_->Apply(SandboxKind::kCompile, writable, {}, &dump);
    absl::StatusOr<SubprocessResult> sass = RunSubprocess(dump);
    std::string note;
    if (!sass.ok()) {
      note = absl::StrCat("cannot run cuobjdump: ", sass.status().message());
    } else if (!sass->Succeeded()) {
      note = absl::StrCat("cuobjdump --dump-sass failed with ", sass->Describe(), ": ",
                          hide_dir(sass->stderr_text.substr(0, 2000)));
    } else {
      for (kernelseek::v1::SassSummary& s : SummarizeSass(sass->stdout_text)) {
        *result.add_sass() = std::move(s);
      }
      if (sass->stdout_truncated) {
        note = absl::StrCat("SASS dump longer than ", dump.max_output_bytes,
                            " bytes; the summary covers only its start");
      }
    }
    if (!note.empty()) {
      AppendCapped(&log, absl::StrCat("\n[", note, "]\n"), config_.max_output_bytes);
    }
  }

  result.set_log(std::move(log));
  result.set_seconds(absl::ToDoubleSeconds(absl::Now() - start));
  // Only successful builds are kept: a failure may be a timeout or a
  // killed nvcc, which says nothing about the next build of the same key.
  if (!cache_key.empty() && result.success()) {
    kernelseek::v1::CompileCacheEntry entry;
    entry.set_key(cache_key);
    *entry.mutable_result() = result;
    if (!so_path.empty()) {
      std::ifstream in(so_path, std::ios::binary);
      std::ostringstream bytes;
      bytes << in.rdbuf();
      entry.set_artifact(bytes.str());
    }
    entry.set_artifact_sha256(Sha256Hex(entry.artifact()));
    if (absl::Status s = config_.cache->Put(entry, /*upload=*/true, &cache_note); !s.ok()) {
      absl::StrAppend(&cache_note, cache_note.empty() ? "" : "; ", "not kept in the compile cache: ", s.message());
    }
    result.set_cache(absl::StrCat("miss ", cache_key.substr(0, 12)));
  }
  if (!cache_note.empty()) {
    AppendCapped(result.mutable_log(), absl::StrCat("\n[", cache_note, "]\n"), config_.max_output_bytes);
  }
  return result;
}

const std::string& Compiler::NvccVersion() const {
  absl::call_once(nvcc_version_once_, [this] {
    SubprocessSpec probe;
    probe.argv = {config_.nvcc_path, "--version"};
    probe.time_limit = absl::Seconds(30);
    probe.max_output_bytes = 64 << 10;
    absl::StatusOr<SubprocessResult> ran = RunSubprocess(probe);
    if (ran.ok() && ran->Succeeded()) nvcc_version_ = ran->stdout_text;
  });
  return nvcc_version_;
}

}  // namespace kseek
