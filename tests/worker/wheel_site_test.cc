#include "worker/wheel_site.h"

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "common/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

// Writes a minimal pure-Python wheel of module `name` (one function,
// answer() == value) into `dir`, built by Python's zipfile as a wheel is.
void WriteWheel(const std::string& dir, const std::string& name, int value) {
  SubprocessSpec make;
  make.argv = {"python3", "-c",
               "import sys, zipfile\n"
               "d, n, v = sys.argv[1], sys.argv[2], sys.argv[3]\n"
               "info = f'{n}-1.0.dist-info'\n"
               "with zipfile.ZipFile(f'{d}/{n}-1.0-py3-none-any.whl', 'w') as z:\n"
               "    z.writestr(f'{n}/__init__.py', f'def answer():\\n    return {v}\\n')\n"
               "    z.writestr(f'{info}/METADATA', f'Metadata-Version: 2.1\\nName: {n}\\nVersion: 1.0\\n')\n"
               "    z.writestr(f'{info}/WHEEL', 'Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')\n"
               "    z.writestr(f'{info}/RECORD', '')\n",
               dir, name, std::to_string(value)};
  REQUIRE(RunSubprocess(make)->Succeeded());
}

// What `python3 -c CODE` prints with PYTHONPATH set to `site`.
std::string RunWith(const std::string& site, const std::string& code) {
  SubprocessSpec run;
  run.argv = {"python3", "-c", code};
  run.extra_env = {PythonPathEnv(site)};
  absl::StatusOr<SubprocessResult> ran = RunSubprocess(run);
  REQUIRE(ran.ok());
  return ran->stdout_text + ran->stderr_text;
}

bool HavePip() {
  SubprocessSpec pip;
  pip.argv = {"python3", "-m", "pip", "--version"};
  absl::StatusOr<SubprocessResult> ran = RunSubprocess(pip);
  return ran.ok() && ran->Succeeded();
}

TEST_CASE("a wheel folder becomes importable through the site folder, installed once per set of wheels") {
  if (!HavePip()) {
    WARN("skipped: python3 has no pip to install wheels with");
    return;
  }
  testing::TempDir dir;
  std::filesystem::create_directories(dir.File("wheels"));
  WriteWheel(dir.File("wheels"), "kseek_demo", 42);
  WheelSiteConfig config{.python = "python3", .wheels_dir = dir.File("wheels"), .cache_dir = dir.File("cache")};
  absl::StatusOr<std::string> site = PrepareWheelSite(config);
  REQUIRE(site.ok());
  CHECK(RunWith(*site, "import kseek_demo; print(kseek_demo.answer())") == "42\n");

  // The same wheels again: reused, so not even a Python is needed.
  WheelSiteConfig no_python = config;
  no_python.python = "/nonexistent/python3";
  CHECK(PrepareWheelSite(no_python).value() == *site);

  // Another set gets its own folder.
  WriteWheel(dir.File("wheels"), "kseek_other", 7);
  absl::StatusOr<std::string> second = PrepareWheelSite(config);
  REQUIRE(second.ok());
  CHECK(*second != *site);
  CHECK(RunWith(*second, "import kseek_demo, kseek_other; print(kseek_other.answer())") == "7\n");
}

TEST_CASE("the baseline program reads the site folder's .pth files, as nvidia-cutlass-dsl needs") {
  if (!HavePip()) {
    WARN("skipped: python3 has no pip to install wheels with");
    return;
  }
  testing::TempDir dir;
  std::filesystem::create_directories(dir.File("wheels"));
  // Like nvidia-cutlass-dsl: the package sits in a subfolder that only a
  // .pth line (executed code) puts on sys.path.
  SubprocessSpec make;
  make.argv = {"python3", "-c",
               "import sys, zipfile\n"
               "with zipfile.ZipFile(sys.argv[1] + '/kseek_pth-1.0-py3-none-any.whl', 'w') as z:\n"
               "    z.writestr('kseek_pth_outer/__init__.py', '')\n"
               "    z.writestr('kseek_pth_outer/inner/kseek_hidden/__init__.py', 'VALUE = 5\\n')\n"
               "    z.writestr('kseek_pth.pth', \"import sys, os, kseek_pth_outer; "
               "sys.path.insert(0, os.path.join(kseek_pth_outer.__path__[0], 'inner'))\\n\")\n"
               "    z.writestr('kseek_pth-1.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: kseek_pth\\nVersion: 1.0\\n')\n"
               "    z.writestr('kseek_pth-1.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')\n"
               "    z.writestr('kseek_pth-1.0.dist-info/RECORD', '')\n",
               dir.File("wheels")};
  REQUIRE(RunSubprocess(make)->Succeeded());
  absl::StatusOr<std::string> site =
      PrepareWheelSite({.python = "python3", .wheels_dir = dir.File("wheels"), .cache_dir = dir.File("cache")});
  REQUIRE(site.ok());
  CHECK_THAT(RunWith(*site, "import kseek_hidden"), Catch::Contains("No module named 'kseek_hidden'"));
  const std::string baselines = KSEEK_SOURCE_DIR "/worker/baselines";
  CHECK(RunWith(*site + ":" + baselines,
                "import attention_fwd_baseline as b; b.add_wheel_sites(); import kseek_hidden; print(kseek_hidden.VALUE)") ==
        "5\n");
}

TEST_CASE("a wheel folder that is missing, empty or holds a broken wheel is an error saying so") {
  testing::TempDir dir;
  WheelSiteConfig config{.python = "python3", .wheels_dir = dir.File("nowhere"), .cache_dir = dir.File("cache")};
  CHECK(PrepareWheelSite(config).status().code() == absl::StatusCode::kNotFound);
  std::filesystem::create_directories(dir.File("empty"));
  config.wheels_dir = dir.File("empty");
  absl::StatusOr<std::string> empty = PrepareWheelSite(config);
  CHECK(empty.status().code() == absl::StatusCode::kNotFound);
  CHECK_THAT(std::string(empty.status().message()), Catch::Contains("no *.whl"));
  if (!HavePip()) return;
  std::filesystem::create_directories(dir.File("broken"));
  std::ofstream(dir.File("broken/kseek_broken-1.0-py3-none-any.whl")) << "not a zip";
  config.wheels_dir = dir.File("broken");
  absl::StatusOr<std::string> broken = PrepareWheelSite(config);
  CHECK(broken.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(broken.status().message()), Catch::Contains("installing 1 wheel(s)"));
}

}  // namespace
}  // namespace kseek
