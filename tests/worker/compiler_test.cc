#include "worker/compiler.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "worker/compile_cache.h"

namespace kseek {
namespace {

using kernelseek::v1::CompileResult;
using kernelseek::v1::Diagnostic;
using kernelseek::v1::JobSpec;

constexpr char kNvccPath[] = "/usr/local/cuda/bin/nvcc";

constexpr char kSaxpy[] = R"(
__global__ void saxpy(float a, const float* x, float* y, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    tile[threadIdx.x] = x[i];
    __syncthreads();
    y[i] = a * tile[threadIdx.x] + __expf(y[i]);
  }
}
)";

// cuobjdump: $KSEEK_CUOBJDUMP, else beside nvcc. Empty when neither exists.
std::string FindCuobjdump() {
  const char* env = getenv("KSEEK_CUOBJDUMP");
  if (env != nullptr && access(env, X_OK) == 0) return env;
  if (access("/usr/local/cuda/bin/cuobjdump", X_OK) == 0) return "/usr/local/cuda/bin/cuobjdump";
  return "";
}

// A private parent for the compiler's temp dirs, so a test can check that
// nothing is left behind.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = "/tmp/kseek-compiler-test-XXXXXX";
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  bool Empty() const { return std::filesystem::is_empty(path_); }

 private:
  std::string path_;
};

CompilerConfig Config(const ScratchDir& scratch) {
  CompilerConfig config;
  config.nvcc_path = kNvccPath;
  config.cuobjdump_path = FindCuobjdump();
  config.supported_archs = {"sm_90", "sm_90a", "sm_100", "sm_100a"};
  config.temp_dir = scratch.path();
  config.time_limit = absl::Seconds(120);
  return config;
}

JobSpec Job(std::string source, std::string arch, std::string name = "saxpy.cu") {
  JobSpec spec;
  spec.set_kind(kernelseek::v1::JOB_KIND_COMPILE);
  spec.set_source_name(std::move(name));
  spec.set_source(std::move(source));
  spec.mutable_compile()->set_arch(std::move(arch));
  return spec;
}

bool HaveNvcc() { return access(kNvccPath, X_OK) == 0; }

TEST_CASE("SanitizeSourceName keeps a safe base name ending in .cu") {
  CHECK(SanitizeSourceName("naive.cu") == "naive.cu");
  CHECK(SanitizeSourceName("kernels/attention_fwd/v3.cu") == "v3.cu");
  CHECK(SanitizeSourceName("../../etc/passwd") == "passwd.cu");
  CHECK(SanitizeSourceName("-o x.cu") == "o_x.cu");
  CHECK(SanitizeSourceName("..") == "kernel.cu");
  CHECK(SanitizeSourceName("") == "kernel.cu");
  CHECK(SanitizeSourceName("a b$(rm).cu") == "a_b__rm_.cu");
}

TEST_CASE("Compiler builds a kernel for sm_90a and sm_100a with resources and SASS") {
  if (!HaveNvcc()) {
    WARN("skipped: no nvcc at " << kNvccPath);
    return;
  }
  ScratchDir scratch;
  CompilerConfig config = Config(scratch);
  Compiler compiler(config);
  for (const char* arch : {"sm_90a", "sm_100a"}) {
    INFO("arch " << arch);
    absl::StatusOr<CompileResult> r = compiler.Compile(Job(kSaxpy, arch));
    REQUIRE(r.ok());
    INFO("log: " << r->log());
    CHECK(r->success());
    REQUIRE(r->resources_size() == 1);
    CHECK(r->resources(0).function() == "_Z5saxpyfPKfPfi");
    CHECK(r->resources(0).arch() == arch);
    CHECK(r->resources(0).registers() > 0);
    CHECK(r->resources(0).barriers() == 1);
    CHECK(r->resources(0).shared_bytes() == 1024);
    CHECK(r->command().find("$WORK/saxpy.cu") != std::string::npos);
    CHECK(r->command().find(scratch.path()) == std::string::npos);
    CHECK(r->log().find(scratch.path()) == std::string::npos);
    CHECK(r->seconds() > 0);
    if (config.cuobjdump_path.empty()) {
      WARN("no cuobjdump (set KSEEK_CUOBJDUMP): SASS not checked");
      CHECK(r->sass_size() == 0);
      CHECK(r->log().find("no SASS summary") != std::string::npos);
    } else {
      REQUIRE(r->sass_size() == 1);
      CHECK(r->sass(0).function() == "_Z5saxpyfPKfPfi");
      CHECK(r->sass(0).total() > 10);
      std::map<std::string, int> classes;
      for (const auto& c : r->sass(0).classes()) classes[c.name()] = c.count();
      CHECK(classes["BAR"] == 1);
      CHECK(classes["MUFU"] >= 1);
      CHECK(classes["LDG"] == 2);
      CHECK(classes["STG"] == 1);
      CHECK(classes["LDS"] >= 1);
      CHECK(classes["STS"] >= 1);
    }
  }
  CHECK(scratch.Empty());
}

