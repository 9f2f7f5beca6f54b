#include "common/config_file.h"

#include <catch2/catch.hpp>

#include <stdlib.h>

#include <algorithm>
#include <fstream>

#include "common/text_proto.h"
#include "proto/config.pb.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

using kernelseek::v1::ServerConfig;
using kernelseek::v1::WorkerConfig;
using Catch::Contains;

std::string WriteConfig(const testing::TempDir& dir, const std::string& text) {
  const std::string path = dir.File("server.textproto");
  std::ofstream(path) << text;
  return path;
}

bool HasValue(const std::vector<std::pair<std::string, std::string>>& values, const std::string& name,
              const std::string& value) {
  return std::find(values.begin(), values.end(), std::pair{name, value}) != values.end();
}

// A few of kseek-server's flags, bound as its main.cc binds them.
struct ServerFlags {
  std::string listen = "127.0.0.1:7070";
  std::string db;
  int64_t lease_timeout = 30;
  bool insecure_plaintext = true;
  std::string config;
  FlagSet flags{"kseek-server", "", ""};
  ServerFlags() {
    flags.String("config", &config, "config file");
    flags.String("listen", &listen, "address");
    flags.String("db", &db, "database", "KSEEK_CONFIG_TEST_DB");
    flags.Int("lease-timeout", &lease_timeout, "seconds");
    flags.Bool("insecure-plaintext", &insecure_plaintext, "plaintext");
  }
  std::optional<int> Parse(const std::vector<std::string>& args) {
    ServerConfig parsed;
    return ParseCommandFlagsWithConfig(flags, args, "kseek-server", &parsed);
  }
};

TEST_CASE("the example config files parse with their schema", "[config]") {
  ServerConfig server;
  REQUIRE(ParseTextProtoFile(KSEEK_SOURCE_DIR "/deploy/config/server.textproto", &server).ok());
  auto values = ConfigFlagValues(server);
  CHECK(HasValue(values, "metrics-listen", "0.0.0.0:9090"));
  CHECK(HasValue(values, "lease-timeout", "30"));
  CHECK(HasValue(values, "db", "/var/lib/kseek/kseek.db"));

  WorkerConfig worker;
  REQUIRE(ParseTextProtoFile(KSEEK_SOURCE_DIR "/deploy/config/worker.textproto", &worker).ok());
  values = ConfigFlagValues(worker);
  CHECK(HasValue(values, "require-gpu", "true"));
  CHECK(HasValue(values, "compile-timeout", "120"));

  WorkerConfig compile;
  REQUIRE(ParseTextProtoFile(KSEEK_SOURCE_DIR "/deploy/config/compile-worker.textproto", &compile).ok());
  // Written empty on purpose (no GPU detection), so it is a value, not "unset".
  CHECK(HasValue(ConfigFlagValues(compile), "nvidia-smi", ""));
}

TEST_CASE("a value written in the config file is kept even when it is 0 or false", "[config]") {
  WorkerConfig worker;
  REQUIRE(ParseTextProto("gpu: 0\nno_sandbox: false\n", "w", &worker).ok());
  auto values = ConfigFlagValues(worker);
  CHECK(values.size() == 2);
  CHECK(HasValue(values, "gpu", "0"));
  CHECK(HasValue(values, "no-sandbox", "false"));
}

TEST_CASE("the config file sets flags; the environment and the command line override it", "[config]") {
  testing::TempDir dir;
  const std::string path = WriteConfig(dir,
                                       "listen: \"0.0.0.0:7070\"\n"
                                       "db: \"/from/file.db\"\n"
                                       "lease_timeout: 60\n"
                                       "insecure_plaintext: false\n");
  unsetenv("KSEEK_CONFIG_TEST_DB");
  {
    ServerFlags s;
    REQUIRE(s.Parse({"--config", path}) == std::nullopt);
    CHECK(s.listen == "0.0.0.0:7070");
    CHECK(s.db == "/from/file.db");
    CHECK(s.lease_timeout == 60);
    CHECK_FALSE(s.insecure_plaintext);
  }
  {
    ServerFlags s;
    // Before or after --config, the command line wins.
    REQUIRE(s.Parse({"--lease-timeout", "5", "--config=" + path, "--listen", "127.0.0.1:0"}) == std::nullopt);
    CHECK(s.lease_timeout == 5);
    CHECK(s.listen == "127.0.0.1:0");
    CHECK(s.db == "/from/file.db");
  }
  {
    setenv("KSEEK_CONFIG_TEST_DB", "/from/env.db", 1);
    ServerFlags s;
    REQUIRE(s.Parse({"--config", path}) == std::nullopt);
    CHECK(s.db == "/from/env.db");
    ServerFlags t;
    REQUIRE(t.Parse({"--config", path, "--db", "/from/flag.db"}) == std::nullopt);
    CHECK(t.db == "/from/flag.db");
    unsetenv("KSEEK_CONFIG_TEST_DB");
  }
}

TEST_CASE("a malformed config file is an error naming FILE:LINE:COLUMN", "[config]") {
  testing::TempDir dir;
  const std::string path = WriteConfig(dir, "listen: \"0.0.0.0:7070\"\nlease_timeout: 3O\n");
  ServerConfig config;
  FlagSet flags("kseek-server", "", "");
  absl::Status status = LoadConfigFile(path, &config, &flags);
  REQUIRE(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(status.message()), Contains(path + ":2:"));

  ServerFlags s;
  CHECK(s.Parse({"--config", path}) == 2);
  // The flags keep their defaults: nothing of a bad file is used.
  CHECK(s.listen == "127.0.0.1:7070");
}

TEST_CASE("an unknown field in a config file is an error naming it and its line", "[config]") {
  testing::TempDir dir;
  const std::string path = WriteConfig(dir, "# comment\nlisen: \"0.0.0.0:7070\"\n");
  ServerConfig config;
  FlagSet flags("kseek-server", "", "");
  absl::Status status = LoadConfigFile(path, &config, &flags);
  REQUIRE(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(status.message()), Contains(path + ":2:6: ") && Contains("no field named \"lisen\""));
}

TEST_CASE("a config field that is not a flag of the program is an error, as is a missing file", "[config]") {
  testing::TempDir dir;
  const std::string path = WriteConfig(dir, "max_attempts: 4\n");
  ServerFlags s;
  ServerConfig config;
  absl::Status status = LoadConfigFile(path, &config, &s.flags);
  CHECK_THAT(std::string(status.message()), Contains(path) && Contains("max-attempts is not a setting of kseek-server"));

  status = LoadConfigFile(dir.File("missing.textproto"), &config, &s.flags);
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(status.message()), Contains("cannot read") && Contains("missing.textproto"));
}

TEST_CASE("--help does not read the config file", "[config]") {
  ServerFlags s;
  CHECK(s.Parse({"--config", "/nonexistent/file", "--help"}) == 0);
}

TEST_CASE("ConfigPathInArgs finds --config in both spellings and stops at --", "[config]") {
  CHECK(ConfigPathInArgs({"--db", "x", "--config", "a.textproto"}) == "a.textproto");
  CHECK(ConfigPathInArgs({"--config=b.textproto"}) == "b.textproto");
  CHECK(ConfigPathInArgs({"--", "--config", "c"}).empty());
  CHECK(ConfigPathInArgs({}).empty());
}

}  // namespace
}  // namespace kseek
