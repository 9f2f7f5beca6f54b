// kseek-server: the coordinator. Serves Coordinator (clients) and WorkerHub
// (workers) on one port, runs optimization sessions, and keeps everything in
// one SQLite file.
//
//   kseek-server --listen HOST:PORT --db PATH [--tls-cert F --tls-key F [--worker-client-ca F]] [flags]
//   kseek-server token create --db PATH --user NAME | --worker NAME
//   kseek-server backup --db PATH --to FILE
#include <netdb.h>
#include <signal.h>
#include <sys/socket.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "common/clock.h"
#include "common/flags.h"
#include "common/log.h"
#include "common/protocol.h"
#include "common/tls.h"
#include "common/version.h"
#include "server/backup.h"
#include "server/auth.h"
#include "server/coordinator_service.h"
#include "server/job_queue.h"
#include "server/job_runner.h"
#include "server/llm/curl_http_client.h"
#include "server/llm_endpoints.h"
#include "problem/problem_catalog.h"
#include "server/question_bank.h"
#include "server/session_manager.h"
#include "server/store.h"
#include "server/worker_hub_service.h"

namespace kseek {
namespace {

constexpr int kUsageError = 2;
constexpr int kRuntimeError = 1;

int Fail(const std::string& message, int code = kRuntimeError) {
  std::cerr << "kseek-server: " << message << "\n";
  return code;
}

// The scenarios/ folder beside an installed bundle (bin/../share/scenarios) or
// of the source tree that build/bin/ is in.
std::string DefaultScenariosDir() {
  std::error_code error;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  for (const char* relative : {"../share/scenarios", "../../scenarios"}) {
    std::filesystem::path candidate = exe.parent_path() / relative;
    if (std::filesystem::is_directory(candidate, error)) return std::filesystem::weakly_canonical(candidate).string();
  }
  return "scenarios";
}

// The question_bank/ folder beside an installed bundle or of the source tree.
std::string DefaultQuestionBankDir() {
  std::error_code error;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  for (const char* relative : {"../share/question_bank", "../../question_bank"}) {
    std::filesystem::path candidate = exe.parent_path() / relative;
    if (std::filesystem::is_directory(candidate, error)) return std::filesystem::weakly_canonical(candidate).string();
  }
  return "";
}

int TokenCreate(const std::vector<std::string>& args) {
  std::string db_path;
  std::string user;
  std::string worker;
  FlagSet flags("kseek-server token create", "--db PATH (--user NAME | --worker NAME)",
                "Creates an API token and prints it on the last line. Only its SHA-256 is stored;\n"
                "the token itself is shown once. --user makes a token for the kseek CLI,\n"
                "--worker one for kseek-worker.");
  flags.String("db", &db_path, "SQLite database of the server (created if missing)");
  flags.String("user", &user, "name of the user the token is for");
  flags.String("worker", &worker, "name of the worker (or worker pool) the token is for");
  if (std::optional<int> done = ParseCommandFlags(flags, args, "kseek-server")) return *done;
  if (db_path.empty()) return Fail("--db is required", kUsageError);
  if (user.empty() == worker.empty()) return Fail("give exactly one of --user NAME or --worker NAME", kUsageError);
  TokenKind kind = user.empty() ? TokenKind::kWorker : TokenKind::kUser;
  const std::string& name = user.empty() ? worker : user;

  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(db_path);
  if (!store.ok()) return Fail(std::string(store.status().message()));
  absl::StatusOr<std::string> token = NewToken(kind);
  if (!token.ok()) return Fail(std::string(token.status().message()));
  if (absl::Status s = (*store)->AddToken(kind, name, Sha256Hex(*token), absl::Now()); !s.ok()) {
    return Fail(std::string(s.message()));
  }
  std::cerr << "created " << (kind == TokenKind::kUser ? "user" : "worker") << " token for " << name
            << " (shown once; keep it secret)\n";
  std::cout << *token << "\n";
  return 0;
}

int Backup(const std::vector<std::string>& args) {
  std::string db_path;
  std::string to;
  FlagSet flags("kseek-server backup", "--db PATH --to FILE",
                "Copies the database to FILE with SQLite's online backup, safe while a server\n"
                "is running on it (the copy is of one consistent moment). FILE must not exist;\n"
                "it is created 0600 (it holds every kernel and the token hashes).\n"
                "\n"
                "To restore: stop the server, copy FILE over the database (remove PATH-wal and\n"
                "PATH-shm if they are left), and start the server; it checks the file at start.");
  flags.String("db", &db_path, "SQLite database of the server");
  flags.String("to", &to, "backup file to create");
  if (std::optional<int> done = ParseCommandFlags(flags, args, "kseek-server")) return *done;
  if (db_path.empty() || to.empty()) return Fail("--db and --to are required", kUsageError);
  absl::StatusOr<int> pages = BackupDatabase(db_path, to);
  if (!pages.ok()) {
    return Fail(std::string(pages.status().message()),
                pages.status().code() == absl::StatusCode::kAlreadyExists ? kUsageError : kRuntimeError);
  }
  std::cerr << "backed up " << db_path << " to " << to << " (" << *pages << " pages)\n";
  return 0;
}

// Why `address` cannot be listened on, found by binding it as gRPC will
// (SO_REUSEADDR, no SO_REUSEPORT): "HOST:PORT is in use" for a taken port;
// nullopt when the bind works.
std::optional<std::string> ListenProblem(const HostPort& address) {
  std::string host = address.host;
  if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  const std::string where = absl::StrCat(address.host, ":", address.port);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(address.port).c_str(), &hints, &found) != 0 || found == nullptr) {
    return absl::StrCat("cannot listen on ", where, ": the host does not resolve");
  }
  std::optional<std::string> problem;
  for (addrinfo* a = found; a != nullptr && !problem.has_value(); a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));  // as gRPC: TIME_WAIT leftovers are no obstacle
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0) {
      problem = errno == EADDRINUSE ? absl::StrCat(where, " is in use (another kseek-server or program listens there)")
                                    : absl::StrCat("cannot listen on ", where, ": ", strerror(errno));
    }
    close(fd);
  }
  freeaddrinfo(found);
  return problem;
}