TEST_CASE("Compiler reports a syntax error as a failed result with the right line") {
  if (!HaveNvcc()) {
    WARN("skipped: no nvcc at " << kNvccPath);
    return;
  }
  ScratchDir scratch;
  Compiler compiler(Config(scratch));
  const char* source =
      "__global__ void k(float* o) {\n"
      "  o[0] = 1.0f;\n"
      "  o[1] = undefined_thing;\n"
      "}\n";
  absl::StatusOr<CompileResult> r =
      compiler.Compile(Job(source, "sm_90a", "kernels/attention_fwd/broken.cu"));
  REQUIRE(r.ok());
  CHECK_FALSE(r->success());
  REQUIRE(r->diagnostics_size() >= 1);
  const Diagnostic& d = r->diagnostics(0);
  CHECK(d.file() == "kernels/attention_fwd/broken.cu");
  CHECK(d.line() == 3);
  CHECK(d.severity() == Diagnostic::SEVERITY_ERROR);
  CHECK(d.message().find("undefined_thing") != std::string::npos);
  CHECK(r->resources_size() == 0);
  CHECK(r->sass_size() == 0);
  CHECK(r->log().find("$WORK/broken.cu") != std::string::npos);
  CHECK(r->log().find(scratch.path()) == std::string::npos);
  CHECK(scratch.Empty());
}

TEST_CASE("Compiler refuses bad requests before running nvcc") {
  ScratchDir scratch;
  CompilerConfig config = Config(scratch);
  config.max_source_bytes = 1000;
  Compiler compiler(config);

  JobSpec smuggle = Job(kSaxpy, "sm_90a");
  smuggle.mutable_compile()->add_defines("-o/etc/x");
  absl::StatusOr<CompileResult> r = compiler.Compile(smuggle);
  CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(r.status().message().find("-o/etc/x") != std::string::npos);

  r = compiler.Compile(Job(std::string(1001, ' '), "sm_90a"));
  CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(r.status().message().find("1001") != std::string::npos);

  r = compiler.Compile(Job(kSaxpy, "sm_120a"));
  CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);

  JobSpec no_kind = Job(kSaxpy, "sm_90a");
  no_kind.set_kind(kernelseek::v1::JOB_KIND_UNSPECIFIED);
  CHECK(compiler.Compile(no_kind).status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(scratch.Empty());
}

