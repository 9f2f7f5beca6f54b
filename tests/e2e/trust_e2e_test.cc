// End to end for issue 13 ("a team can trust the server"), through the real
// binaries: TLS between server, worker and CLI with a throwaway CA made by the
// openssl CLI; what is refused (a wrong CA, plaintext off loopback, a worker
// without a client certificate under mutual TLS, a taken port, another
// protocol version); and a backup taken while the server runs, restored.
#include <signal.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "tests/e2e/local_stack.h"

namespace kseek::testing {
namespace {

void Openssl(const std::vector<std::string>& args) {
  SubprocessSpec spec;
  spec.argv = {"openssl"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.time_limit = absl::Seconds(60);
  auto result = RunSubprocess(spec);
  REQUIRE(result.ok());
  INFO(result->stderr_text);
  REQUIRE(result->exit_code == 0);
}

// A throwaway CA, a server certificate for 127.0.0.1 and localhost signed by
// it, a worker client certificate signed by it, and an unrelated CA.
struct TestPki {
  explicit TestPki(const TempDir& dir)
      : ca(dir.File("ca.pem")),
        server_cert(dir.File("server.pem")),
        server_key(dir.File("server.key")),
        worker_cert(dir.File("worker.pem")),
        worker_key(dir.File("worker.key")),
        other_ca(dir.File("other-ca.pem")) {
    const std::string ca_key = dir.File("ca.key");
    Openssl({"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca, "-days", "2", "-subj",
             "/CN=kseek test CA"});
    Openssl({"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir.File("other-ca.key"), "-out", other_ca,
             "-days", "2", "-subj", "/CN=some other CA"});
    WriteFile(dir.File("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    WriteFile(dir.File("worker.ext"), "extendedKeyUsage=clientAuth\n");
    for (auto [cert, key, name, ext] : {std::tuple{server_cert, server_key, "localhost", "server.ext"},
                                        std::tuple{worker_cert, worker_key, "worker-1", "worker.ext"}}) {
      const std::string csr = cert + ".csr";
      Openssl({"req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj",
               absl::StrCat("/CN=", name)});
      Openssl({"x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert, "-days", "2",
               "-extfile", dir.File(ext)});
    }
  }
  std::vector<std::string> ServerFlags() const { return {"--tls-cert", server_cert, "--tls-key", server_key}; }

  std::string ca, server_cert, server_key, worker_cert, worker_key, other_ca;
};

SubprocessResult Run(const std::vector<std::string>& argv) {
  SubprocessSpec spec;
  spec.argv = argv;
  spec.time_limit = absl::Seconds(60);
  auto result = RunSubprocess(spec);
  REQUIRE(result.ok());
  return *std::move(result);
}

bool WorkerListed(LocalStack& stack, const std::string& name, const std::string& ca) {
  SubprocessResult r = stack.Kseek({"workers"}, "", {{"KSEEK_TLS_CA", ca}});
  return r.exit_code == 0 && r.stdout_text.find(name) != std::string::npos;
}

TEST_CASE("server, worker and CLI over TLS: the worker registers and a kernel compiles", "[e2e][trust]") {
  LocalStack stack;
  TestPki pki(stack.dir());
  stack.StartServer(pki.ServerFlags());
  CHECK_THAT(ReadFile(stack.server()->log_path()), Catch::Contains("(TLS)"));
  stack.StartWorker("tls-worker", "", {"--tls-ca", pki.ca, "--no-sandbox"}, /*wait_until_listed=*/false);
  REQUIRE(WaitFor([&] { return WorkerListed(stack, "tls-worker", pki.ca); }, absl::Seconds(20)));

  const std::string kernel = stack.dir().File("k.cu");
  WriteFile(kernel, "__global__ void tls_scale(float* x) { x[threadIdx.x] *= 2.0f; }\n");
  SubprocessResult r = stack.Kseek({"--tls-ca", pki.ca, "compile", kernel, "--arch", "sm_90a"});
  INFO(r.stdout_text << r.stderr_text);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.stdout_text, Catch::Contains("tls_scale"));

  // The same server does not talk plaintext, even on loopback.
  SubprocessResult plain = stack.Kseek({"jobs"});
  CHECK(plain.exit_code == 3);
}

TEST_CASE("a CLI with the wrong CA is refused: exit 3, the certificate could not be verified", "[e2e][trust]") {
  LocalStack stack;
  TestPki pki(stack.dir());
  stack.StartServer(pki.ServerFlags());
  SubprocessResult r = stack.Kseek({"jobs"}, "", {{"KSEEK_TLS_CA", pki.other_ca}});
  INFO(r.stderr_text);
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.stderr_text, Catch::Contains("kseek: the TLS certificate of the server at " + stack.address() +
                                            " could not be verified"));
  // The right CA works, so the refusal was the CA's.
  CHECK(stack.Kseek({"jobs"}, "", {{"KSEEK_TLS_CA", pki.ca}}).exit_code == 0);
}

TEST_CASE("a CLI with a CA facing a plaintext server is told the server does not speak TLS", "[e2e][trust]") {
  LocalStack stack;
  TestPki pki(stack.dir());
  stack.StartServer();
  SubprocessResult r = stack.Kseek({"jobs"}, "", {{"KSEEK_TLS_CA", pki.ca}});
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.stderr_text, Catch::Contains("the server at " + stack.address() + " does not speak TLS"));
  CHECK(stack.Kseek({"jobs"}).exit_code == 0);
}

TEST_CASE("plaintext off loopback is refused unless asked for by name", "[e2e][trust]") {
  TempDir dir;
  SubprocessResult server =
      Run({BinDir() + "/kseek-server", "--listen", "0.0.0.0:0", "--db", dir.File("kseek.db")});
  CHECK(server.exit_code == 2);
  CHECK_THAT(server.stderr_text, Catch::Contains("refusing to serve plaintext on 0.0.0.0:0") &&
                                     Catch::Contains("--tls-cert") && Catch::Contains("--insecure-plaintext"));
  CHECK(server.stderr_text.find("listening") == std::string::npos);

  // A client's plaintext to a non-loopback address is refused before dialing.
  SubprocessResult client = Run({BinDir() + "/kseek", "--server", "192.0.2.1:7070", "--token", "ksu_x", "jobs"});
  CHECK(client.exit_code == 2);
  CHECK_THAT(client.stderr_text, Catch::Contains("refusing plaintext to 192.0.2.1:7070") &&
                                     Catch::Contains("--tls-ca"));
  SubprocessResult worker = Run({BinDir() + "/kseek-worker", "--server", "192.0.2.1:7070", "--token", "ksw_x",
                                 "--no-sandbox", "--temp-dir", dir.path()});
  CHECK(worker.exit_code == 2);
  CHECK_THAT(worker.stderr_text, Catch::Contains("refusing plaintext to 192.0.2.1:7070"));
}

TEST_CASE("mutual TLS: a worker without a client certificate is rejected, one with it serves", "[e2e][trust]") {
  LocalStack stack;
  TestPki pki(stack.dir());
  std::vector<std::string> flags = pki.ServerFlags();
  flags.insert(flags.end(), {"--worker-client-ca", pki.ca});
  stack.StartServer(flags);

  ChildProcess* anonymous =
      stack.StartWorker("no-cert", "", {"--tls-ca", pki.ca, "--no-sandbox"}, /*wait_until_listed=*/false);
  REQUIRE(WaitFor([&] { return !anonymous->running(); }, absl::Seconds(20)));
  CHECK(anonymous->Wait() != 0);
  CHECK_THAT(ReadFile(anonymous->log_path()),
             Catch::Contains("server rejected this worker") && Catch::Contains("requires workers to present a client "
                                                                               "certificate"));

  stack.StartWorker("with-cert", "",
                    {"--tls-ca", pki.ca, "--tls-cert", pki.worker_cert, "--tls-key", pki.worker_key, "--no-sandbox"},
                    /*wait_until_listed=*/false);
  // Users' kseek needs no certificate on the same port.
  REQUIRE(WaitFor([&] { return WorkerListed(stack, "with-cert", pki.ca); }, absl::Seconds(20)));
  CHECK_FALSE(WorkerListed(stack, "no-cert", pki.ca));
}

TEST_CASE("a second kseek-server on a taken port fails, saying the port is in use", "[e2e][trust]") {
  LocalStack stack;
  stack.StartServer();
  // The likely mistake: the same command twice, so the same database too.
  SubprocessResult r = Run({BinDir() + "/kseek-server", "--listen", stack.address(), "--db", stack.db()});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.stderr_text, Catch::Contains("kseek-server: " + stack.address() + " is in use"));
  CHECK(r.stderr_text.find("listening") == std::string::npos);
  // It stopped before opening the database (no "recovered ... jobs" line).
  CHECK(r.stderr_text.find("recovered") == std::string::npos);
  CHECK(stack.server()->running());
  CHECK(stack.Kseek({"jobs"}).exit_code == 0);