int Serve(const std::vector<std::string>& args) {
  std::string listen = "127.0.0.1:7070";
  std::string db_path;
  int64_t lease_timeout_s = 30;
  int64_t idle_poll_s = 20;
  int64_t max_attempts = 3;
  std::string scenarios_dir = DefaultScenariosDir();
  std::string question_bank_dir = DefaultQuestionBankDir();
  int64_t llm_attempts = 5;
  int64_t llm_backoff_ms = 1000;
  int64_t llm_timeout_s = 300;
  int64_t session_job_wait_s = 1800;
  std::string llm_endpoints_path;
  std::string replay_dir;
  ServerTlsConfig tls;
  bool version = false;
  FlagSet flags("kseek-server",
                "--listen HOST:PORT --db PATH [--tls-cert FILE --tls-key FILE [--worker-client-ca FILE]] [flags]\n"
                "       kseek-server token create --help\n"
                "       kseek-server backup --help\n"
                "       kseek-server --version",
                "The KernelSeek coordinator: queues jobs, leases them to workers, runs\n"
                "optimization sessions, stores everything in SQLite. Stops on SIGTERM or SIGINT\n"
                "within 10 s (LLM calls in flight are aborted; sessions resume at the next start).\n"
                "\n"
                "LLM endpoints are the admin's: --llm-endpoints names them, with the environment\n"
                "variable of each one's key (read once at start) and the models users may pick;\n"
                "users choose one by name. Without the file sessions can only replay traces.\n"
                "See deploy/llm_endpoints.example.textproto.\n"
                "\n"
                "TLS: --tls-cert and --tls-key serve TLS (clients verify with --tls-ca);\n"
                "--worker-client-ca also makes workers present a client certificate signed by\n"
                "that CA (users' kseek needs none). Without a certificate the server speaks\n"
                "plaintext, and only on a loopback --listen unless --insecure-plaintext.\n"
                "A port that is already taken is an error, never shared. Calls from a kseek or\n"
                "kseek-worker of another protocol version are refused, naming the side to\n"
                "upgrade (--version prints both versions).");
  flags.Bool("version", &version, "print the version and protocol version, and exit");
  flags.String("listen", &listen, "address to serve on; port 0 picks a free port (printed at start)");
  flags.String("db", &db_path, "SQLite database file (created and migrated if needed)");
  flags.String("tls-cert", &tls.cert_file,
               "server certificate chain (PEM); its names must cover the address clients dial");
  flags.String("tls-key", &tls.key_file, "private key (PEM) of --tls-cert");
  flags.String("worker-client-ca", &tls.worker_client_ca,
               "CA (PEM) whose client certificates workers must present (mutual TLS for workers)");
  flags.Bool("insecure-plaintext", &tls.insecure_plaintext,
             "serve plaintext on a non-loopback --listen (tokens and kernels readable on the network)");
  flags.Int("lease-timeout", &lease_timeout_s, "seconds a worker holding a job may go without syncing");
  flags.Int("idle-poll", &idle_poll_s, "seconds an idle worker's long poll is held");
  flags.Int("max-attempts", &max_attempts, "leases handed out for one job before it fails");
  flags.String("scenarios", &scenarios_dir, "folder of problems (PROBLEM/problem.textproto) for verify and bench jobs");
  flags.String("question-bank", &question_bank_dir,
               "folder of *.textproto questions for sessions in bank and self mode (empty: none)");
  flags.Int("llm-attempts", &llm_attempts, "attempts per LLM call (429, 5xx, timeouts, connection errors are retried)");
  flags.Int("llm-backoff-ms", &llm_backoff_ms, "delay before the second LLM attempt, doubled for each further one");
  flags.Int("llm-timeout", &llm_timeout_s, "seconds one LLM attempt may take");
  flags.Int("session-job-wait", &session_job_wait_s, "seconds a session's tool waits for its compile/verify/bench job");
  flags.String("llm-endpoints", &llm_endpoints_path,
               "LLM endpoints file (protobuf text format, schema proto/llm_endpoints.proto); empty: none");
  flags.String("replay-traces", &replay_dir,
               "folder of JSONL traces that replay sessions may name (plain file names; empty: uploads only)");
  if (std::optional<int> done = ParseCommandFlags(flags, args, "kseek-server")) return *done;
  if (version) {
    std::cout << VersionLine("kseek-server") << "\n";
    return 0;
  }
  if (db_path.empty()) return Fail("--db is required", kUsageError);
  absl::StatusOr<HostPort> address = ParseHostPort("listen", listen, /*allow_port_zero=*/true);
  if (!address.ok()) return Fail(std::string(address.status().message()), kUsageError);
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials = MakeServerCredentials(tls, listen);
  if (!credentials.ok()) return Fail(std::string(credentials.status().message()), kUsageError);
  // Before the database is opened: a second server started by mistake on the
  // same port (and likely the same database) must not resume its sessions.
  // The bind at start is checked again below, for a port taken meanwhile.
  if (address->port != 0) {
    if (std::optional<std::string> problem = ListenProblem(*address)) return Fail(*problem);
  }
  std::string llm_endpoints_text;
  if (!llm_endpoints_path.empty()) {
    std::ifstream in(llm_endpoints_path, std::ios::binary);
    if (!in) return Fail(absl::StrCat("cannot read --llm-endpoints ", llm_endpoints_path), kUsageError);
    std::ostringstream text;
    text << in.rdbuf();
    llm_endpoints_text = std::move(text).str();
  }
  if (!replay_dir.empty() && !std::filesystem::is_directory(replay_dir)) {
    return Fail(absl::StrCat("--replay-traces ", replay_dir, " is not a folder"), kUsageError);
  }
  if (lease_timeout_s < 1 || idle_poll_s < 1 || max_attempts < 1) {
    return Fail("--lease-timeout, --idle-poll and --max-attempts must be at least 1", kUsageError);
  }
  if (llm_attempts < 1 || llm_backoff_ms < 0 || llm_timeout_s < 1 || session_job_wait_s < 1) {
    return Fail("--llm-attempts, --llm-timeout and --session-job-wait must be at least 1, --llm-backoff-ms >= 0",
                kUsageError);
  }

  // Signals are taken by a dedicated thread with sigwait; block them before
  // any other thread starts so that they inherit the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  absl::StatusOr<std::unique_ptr<Store>> store = Store::Open(db_path);
  if (!store.ok()) return Fail(std::string(store.status().message()));
  absl::StatusOr<ProblemCatalog> problems = ProblemCatalog::Load(scenarios_dir);
  if (!problems.ok()) return Fail(absl::StrCat("loading problems: ", problems.status().message()));
  Log(absl::StrCat("problems from ", scenarios_dir, ": ",
                   problems->Names().empty() ? "none" : absl::StrJoin(problems->Names(), ", ")));
  RealClock clock;
  JobQueueOptions options;
  options.lease_timeout = absl::Seconds(lease_timeout_s);
  options.idle_poll = absl::Seconds(idle_poll_s);
  options.max_attempts = static_cast<int>(max_attempts);
  JobQueue queue(store->get(), &clock, &*problems, options);
  if (absl::Status s = queue.Recover(); !s.ok()) return Fail(absl::StrCat("recovering jobs: ", s.message()));
  std::optional<QuestionBank> bank;
  if (!question_bank_dir.empty()) {
    absl::StatusOr<QuestionBank> loaded = QuestionBank::LoadDirectory(question_bank_dir);
    if (!loaded.ok()) return Fail(absl::StrCat("loading the question bank: ", loaded.status().message()));
    bank = *std::move(loaded);
    Log(absl::StrCat("question bank from ", question_bank_dir, ": ", bank->questions().size(), " questions"));
  } else {
    Log("no question bank: sessions can use question modes human and off only");
  }
  QueueJobRunner job_runner(&queue, absl::Seconds(session_job_wait_s));
  llm::CurlHttpClient http;
  LlmClientOptions llm_options;
  llm_options.max_attempts = static_cast<int>(llm_attempts);
  llm_options.initial_backoff = absl::Milliseconds(llm_backoff_ms);
  llm_options.request_timeout = absl::Seconds(llm_timeout_s);
  absl::StatusOr<LlmEndpoints> endpoints =
      LlmEndpoints::FromText(llm_endpoints_text, llm_endpoints_path, replay_dir, llm_options, &http, &clock);
  if (!endpoints.ok()) return Fail(absl::StrCat("--llm-endpoints: ", endpoints.status().message()));
  Log(endpoints->Describe());
  SessionManager sessions(store->get(), &clock, &*problems, bank.has_value() ? &*bank : nullptr, &job_runner,
                          [&endpoints](kernelseek::v1::LlmConfig* config, const std::string& api_key) {
                            return endpoints->MakeClient(config, api_key);
                          });
  if (absl::Status s = sessions.Recover(); !s.ok()) return Fail(absl::StrCat("resuming sessions: ", s.message()));
  Authenticator auth(store->get(), /*require_worker_certificate=*/!tls.worker_client_ca.empty());
  CoordinatorService coordinator(&queue, &auth, &*problems, &sessions);
  WorkerHubService hub(&queue, &auth);

  grpc::ServerBuilder builder;
  int port = 0;
  // gRPC sets SO_REUSEPORT by default, which lets a second server bind a
  // taken port and silently share (or steal) its calls.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  AddServerProtocolInterceptor(&builder, kProtocolVersion);
  builder.AddListeningPort(listen, *credentials, &port);
  builder.RegisterService(&coordinator);
  builder.RegisterService(&hub);
  builder.SetMaxReceiveMessageSize(16 << 20);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return Fail(ListenProblem(*address).value_or(absl::StrCat("cannot listen on ", listen)));
  }
  Log(absl::StrCat("kseek-server ", kProjectVersion, " (protocol ", kProtocolVersion, ") listening on ", address->host,
                   ":", port, tls.cert_file.empty() ? " (plaintext)" : " (TLS)",
                   tls.worker_client_ca.empty() ? "" : " (workers need client certificates)", " db ", db_path));

  absl::Notification stopping;
  std::thread expirer([&] {
    while (!stopping.WaitForNotificationWithTimeout(absl::Seconds(1))) queue.ExpireLeases();
  });
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  Log(absl::StrCat("signal ", signal_number, ": shutting down"));
  // Every wait below is bounded (LLM calls are aborted, job waits and
  // streams wake on shutdown); this only guarantees the promise of --help
  // should one of them not be.
  std::thread([] {
    absl::SleepFor(absl::Seconds(9));
    Log("shutdown is taking longer than 9 s; exiting without finishing it");
    _exit(kRuntimeError);
  }).detach();
  stopping.Notify();
  // Sessions first: their loops end (LLM calls aborted, job waits cancelled)
  // before the queue stops, so no tool records a job cut off by the shutdown.
  sessions.Shutdown();
  queue.Shutdown();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  expirer.join();
  Log("stopped");
  return 0;
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "backup") return Backup(std::vector<std::string>(args.begin() + 1, args.end()));
  if (args.size() >= 2 && args[0] == "token" && args[1] == "create") {
    return TokenCreate(std::vector<std::string>(args.begin() + 2, args.end()));
  }
  if (!args.empty() && args[0] == "token") return Fail("usage: kseek-server token create --help", kUsageError);
  return Serve(args);
}

}  // namespace
}  // namespace kseek

int main(int argc, char** argv) { return kseek::Main(argc, argv); }
