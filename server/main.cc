// kseek-server: the coordinator. Serves Coordinator (clients) and WorkerHub
// (workers) on one port, runs optimization sessions, and keeps everything in
// one SQLite file.
//
//   kseek-server --listen HOST:PORT --db PATH [--tls-cert F --tls-key F [--worker-client-ca F]] [flags]
//   kseek-server token create --db PATH (--user NAME [--team T] [--role R] | --worker NAME) [--expires WHEN]
//   kseek-server token list --db PATH [--team T]
//   kseek-server token revoke --db PATH ID
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

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "common/clock.h"
#include "common/config_file.h"
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
#include "server/metered_llm_client.h"
#include "server/metrics.h"
#include "problem/problem_catalog.h"
#include "proto/config.pb.h"
#include "server/question_bank.h"
#include "server/session_manager.h"
#include "server/store_file.h"
#include "server/token_registry.h"
#include "server/compile_artifact_cache.h"
#include "server/compile_artifact_store.h"
#include "server/job_store.h"
#include "server/session_store.h"
#include "server/token_store.h"
#include "server/worker_hub_service.h"

namespace kseek {
namespace {

constexpr int kUsageError = 2;
constexpr int kRuntimeError = 1;

int Fail(const std::string& message, int code = kRuntimeError) {
  std::cerr << "kseek-server: " << message << "\n";
  return code;
}

// The database at `path`, migrated, and its tokens: what the token commands use.
absl::StatusOr<std::unique_ptr<TokenStore>> OpenTokenStore(const std::string& path) {
  absl::StatusOr<std::unique_ptr<StoreFile>> file = StoreFile::Open(path);
  if (!file.ok()) return file.status();
  return TokenStore::Open(**file);
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
  std::string team;
  std::string role_name;
  std::string expires;
  FlagSet flags("kseek-server token create",
                "--db PATH (--user NAME [--team TEAM] [--role ROLE] | --worker NAME) [--expires WHEN]",
                "Creates an API token and prints it on the last line. Only its SHA-256 is stored;\n"
                "the token itself is shown once. --user makes a token for the kseek CLI of a\n"
                "user in one team, --worker one for kseek-worker (workers serve every team).\n"
                "Roles: admin (all a member may, cancels and stops any of the team's work, and\n"
                "manages the team's tokens with `kseek token`), member (submits jobs, starts\n"
                "sessions, cancels and stops its own, reads the team's and asks its sessions),\n"
                "viewer (reads the team's).");
  flags.String("db", &db_path, "SQLite database of the server (created if missing)");
  flags.String("user", &user, "name of the user the token is for");
  flags.String("team", &team, "team of the user (letters, digits, '.', '_', '-'); default: default");
  flags.String("role", &role_name, "role of the user in the team: admin, member or viewer; default: member");
  flags.String("worker", &worker, "name of the worker (or worker pool) the token is for");
  flags.String("expires", &expires,
               "when the token stops working: 30d, 12h, 90m from now, a date 2027-01-31 (00:00 UTC) or an "
               "RFC 3339 time; empty: never");
  if (std::optional<int> done = ParseCommandFlags(flags, args, "kseek-server")) return *done;
  if (db_path.empty()) return Fail("--db is required", kUsageError);
  if (user.empty() == worker.empty()) return Fail("give exactly one of --user NAME or --worker NAME", kUsageError);
  TokenRequest request;
  request.kind = user.empty() ? TokenKind::kWorker : TokenKind::kUser;
  request.name = user.empty() ? worker : user;
  request.expires = expires;
  if (request.kind == TokenKind::kWorker && (!team.empty() || !role_name.empty())) {
    return Fail("--team and --role are for --user tokens: workers serve every team", kUsageError);
  }
  if (team.empty()) team = kDefaultTeam;
  if (request.kind == TokenKind::kUser) {
    absl::StatusOr<Role> role = ParseRole(role_name.empty() ? "member" : role_name);
    if (!role.ok()) return Fail(absl::StrCat("--role: ", role.status().message()), kUsageError);
    request.team = team;
    request.role = *role;
  }
  // Checked before the database is opened, so a typo creates no file.
  if (absl::Status s = ValidateName(request.kind == TokenKind::kUser ? "--user" : "--worker", request.name);
      !s.ok()) {
    return Fail(std::string(s.message()), kUsageError);
  }
  if (absl::Status s = ValidateName("--team", team); request.kind == TokenKind::kUser && !s.ok()) {
    return Fail(std::string(s.message()), kUsageError);
  }
  RealClock clock;
  if (!expires.empty()) {
    if (absl::StatusOr<absl::Time> at = ParseExpiry(expires, clock.Now()); !at.ok()) {
      return Fail(std::string(at.status().message()), kUsageError);
    }
  }

  absl::StatusOr<std::unique_ptr<TokenStore>> store = OpenTokenStore(db_path);
  if (!store.ok()) return Fail(std::string(store.status().message()));
  TokenRegistry registry(store->get(), &clock);
  absl::StatusOr<CreatedToken> created = registry.Create(request);
  if (!created.ok()) {
    return Fail(std::string(created.status().message()),
                absl::IsInvalidArgument(created.status()) ? kUsageError : kRuntimeError);
  }
  const TokenRecord& record = created->record;
  std::cerr << "created token " << record.id << ": "
            << (record.kind == TokenKind::kUser
                    ? absl::StrCat("user ", record.name, ", ", RoleName(record.role), " of team ", record.team)
                    : absl::StrCat("worker ", record.name))
            << (record.expires_at.has_value() ? absl::StrCat(", expires ", FormatUtc(*record.expires_at)) : "")
            << " (shown once; keep it secret)\n";
  std::cout << created->token << "\n";
  return 0;
}

int TokenList(const std::vector<std::string>& args) {
  std::string db_path;
  std::string team;
  FlagSet flags("kseek-server token list", "--db PATH [--team TEAM]",
                "Lists the tokens of the database, oldest first: id, kind, team, name, role,\n"
                "when created (and by which admin), when it expires and whether it was\n"
                "revoked. Never the token or its hash. Worker tokens are listed without --team.");
  flags.String("db", &db_path, "SQLite database of the server");
  flags.String("team", &team, "only the user tokens of this team");
  if (std::optional<int> done = ParseCommandFlags(flags, args, "kseek-server")) return *done;
  if (db_path.empty()) return Fail("--db is required", kUsageError);
  if (!std::filesystem::exists(db_path)) return Fail(absl::StrCat("no database at ", db_path), kUsageError);
  absl::StatusOr<std::unique_ptr<TokenStore>> store = OpenTokenStore(db_path);
  if (!store.ok()) return Fail(std::string(store.status().message()));
  RealClock clock;
  absl::StatusOr<std::vector<TokenRecord>> tokens = TokenRegistry(store->get(), &clock).List(team);
  if (!tokens.ok()) return Fail(std::string(tokens.status().message()));
  std::cout << absl::StrFormat("%-5s %-6s %-12s %-16s %-7s %-24s %-24s %s\n", "ID", "KIND", "TEAM", "NAME", "ROLE",
                               "CREATED", "EXPIRES", "REVOKED");
  const absl::Time now = clock.Now();
  for (const TokenRecord& t : *tokens) {
    const bool user = t.kind == TokenKind::kUser;
    std::string expires = "never";
    if (t.expires_at.has_value()) {
      expires = absl::StrCat(FormatUtc(*t.expires_at), *t.expires_at <= now ? " (expired)" : "");
    }
    std::string revoked = "-";
    if (t.revoked_at.has_value()) {
      revoked = absl::StrCat(FormatUtc(*t.revoked_at), t.revoked_by.empty() ? "" : " by ", t.revoked_by);
    }
    std::cout << absl::StrFormat("%-5d %-6s %-12s %-16s %-7s %-24s %-24s %s\n", t.id, user ? "user" : "worker",
                                 user ? t.team : "-", t.name, user ? RoleName(t.role) : "-",
                                 FormatUtc(t.created_at), expires, revoked);
  }
  return 0;
}

int TokenRevoke(const std::vector<std::string>& args) {
  std::string db_path;
  FlagSet flags("kseek-server token revoke", "--db PATH ID",
                "Revokes token ID (see token list): the next call with it fails with\n"
                "\"token revoked at ...\", also on a server that is running on PATH now.");
  flags.String("db", &db_path, "SQLite database of the server");
  absl::StatusOr<std::vector<std::string>> positional = flags.Parse(args);
  if (!positional.ok()) return Fail(std::string(positional.status().message()), kUsageError);
  if (flags.help_requested()) {
    std::cout << flags.Usage();
    return 0;
  }
  if (db_path.empty()) return Fail("--db is required", kUsageError);
  int64_t id = 0;
  if (positional->size() != 1 || !absl::SimpleAtoi((*positional)[0], &id) || id < 1) {
    return Fail("token revoke wants one token ID, a number from `kseek-server token list`", kUsageError);
  }
  if (!std::filesystem::exists(db_path)) return Fail(absl::StrCat("no database at ", db_path), kUsageError);
  absl::StatusOr<std::unique_ptr<TokenStore>> store = OpenTokenStore(db_path);
  if (!store.ok()) return Fail(std::string(store.status().message()));
  RealClock clock;
  absl::StatusOr<TokenRecord> revoked = TokenRegistry(store->get(), &clock).Revoke(id, /*team=*/"", /*by=*/"");
  if (!revoked.ok()) {
    const bool usage = absl::IsNotFound(revoked.status()) || absl::IsFailedPrecondition(revoked.status());
    return Fail(std::string(revoked.status().message()), usage ? kUsageError : kRuntimeError);
  }
  std::cerr << "revoked token " << revoked->id << " ("
            << (revoked->kind == TokenKind::kUser ? absl::StrCat("user ", revoked->name, " of team ", revoked->team)
                                                  : absl::StrCat("worker ", revoked->name))
            << ")\n";
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
  std::string metrics_listen;
  std::string config_path;
  int64_t compile_cache_max_bytes = int64_t{2} << 30;
  ServerTlsConfig tls;
  bool version = false;
  FlagSet flags("kseek-server",
                "--listen HOST:PORT --db PATH [--tls-cert FILE --tls-key FILE [--worker-client-ca FILE]] [flags]\n"
                "       kseek-server --config FILE [flags]\n"
                "       kseek-server token create|list|revoke --help\n"
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
                "upgrade (--version prints both versions).\n"
                "\n"
                "--config FILE sets these flags from a protobuf text file (schema ServerConfig\n"
                "in proto/config.proto, fields named like the flags: lease_timeout: 60); flags\n"
                "on the command line override it. See deploy/config/server.textproto.\n"
                "Operations: gRPC health (grpc.health.v1.Health, NOT_SERVING while stopping)\n"
                "and reflection on --listen; Prometheus metrics on --metrics-listen.");
  flags.Bool("version", &version, "print the version and protocol version, and exit");
  flags.String("config", &config_path, "config file (protobuf text format, schema ServerConfig in proto/config.proto)");
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
  flags.Int("compile-cache-max-bytes", &compile_cache_max_bytes,
            "bytes of builds workers upload for one another (oldest-used go first; 0: keep none)");
  flags.String("replay-traces", &replay_dir,
               "folder of JSONL traces that replay sessions may name (plain file names; empty: uploads only)");
  flags.String("metrics-listen", &metrics_listen,
               "HOST:PORT to serve Prometheus metrics on (GET /metrics, plain HTTP; port 0 picks one, printed "
               "at start); empty: none");
  kernelseek::v1::ServerConfig config;
  if (std::optional<int> done = ParseCommandFlagsWithConfig(flags, args, "kseek-server", &config)) return *done;
  if (version) {
    std::cout << VersionLine("kseek-server") << "\n";
    return 0;
  }
  if (db_path.empty()) return Fail("--db is required", kUsageError);
  absl::StatusOr<HostPort> address = ParseHostPort("listen", listen, /*allow_port_zero=*/true);
  if (!address.ok()) return Fail(std::string(address.status().message()), kUsageError);
  if (!metrics_listen.empty()) {
    if (absl::StatusOr<HostPort> m = ParseHostPort("metrics-listen", metrics_listen, /*allow_port_zero=*/true);
        !m.ok()) {
      return Fail(std::string(m.status().message()), kUsageError);
    }
  }
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

  absl::StatusOr<std::unique_ptr<StoreFile>> store_file = StoreFile::Open(db_path);
  if (!store_file.ok()) return Fail(std::string(store_file.status().message()));
  absl::StatusOr<std::unique_ptr<JobStore>> job_store = JobStore::Open(**store_file);
  absl::StatusOr<std::unique_ptr<SessionStore>> session_store = SessionStore::Open(**store_file);
  absl::StatusOr<std::unique_ptr<TokenStore>> token_store = TokenStore::Open(**store_file);
  absl::StatusOr<std::unique_ptr<CompileArtifactStore>> artifact_store = CompileArtifactStore::Open(**store_file);
  for (const absl::Status& s :
       {job_store.status(), session_store.status(), token_store.status(), artifact_store.status()}) {
    if (!s.ok()) return Fail(std::string(s.message()));
  }
  absl::StatusOr<ProblemCatalog> problems = ProblemCatalog::Load(scenarios_dir);
  if (!problems.ok()) return Fail(absl::StrCat("loading problems: ", problems.status().message()));
  Log(absl::StrCat("problems from ", scenarios_dir, ": ",
                   problems->Names().empty() ? "none" : absl::StrJoin(problems->Names(), ", ")));
  RealClock clock;
  // Before the queue and sessions, which report to it; it stops serving
  // before they go.
  ServerMetrics metrics;
  JobQueueOptions options;
  options.events = &metrics;
  options.lease_timeout = absl::Seconds(lease_timeout_s);
  options.idle_poll = absl::Seconds(idle_poll_s);
  options.max_attempts = static_cast<int>(max_attempts);
  JobQueue queue(job_store->get(), &clock, &*problems, options);
  // The metrics endpoint reads the queue and the session store at each scrape: it
  // stops before they go, on every way out of this function.
  absl::Cleanup stop_metrics = [&metrics] { metrics.StopServing(); };
  if (absl::Status s = queue.Recover(); !s.ok()) return Fail(absl::StrCat("recovering jobs: ", s.message()));
  if (!metrics_listen.empty()) {
    metrics.SetSources({
        .queue_depth = [&queue] { return queue.Depth(); },
        .workers_connected =
            [&queue] {
              int64_t connected = 0;
              for (const kernelseek::v1::WorkerInfo& w : queue.ListWorkers()) connected += w.state() != "offline";
              return connected;
            },
        .sessions_running =
            [&session_store] {
              absl::StatusOr<std::vector<int64_t>> ids = (*session_store)->RunningSessionIds();
              return ids.ok() ? static_cast<int64_t>(ids->size()) : int64_t{0};
            },
    });
    absl::StatusOr<int> metrics_port = metrics.Serve(metrics_listen);
    if (!metrics_port.ok()) {
      return Fail(std::string(metrics_port.status().message()));
    }
    Log(absl::StrCat("metrics on http://", metrics_listen.substr(0, metrics_listen.rfind(':')), ":", *metrics_port,
                     "/metrics"));
  }

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
  SessionManager sessions(session_store->get(), &clock, &*problems, bank.has_value() ? &*bank : nullptr, &job_runner,
                          [&endpoints, &metrics, &clock](kernelseek::v1::LlmConfig* config,
                                                         const std::string& api_key)
                              -> absl::StatusOr<std::unique_ptr<llm::LlmClient>> {
                            absl::StatusOr<std::unique_ptr<llm::LlmClient>> client =
                                endpoints->MakeClient(config, api_key);
                            if (!client.ok()) return client.status();
                            return std::make_unique<MeteredLlmClient>(
                                *std::move(client), &clock,
                                [&metrics](absl::Duration latency, const absl::Status& status) {
                                  metrics.LlmCall(latency, status);
                                });
                          });
  if (absl::Status s = sessions.Recover(); !s.ok()) return Fail(absl::StrCat("resuming sessions: ", s.message()));
  Authenticator auth(token_store->get(), &clock, /*require_worker_certificate=*/!tls.worker_client_ca.empty());
  TokenRegistry tokens(token_store->get(), &clock);
  CoordinatorService coordinator(&queue, &auth, &*problems, &sessions, &tokens);
  if (compile_cache_max_bytes < 0) return Fail("--compile-cache-max-bytes must be 0 or more", kUsageError);
  CompileArtifactCache artifacts(artifact_store->get(), &clock,
                                 {.max_total_bytes = static_cast<uint64_t>(compile_cache_max_bytes)});
  WorkerHubService hub(&queue, &auth, compile_cache_max_bytes > 0 ? &artifacts : nullptr);

  // grpc.health.v1 (overall status: SERVING from start, NOT_SERVING once
  // stopping) and reflection, so grpc_health_probe, Kubernetes' gRPC probes
  // and grpcurl work without the project's protos.
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
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
  server->GetHealthCheckService()->SetServingStatus(false);
  metrics.StopServing();
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
  if (args.size() >= 2 && args[0] == "token") {
    const std::vector<std::string> rest(args.begin() + 2, args.end());
    if (args[1] == "create") return TokenCreate(rest);
    if (args[1] == "list") return TokenList(rest);
    if (args[1] == "revoke") return TokenRevoke(rest);
  }
  if (!args.empty() && args[0] == "token") {
    return Fail("usage: kseek-server token create|list|revoke --help", kUsageError);
  }
  return Serve(args);
}

}  // namespace
}  // namespace kseek

int main(int argc, char** argv) { return kseek::Main(argc, argv); }