  // A restart on the same port works at once, connections of the old server
  // in TIME_WAIT notwithstanding.
  const std::string address = stack.address();
  stack.KillServer(SIGTERM);
  stack.StartServer({"--listen", address});  // the later --listen wins
  CHECK(stack.address() == address);
  CHECK(stack.Kseek({"jobs"}).exit_code == 0);
}

TEST_CASE("every binary prints the project and protocol versions for --version", "[e2e][trust]") {
  for (const std::string program : {"kseek", "kseek-server", "kseek-worker", "kseek-runner"}) {
    if (!std::filesystem::exists(BinDir() + "/" + program)) {
      WARN(program << " is not built here (no nvcc): skipped");
      continue;
    }
    SubprocessResult r = Run({BinDir() + "/" + program, "--version"});
    CHECK(r.exit_code == 0);
    CHECK(std::regex_match(r.stdout_text, std::regex(program + " [0-9]+\\.[0-9]+\\.[0-9]+ \\(protocol [0-9]+\\)\n")));
  }
}

TEST_CASE("a worker of another protocol version is refused, told which side to upgrade", "[e2e][trust]") {
  LocalStack stack;
  stack.StartServer();
  SubprocessResult version = Run({BinDir() + "/kseek-server", "--version"});
  std::smatch match;
  REQUIRE(std::regex_search(version.stdout_text, match, std::regex("protocol ([0-9]+)")));
  const int ours = std::stoi(match[1]);
  ChildProcess* newer =
      stack.StartWorker("future", "", {"--protocol-version-for-test", std::to_string(ours + 1), "--no-sandbox"},
                        /*wait_until_listed=*/false);
  const std::string expected = absl::StrCat("kseek-server speaks protocol ", ours, ", this kseek-worker speaks protocol ",
                                            ours + 1, ": upgrade kseek-server");
  CHECK(WaitFor([&] { return ReadFile(newer->log_path()).find(expected) != std::string::npos; }, absl::Seconds(20)));
  // A refusal that only an upgrade can fix: the worker stops.
  REQUIRE(WaitFor([&] { return !newer->running(); }, absl::Seconds(20)));
  CHECK(newer->Wait() != 0);
  CHECK_FALSE(WorkerListed(stack, "future", ""));
}

TEST_CASE("backup while the server runs, then restore: jobs and tokens are back, later ones are not", "[e2e][trust]") {
  LocalStack stack;
  stack.StartServer();
  const std::string kernel = stack.dir().File("before_backup.cu");
  WriteFile(kernel, "__global__ void backed_up(float* x) { x[0] = 1.0f; }\n");
  // No worker runs here: the jobs need only be stored.
  SubprocessResult first = stack.Kseek({"compile", kernel, "--arch", "sm_90a", "--no-wait", "--wait-for-worker"});
  REQUIRE(first.exit_code == 0);
  const std::string first_id(absl::StripAsciiWhitespace(first.stdout_text));

  const std::string backup = stack.dir().File("kseek.backup");
  SubprocessResult r = Run({BinDir() + "/kseek-server", "backup", "--db", stack.db(), "--to", backup});
  INFO(r.stderr_text);
  REQUIRE(r.exit_code == 0);
  struct stat info;
  REQUIRE(stat(backup.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
  SubprocessResult again = Run({BinDir() + "/kseek-server", "backup", "--db", stack.db(), "--to", backup});
  CHECK(again.exit_code == 2);
  CHECK_THAT(again.stderr_text, Catch::Contains(backup + " exists"));

  // A job after the backup, which the restore must take away.
  const std::string later_kernel = stack.dir().File("after_backup.cu");
  WriteFile(later_kernel, "__global__ void after_backup(float* x) { x[0] = 2.0f; }\n");
  SubprocessResult second =
      stack.Kseek({"compile", later_kernel, "--arch", "sm_90a", "--no-wait", "--wait-for-worker"});
  REQUIRE(second.exit_code == 0);
  const std::string second_id(absl::StripAsciiWhitespace(second.stdout_text));
  REQUIRE(stack.Kseek({"job", second_id}).exit_code == 0);

  // The restore as README.md gives it: stop, copy over the database, start.
  stack.KillServer(SIGTERM);
  for (const std::string suffix : {"-wal", "-shm"}) std::filesystem::remove(stack.db() + suffix);
  std::filesystem::copy_file(backup, stack.db(), std::filesystem::copy_options::overwrite_existing);
  stack.StartServer();
  // The user token of before the backup still works, and finds the first job.
  SubprocessResult restored = stack.Kseek({"job", first_id, "--json"});
  INFO(restored.stdout_text << restored.stderr_text);
  CHECK(restored.exit_code == 0);
  CHECK_THAT(restored.stdout_text, Catch::Contains("before_backup.cu"));
  SubprocessResult later = stack.Kseek({"job", second_id});
  CHECK(later.exit_code == 2);
}

}  // namespace
}  // namespace kseek::testing
