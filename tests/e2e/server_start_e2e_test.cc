// End to end: what kseek-server refuses at start (a bad --listen port, an
// --llm-endpoints typo, a database it cannot trust or write) and a kernel
// source that is not UTF-8, through the real binaries.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "tests/e2e/local_stack.h"

namespace kseek::testing {
namespace {

SubprocessResult RunServer(const std::vector<std::string>& args, const std::vector<std::string>& prefix = {}) {
  SubprocessSpec spec;
  spec.argv = prefix;
  spec.argv.push_back(BinDir() + "/kseek-server");
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.time_limit = absl::Seconds(30);
  auto result = RunSubprocess(spec);
  REQUIRE(result.ok());
  return *std::move(result);
}

TEST_CASE("kseek-server refuses a --listen port outside 1-65535", "[e2e]") {
  TempDir dir;
  SubprocessResult r = RunServer({"--listen", "127.0.0.1:99999", "--db", dir.File("kseek.db")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.stderr_text, Catch::Contains("--listen \"127.0.0.1:99999\"") && Catch::Contains("1-65535"));
}

TEST_CASE("kseek-worker refuses a --server port outside 1-65535 instead of dialling another", "[e2e]") {
  SubprocessSpec spec;
  spec.argv = {BinDir() + "/kseek-worker", "--server", "127.0.0.1:99999", "--token", "ksw_x", "--no-sandbox"};
  spec.time_limit = absl::Seconds(30);
  auto r = RunSubprocess(spec);
  REQUIRE(r.ok());
  CHECK(r->exit_code == 2);
  CHECK_THAT(r->stderr_text, Catch::Contains("--server \"127.0.0.1:99999\"") && Catch::Contains("1-65535"));
}

TEST_CASE("kseek-worker refuses a --sandbox-uid of root, below 1 or past the largest uid, before it dials", "[e2e]") {
  for (const char* uid : {"0", "-5", "4294967295"}) {
    INFO(uid);
    SubprocessSpec spec;
    spec.argv = {BinDir() + "/kseek-worker", "--server", "127.0.0.1:1", "--token", "ksw_x", "--sandbox-uid", uid};
    spec.time_limit = absl::Seconds(30);
    auto r = RunSubprocess(spec);
    REQUIRE(r.ok());
    CHECK(r->exit_code == 2);
    CHECK_THAT(r->stderr_text, Catch::Contains(std::string("--sandbox-uid ") + uid));
  }
}

TEST_CASE("kseek-server refuses an --llm-endpoints file with a typo, naming its line", "[e2e]") {
  TempDir dir;
  WriteFile(dir.File("endpoints.textproto"), "endpoint {\n  name: \"a\"\n  modles: \"m\"\n}\n");
  SubprocessResult r = RunServer({"--listen", "127.0.0.1:0", "--db", dir.File("kseek.db"), "--llm-endpoints",
                                  dir.File("endpoints.textproto")});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.stderr_text, Catch::Contains("endpoints.textproto:3:") && Catch::Contains("modles"));
}

TEST_CASE("kseek-server refuses a corrupted database before serving", "[e2e]") {
  LocalStack stack;  // creates and migrates the database
  const std::string db = stack.dir().File("kseek.db");
  {
    std::fstream file(db, std::ios::in | std::ios::out | std::ios::binary);
    file.write("garbage, not a database header", 30);
  }
  SubprocessResult r = RunServer({"--listen", "127.0.0.1:0", "--db", db});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.stderr_text, Catch::Contains(db) && Catch::Contains("not a database"));
  CHECK(r.stderr_text.find("listening") == std::string::npos);
}

TEST_CASE("kseek-server refuses a read-only database before serving", "[e2e]") {
  LocalStack stack;
  const std::string db = stack.dir().File("kseek.db");
  std::vector<std::string> prefix;
  if (geteuid() == 0) {
    // Root writes read-only files; run the server as nobody, owning the folder.
    for (const std::string& p : {stack.dir().path(), db, db + "-wal", db + "-shm"}) {
      if (access(p.c_str(), F_OK) == 0) REQUIRE(chown(p.c_str(), 65534, 65534) == 0);
    }
    prefix = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"};
    if (access(prefix[0].c_str(), X_OK) != 0) {
      WARN("skipped: running as root without /usr/bin/setpriv to drop privileges");
      return;
    }
  }
  REQUIRE(chmod(db.c_str(), 0400) == 0);
  SubprocessResult r = RunServer({"--listen", "127.0.0.1:0", "--db", db}, prefix);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.stderr_text, Catch::Contains(db) && Catch::Contains("read-only"));
}

TEST_CASE("SubmitJob refuses a kernel source that is not UTF-8, naming the byte offset", "[e2e]") {
  LocalStack stack;
  stack.StartServer();
  const std::string kernel = stack.dir().File("latin1.cu");
  WriteFile(kernel, "// caf\xe9\n__global__ void k() {}\n");
  SubprocessResult r = stack.Kseek({"compile", kernel, "--arch", "sm_90a"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.stderr_text, Catch::Contains("not UTF-8") && Catch::Contains("byte 0xE9 at byte offset 6 (line 1)"));
}

}  // namespace
}  // namespace kseek::testing