TEST_CASE("Compiler without nvcc is a FAILED_PRECONDITION naming it") {
  ScratchDir scratch;
  CompilerConfig config = Config(scratch);
  config.nvcc_path = "/nonexistent/cuda/bin/nvcc";
  absl::StatusOr<CompileResult> r = Compiler(config).Compile(Job(kSaxpy, "sm_90a"));
  CHECK(r.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(r.status().message().find("/nonexistent/cuda/bin/nvcc") != std::string::npos);
  CHECK(scratch.Empty());
}

TEST_CASE("Compiler stops nvcc at the time limit and says so") {
  if (!HaveNvcc()) {
    WARN("skipped: no nvcc at " << kNvccPath);
    return;
  }
  ScratchDir scratch;
  CompilerConfig config = Config(scratch);
  config.time_limit = absl::Milliseconds(50);
  absl::StatusOr<CompileResult> r = Compiler(config).Compile(Job(kSaxpy, "sm_90a"));
  REQUIRE(r.ok());
  CHECK_FALSE(r->success());
  REQUIRE(r->diagnostics_size() >= 1);
  const Diagnostic& last = r->diagnostics(r->diagnostics_size() - 1);
  CHECK(last.severity() == Diagnostic::SEVERITY_ERROR);
  CHECK(last.message().find("time limit of 50ms") != std::string::npos);
  CHECK(r->seconds() < 10);
  CHECK(scratch.Empty());
}

// The bytes of a file, "" when it cannot be read.
std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_CASE("Compiler with a compile cache builds a key once and rebuilds when any part of it changes") {
  if (!HaveNvcc()) {
    WARN("skipped: no nvcc at " << kNvccPath);
    return;
  }
  ScratchDir scratch;
  const std::string cache_dir = scratch.path() + "/../" + std::filesystem::path(scratch.path()).filename().string() + "-cache";
  auto cache = CompileCache::Open({.dir = cache_dir, .max_bytes = 64 << 20});
  REQUIRE(cache.ok());
  CompilerConfig config = Config(scratch);
  config.cache = cache->get();
  Compiler compiler(config);
  JobSpec spec = Job(kSaxpy, "sm_90a");
  spec.set_kind(kernelseek::v1::JOB_KIND_VERIFY);
  const std::string out = scratch.path() + "/out";
  std::filesystem::create_directories(out);

  absl::StatusOr<CompileResult> built = compiler.BuildSharedObject(spec, out + "/first.so");
  REQUIRE(built.ok());
  REQUIRE(built->success());
  REQUIRE_THAT(built->cache(), Catch::StartsWith("miss "));
  const std::string prefix = built->cache().substr(5);

  // The verify's build again, as a bench and a profile would ask for it.
  absl::StatusOr<CompileResult> again = compiler.BuildSharedObject(spec, out + "/second.so");
  REQUIRE(again.ok());
  CHECK(again->cache() == "hit " + prefix);
  CHECK(again->success());
  CHECK(again->resources_size() == built->resources_size());
  CHECK(again->sass_size() == built->sass_size());
  CHECK(again->seconds() < built->seconds());
  CHECK(Slurp(out + "/second.so") == Slurp(out + "/first.so"));
  CHECK_FALSE(Slurp(out + "/second.so").empty());
  // A hit replaces a file already at the path, whole.
  std::ofstream(out + "/stale.so") << "stale";
  absl::StatusOr<CompileResult> over = compiler.BuildSharedObject(spec, out + "/stale.so");
  REQUIRE(over.ok());
  CHECK(over->cache() == "hit " + prefix);
  CHECK(Slurp(out + "/stale.so") == Slurp(out + "/first.so"));

  SECTION("another define, arch, line info or source is another key") {
    std::vector<JobSpec> variants(4, spec);
    variants[0].mutable_compile()->add_defines("TILE=64");
    variants[1].mutable_compile()->set_arch("sm_100a");
    variants[2].mutable_compile()->set_line_info(true);
    variants[3].set_source(std::string(kSaxpy) + "\n// edited\n");
    for (size_t i = 0; i < variants.size(); ++i) {
      INFO("variant " << i);
      absl::StatusOr<CompileResult> r = compiler.BuildSharedObject(variants[i], out + "/v" + std::to_string(i) + ".so");
      REQUIRE(r.ok());
      CHECK_THAT(r->cache(), Catch::StartsWith("miss "));
      CHECK(r->cache() != built->cache());
    }
  }
  SECTION("another nvcc version is another key") {
    const std::string wrapper = scratch.path() + "/../" + std::filesystem::path(scratch.path()).filename().string() + "-nvcc";
    {
      std::ofstream script(wrapper);
      script << "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Cuda compilation tools, release 13.0, V13.0.99'; "
                "exit 0; fi\nexec " << kNvccPath << " \"$@\"\n";
    }
    REQUIRE(chmod(wrapper.c_str(), 0755) == 0);
    CompilerConfig other = config;
    other.nvcc_path = wrapper;
    absl::StatusOr<CompileResult> r = Compiler(other).BuildSharedObject(spec, out + "/other-nvcc.so");
    std::filesystem::remove(wrapper);
    REQUIRE(r.ok());
    CHECK_THAT(r->cache(), Catch::StartsWith("miss "));
  }
  SECTION("a compile job's cubin build is a key of its own, and hits the second time") {
    absl::StatusOr<CompileResult> cubin = compiler.Compile(Job(kSaxpy, "sm_90a"));
    REQUIRE(cubin.ok());
    CHECK_THAT(cubin->cache(), Catch::StartsWith("miss "));
    absl::StatusOr<CompileResult> cubin_again = compiler.Compile(Job(kSaxpy, "sm_90a"));
    REQUIRE(cubin_again.ok());
    CHECK(cubin_again->cache() == "hit " + cubin->cache().substr(5));
  }
  SECTION("a corrupt entry is found out and built again") {
    for (const auto& e : std::filesystem::directory_iterator(cache_dir)) {
      std::filesystem::resize_file(e.path(), std::filesystem::file_size(e.path()) / 2);
    }
    absl::StatusOr<CompileResult> r = compiler.BuildSharedObject(spec, out + "/rebuilt.so");
    REQUIRE(r.ok());
    CHECK(r->success());
    CHECK(r->cache() == "miss " + prefix);
    CHECK_THAT(r->log(), Catch::Contains("building afresh"));
    // nvcc's output is not byte-for-byte reproducible (it names its temp
    // files inside), so the rebuilt object is only checked to be there.
    CHECK_FALSE(Slurp(out + "/rebuilt.so").empty());
    absl::StatusOr<CompileResult> hit = compiler.BuildSharedObject(spec, out + "/after.so");
    REQUIRE(hit.ok());
    CHECK(hit->cache() == "hit " + prefix);
  }
  SECTION("a failed build is not kept") {
    absl::StatusOr<CompileResult> bad = compiler.Compile(Job("__global__ void k() { nope; }", "sm_90a"));
    REQUIRE(bad.ok());
    CHECK_FALSE(bad->success());
    CHECK(bad->cache().empty());
  }
  std::filesystem::remove_all(cache_dir);
}

}  // namespace
}  // namespace kseek
