// Load and soak benchmark. Starts a real kseek-server process on 127.0.0.1
// with its own SQLite file, then for a fixed time:
//   - N clients, each on its own gRPC channel, submit a trivial compile job,
//     follow it with WatchJob to its end, pause, and submit the next;
//   - M simulated workers, each on its own channel, speak the WorkerHub
//     protocol (Synchronize) as kseek-worker does and "run" each job for a
//     few milliseconds;
//   - a killer kills a random worker at random intervals, idle or in the
//     middle of a job, without a word to the server (its thread stops and its
//     call in flight is cancelled, as when a node dies), and starts a fresh
//     worker in its place after a pause.
// Then it stops the server and reads its database, and prints per-minute
// latencies and the server's resident memory, and whether every job the
// server acknowledged ended exactly once: a job may run again only after the
// worker that ran it was killed; none may be lost.
//
//   kseek-soak-bench [--minutes 10] [--clients 50] [--workers 64] [flags]
//
// All traffic stays on 127.0.0.1; every loop is bounded by the run's time.
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/flags.h"
#include "common/protocol.h"
#include "common/subprocess.h"
#include "common/version.h"
#include "proto/kernelseek.grpc.pb.h"
#include "server/job_store.h"
#include "server/store_file.h"
#include "tests/testing/process.h"
#include "tests/testing/temp_dir.h"

namespace kseek {
namespace {

namespace v1 = kernelseek::v1;

struct Options {
  int64_t minutes = 10;
  int64_t clients = 50;
  int64_t workers = 64;
  int64_t think_ms = 200;       // a client's pause between one job's end and its next submit, at most
  int64_t work_ms = 30;         // a job's run on a simulated worker, at most
  int64_t kill_every_ms = 3000; // mean time between kills
  int64_t restart_ms = 1000;    // a killed worker's replacement starts after this
  int64_t lease_timeout_s = 3;
  int64_t max_attempts = 3;     // the server's default
  int64_t seed = 1;
  std::string server_bin;
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

// What happened to each job, as the workers and clients saw it. Thread-safe.
class Ledger {
 public:
  struct Entry {
    int executions = 0;         // times a worker started it
    int killed_executions = 0;  // of those, on a worker killed before the server took its result
    v1::JobState client_state = v1::JOB_STATE_UNSPECIFIED;  // how the client's watch saw it end
  };
  void Submitted(const std::string& job) {
    absl::MutexLock lock(&mu_);
    jobs_[job];
  }
  void Started(const std::string& job) {
    absl::MutexLock lock(&mu_);
    ++jobs_[job].executions;
  }
  void Killed(const std::string& job) {
    absl::MutexLock lock(&mu_);
    ++jobs_[job].killed_executions;
  }
  void Ended(const std::string& job, v1::JobState state) {
    absl::MutexLock lock(&mu_);
    jobs_[job].client_state = state;
  }
  std::map<std::string, Entry> Snapshot() {
    absl::MutexLock lock(&mu_);
    return jobs_;
  }

 private:
  absl::Mutex mu_;
  std::map<std::string, Entry> jobs_ ABSL_GUARDED_BY(mu_);
};

// Latencies and counts per minute of the run. Thread-safe.
class Timeline {
 public:
  explicit Timeline(absl::Time start) : start_(start) {}
  void Submit(absl::Time at, double ms) {
    absl::MutexLock lock(&mu_);
    minute(at).submit_ms.push_back(ms);
  }
  void Done(absl::Time at, double ms) {
    absl::MutexLock lock(&mu_);
    minute(at).done_ms.push_back(ms);
  }
  void Kill(absl::Time at, bool mid_job) {
    absl::MutexLock lock(&mu_);
    ++minute(at).kills;
    minute(at).kills_mid_job += mid_job;
  }
  void Memory(absl::Time at, int64_t rss_kb) {
    absl::MutexLock lock(&mu_);
    minute(at).rss_kb = rss_kb;
  }
  void Error(absl::Time at) {
    absl::MutexLock lock(&mu_);
    ++minute(at).rpc_errors;
  }
  struct Minute {
    std::vector<double> submit_ms;
    std::vector<double> done_ms;
    int kills = 0;
    int kills_mid_job = 0;
    int rpc_errors = 0;
    int64_t rss_kb = 0;
  };
  std::vector<Minute> Minutes() {
    absl::MutexLock lock(&mu_);
    return minutes_;
  }

 private:
  Minute& minute(absl::Time at) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    size_t index = static_cast<size_t>(std::max<int64_t>(0, absl::ToInt64Minutes(at - start_)));
    if (minutes_.size() <= index) minutes_.resize(index + 1);
    return minutes_[index];
  }
  const absl::Time start_;
  absl::Mutex mu_;
  std::vector<Minute> minutes_ ABSL_GUARDED_BY(mu_);
};

std::shared_ptr<grpc::Channel> OwnChannel(const std::string& address, const char* agent) {
  grpc::ChannelArguments args;
  args.SetInt("grpc.use_local_subchannel_pool", 1);  // a connection of its own, as a separate process has
  return CreateProtocolChannel(address, grpc::InsecureChannelCredentials(), args, kProtocolVersion, agent);
}

// One simulated worker process: a thread that syncs with the server like
// kseek-worker, until Kill() drops it on the floor.
class SimWorker {
 public:
  SimWorker(std::string name, const std::string& address, const std::string& token, const Options& options,
            Ledger* ledger, uint64_t seed)
      : name_(std::move(name)),
        token_(token),
        options_(options),
        ledger_(ledger),
        stub_(v1::WorkerHub::NewStub(OwnChannel(address, "kseek-worker"))),
        random_(seed) {
    thread_ = std::thread([this] { Run(); });
  }
  ~SimWorker() {
    Kill();
    thread_.join();
  }
  // Returns whether it was running a job (leased, its result not yet sent).
  bool Kill() {
    absl::MutexLock lock(&mu_);
    killed_ = true;
    if (call_ != nullptr) call_->TryCancel();
    return running_;
  }

 private:
  bool killed() {
    absl::MutexLock lock(&mu_);
    return killed_;
  }

  void Run() {
    v1::SynchronizeRequest request;
    request.set_worker_name(name_);
    request.set_instance_id(absl::StrCat(name_, "-", getpid()));
    v1::Property compile;
    compile.set_key("compile");
    compile.set_value("sm_90a");
    *request.add_capabilities() = compile;
    request.mutable_current_state()->mutable_idle();
    bool completed = false;  // the request carries a finished job's result
    while (true) {
      grpc::ClientContext context;
      context.AddMetadata("authorization", "Bearer " + token_);
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
      {
        absl::MutexLock lock(&mu_);
        if (killed_) break;
        call_ = &context;
      }
      v1::SynchronizeResponse response;
      grpc::Status status = stub_->Synchronize(&context, request, &response);
      {
        absl::MutexLock lock(&mu_);
        call_ = nullptr;
        if (killed_) break;  // the answer, if any, is lost with the process
      }
      if (!status.ok()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        continue;  // resend the same state, as kseek-worker does
      }
      if (completed) {
        completed = false;
        SetHeld("", /*running=*/false);  // the server has its result
      }
      if (!response.desired_state().has_execute()) {
        request.mutable_current_state()->mutable_idle();
        continue;
      }
      const v1::DesiredState::Execute& execute = response.desired_state().execute();
      SetHeld(execute.job_id(), /*running=*/true);
      ledger_->Started(execute.job_id());
      std::this_thread::sleep_for(
          std::chrono::milliseconds(std::uniform_int_distribution<int64_t>(1, options_.work_ms)(random_)));
      if (killed()) break;
      v1::CurrentState::Completed* result = request.mutable_current_state()->mutable_completed();
      result->Clear();
      result->set_lease_id(execute.lease_id());
      result->mutable_result()->mutable_compile()->set_success(true);
      completed = true;
      SetHeld(execute.job_id(), /*running=*/false);
    }
    absl::MutexLock lock(&mu_);
    if (!held_job_.empty()) ledger_->Killed(held_job_);
  }

  void SetHeld(const std::string& job, bool running) {
    absl::MutexLock lock(&mu_);
    held_job_ = job;
    running_ = running;
  }

  const std::string name_;
  const std::string token_;
  const Options options_;
  Ledger* ledger_;
  std::unique_ptr<v1::WorkerHub::Stub> stub_;
  std::mt19937_64 random_;
  absl::Mutex mu_;
  bool killed_ ABSL_GUARDED_BY(mu_) = false;
  grpc::ClientContext* call_ ABSL_GUARDED_BY(mu_) = nullptr;
  // The job whose result the server may not have yet: a kill may make the
  // server lease it again.
  std::string held_job_ ABSL_GUARDED_BY(mu_);
  bool running_ ABSL_GUARDED_BY(mu_) = false;  // its result not even sent
  std::thread thread_;
};

// One user: submits a job, follows it to its end, pauses, again.
void RunClient(int index, const std::string& address, const std::string& token, const Options& options,
               absl::Time stop_submitting, Ledger* ledger, Timeline* timeline) {
  auto stub = v1::Coordinator::NewStub(OwnChannel(address, "kseek"));
  std::mt19937_64 random(options.seed * 1000 + index);
  for (int n = 0; absl::Now() < stop_submitting; ++n) {
    v1::SubmitJobRequest request;
    v1::JobSpec* spec = request.mutable_spec();
    spec->set_kind(v1::JOB_KIND_COMPILE);
    spec->set_source_name("soak.cu");
    spec->set_source(absl::StrCat("// soak client ", index, " job ", n, "\n__global__ void k() {}\n"));
    spec->mutable_compile()->set_arch("sm_90a");
    request.set_wait_for_worker(true);  // in the moments when every worker is killed
    absl::Time start = absl::Now();
    grpc::ClientContext submit_context;
    submit_context.AddMetadata("authorization", "Bearer " + token);
    submit_context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    v1::SubmitJobResponse response;
    if (!stub->SubmitJob(&submit_context, request, &response).ok()) {
      timeline->Error(absl::Now());
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    timeline->Submit(start, absl::ToDoubleMilliseconds(absl::Now() - start));
    ledger->Submitted(response.job_id());
    // Follow it to its end; a broken stream is opened again, as kseek does.
    v1::Job job;
    const absl::Time give_up = absl::Now() + absl::Minutes(2);
    while (absl::Now() < give_up) {
      grpc::ClientContext watch_context;
      watch_context.AddMetadata("authorization", "Bearer " + token);
      v1::WatchJobRequest watch;
      watch.set_job_id(response.job_id());
      auto reader = stub->WatchJob(&watch_context, watch);
      while (reader->Read(&job)) {
      }
      if (!reader->Finish().ok()) timeline->Error(absl::Now());
      if (job.state() >= v1::JOB_STATE_SUCCEEDED) break;
    }
    ledger->Ended(response.job_id(), job.state());
    if (job.state() >= v1::JOB_STATE_SUCCEEDED) timeline->Done(start, absl::ToDoubleMilliseconds(absl::Now() - start));
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution<int64_t>(0, options.think_ms)(random)));
  }
}

int64_t ResidentKb(pid_t pid) {
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(status, line)) {
    if (absl::StartsWith(line, "VmRSS:")) {
      int64_t kb = 0;
      std::sscanf(line.c_str(), "VmRSS: %ld", &kb);
      return kb;
    }
  }
  return 0;
}

absl::StatusOr<std::string> CreateToken(const Options& options, const std::string& db, const std::string& flag) {
  SubprocessSpec spec;
  spec.argv = {options.server_bin, "token", "create", "--db", db, flag, "soak"};
  spec.time_limit = absl::Seconds(30);
  absl::StatusOr<SubprocessResult> result = RunSubprocess(spec);
  if (!result.ok()) return result.status();
  if (result->exit_code != 0) return absl::InternalError(absl::StrCat("token create failed: ", result->stderr_text));
  return testing::LastLine(result->stdout_text);
}

int Run(const Options& options) {
  testing::TempDir dir;
  const std::string db = dir.File("soak.db");
  absl::StatusOr<std::string> user_token = CreateToken(options, db, "--user");
  absl::StatusOr<std::string> worker_token = CreateToken(options, db, "--worker");
  if (!user_token.ok() || !worker_token.ok()) {
    std::cerr << "kseek-soak-bench: " << (user_token.ok() ? worker_token.status() : user_token.status()) << "\n";
    return 1;
  }
  auto server = testing::ChildProcess::Start(
      {options.server_bin, "--listen", "127.0.0.1:0", "--db", db, "--lease-timeout",
       std::to_string(options.lease_timeout_s), "--idle-poll", "2", "--max-attempts",
       std::to_string(options.max_attempts)},
      dir.File("server.log"));
  if (!server.ok()) {
    std::cerr << "kseek-soak-bench: " << server.status() << "\n";
    return 1;
  }
  std::string address;
  std::regex listening("listening on (127\\.0\\.0\\.1:[0-9]+)");
  if (!testing::WaitFor(
          [&] {
            std::smatch match;
            std::string text = testing::ReadFile((*server)->log_path());
            if (!std::regex_search(text, match, listening)) return false;
            address = match[1];
            return true;
          },
          absl::Seconds(20))) {
    std::cerr << "kseek-soak-bench: the server did not start:\n" << testing::ReadFile((*server)->log_path());
    return 1;
  }
  const pid_t server_pid = (*server)->pid();
  std::fprintf(stderr, "server pid %d on %s; %ld clients, %ld workers, %ld minutes\n", server_pid, address.c_str(),
               options.clients, options.workers, options.minutes);

  Ledger ledger;
  const absl::Time start = absl::Now();
  const absl::Time stop_submitting = start + absl::Minutes(options.minutes);
  Timeline timeline(start);

  absl::Mutex workers_mu;
  std::vector<std::unique_ptr<SimWorker>> workers;
  std::mt19937_64 random(options.seed);
  int generation = 0;
  for (int i = 0; i < options.workers; ++i) {
    workers.push_back(std::make_unique<SimWorker>(absl::StrCat("sim-", i, "-", generation), address, *worker_token,
                                                  options, &ledger, random()));
  }
  std::vector<std::thread> clients;
  for (int i = 0; i < options.clients; ++i) {
    clients.emplace_back(RunClient, i, address, *user_token, options, stop_submitting, &ledger, &timeline);
  }

  // The killer and the memory probe, on this thread, until submits stop.
  int kills = 0;
  int64_t first_rss_kb = 0, max_rss_kb = 0;
  absl::Time next_kill = start + absl::Milliseconds(std::exponential_distribution<>(1.0 / options.kill_every_ms)(random));
  absl::Time next_probe = start;
  std::vector<std::pair<absl::Time, int>> restarts;  // when, which slot
  while (absl::Now() < stop_submitting) {
    absl::Time now = absl::Now();
    if (now >= next_probe) {
      int64_t rss = ResidentKb(server_pid);
      if (first_rss_kb == 0 && now - start >= absl::Seconds(30)) first_rss_kb = rss;  // after warm-up
      max_rss_kb = std::max(max_rss_kb, rss);
      timeline.Memory(now, rss);
      auto snapshot = ledger.Snapshot();
      std::fprintf(stderr, "\r%5.0f s: %zu jobs submitted, %d workers killed, server RSS %ld MiB   ",
                   absl::ToDoubleSeconds(now - start), snapshot.size(), kills, rss / 1024);
      next_probe = now + absl::Seconds(5);
    }
    if (now >= next_kill) {
      int slot = std::uniform_int_distribution<int>(0, static_cast<int>(workers.size()) - 1)(random);
      if (workers[slot] != nullptr) {
        bool mid_job = workers[slot]->Kill();
        workers[slot].reset();  // joins its thread
        timeline.Kill(now, mid_job);
        ++kills;
        restarts.push_back({now + absl::Milliseconds(options.restart_ms), slot});
      }
      next_kill = now + absl::Milliseconds(std::exponential_distribution<>(1.0 / options.kill_every_ms)(random));
    }
    for (auto it = restarts.begin(); it != restarts.end();) {
      if (it->first > now) {
        ++it;
        continue;
      }
      workers[it->second] = std::make_unique<SimWorker>(absl::StrCat("sim-", it->second, "-", ++generation), address,
                                                        *worker_token, options, &ledger, random());
      it = restarts.erase(it);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (auto& [when, slot] : restarts) {
    workers[slot] = std::make_unique<SimWorker>(absl::StrCat("sim-", slot, "-", ++generation), address,
                                                *worker_token, options, &ledger, random());
  }
  for (auto& client : clients) client.join();  // each follows its last job to its end
  const double run_s = absl::ToDoubleSeconds(absl::Now() - start);
  int64_t end_rss_kb = ResidentKb(server_pid);
  workers.clear();
  (*server)->Signal(SIGTERM);
  int server_exit = (*server)->Wait();
  std::fprintf(stderr, "\n");

  // What the server's database says, read after it stopped.
  std::map<std::string, v1::Job> stored;
  {
    absl::StatusOr<std::unique_ptr<StoreFile>> file = StoreFile::Open(db);
    absl::StatusOr<std::unique_ptr<JobStore>> store =
        file.ok() ? JobStore::Open(**file) : absl::StatusOr<std::unique_ptr<JobStore>>(file.status());
    if (!store.ok()) {
      std::cerr << "kseek-soak-bench: cannot read the database: " << store.status() << "\n";
      return 1;
    }
    auto listed = (*store)->ListJobs({.team = kDefaultTeam, .limit = 10'000'000});
    if (!listed.ok()) {
      std::cerr << "kseek-soak-bench: cannot list jobs: " << listed.status() << "\n";
      return 1;
    }
    for (v1::Job& job : *listed) stored[job.id()] = std::move(job);
  }

  auto ledger_jobs = ledger.Snapshot();
  int succeeded = 0, failed = 0, unfinished = 0, missing = 0, client_disagrees = 0;
  int ran_once = 0, reran_after_kill = 0, duplicate = 0, never_ran = 0;
  std::map<std::string, int> failures;
  for (const auto& [id, entry] : ledger_jobs) {
    auto it = stored.find(id);
    if (it == stored.end()) {
      ++missing;
      continue;
    }
    const v1::Job& job = it->second;
    succeeded += job.state() == v1::JOB_STATE_SUCCEEDED;
    if (job.state() == v1::JOB_STATE_FAILED) {
      ++failed;
      ++failures[job.failure()];
    }
    unfinished += job.state() < v1::JOB_STATE_SUCCEEDED;
    client_disagrees += entry.client_state != job.state();
    // A job may run more than once only because a worker running it died
    // before the server took its result.
    if (entry.executions == 0) {
      ++never_ran;
    } else if (entry.executions == 1) {
      ++ran_once;
    } else if (entry.executions - entry.killed_executions <= 1) {
      ++reran_after_kill;
    } else {
      ++duplicate;
    }
  }

  std::printf("kseek-soak-bench: %ld clients, %ld simulated workers, %.1f minutes on 127.0.0.1 (lease timeout %ld s)\n",
              options.clients, options.workers, run_s / 60, options.lease_timeout_s);
  std::printf("\n%-6s %7s %9s %9s %9s %9s %6s %8s %7s %8s\n", "minute", "jobs", "submit50", "submit99", "done50",
              "done99", "kills", "running", "errors", "RSS MiB");
  std::vector<double> all_submit, all_done;
  auto minutes = timeline.Minutes();
  for (size_t i = 0; i < minutes.size(); ++i) {
    const Timeline::Minute& m = minutes[i];
    all_submit.insert(all_submit.end(), m.submit_ms.begin(), m.submit_ms.end());
    all_done.insert(all_done.end(), m.done_ms.begin(), m.done_ms.end());
    std::printf("%-6zu %7zu %9.1f %9.1f %9.1f %9.1f %6d %8d %7d %8.1f\n", i + 1, m.done_ms.size(),
                Percentile(m.submit_ms, 0.5), Percentile(m.submit_ms, 0.99), Percentile(m.done_ms, 0.5),
                Percentile(m.done_ms, 0.99), m.kills, m.kills_mid_job, m.rpc_errors, m.rss_kb / 1024.0);
  }
  std::printf("(ms; submit = SubmitJob call; done = submit to the job's end seen on WatchJob; kills: workers killed, running: of those, while running a job; errors = failed calls)\n");
  std::printf("\nlatency over the run: submit p50 %.1f ms p99 %.1f ms; done p50 %.1f ms p99 %.1f ms (%zu jobs, %.0f/s)\n",
              Percentile(all_submit, 0.5), Percentile(all_submit, 0.99), Percentile(all_done, 0.5),
              Percentile(all_done, 0.99), all_done.size(), all_done.size() / run_s);
  std::printf("workers killed: %d\n", kills);
  std::printf("jobs acknowledged by SubmitJob: %zu; in the database: %zu; missing: %d; not finished: %d\n",
              ledger_jobs.size(), ledger_jobs.size() - missing, missing, unfinished);
  std::printf("ended: succeeded %d, failed %d; the client's last WatchJob state differs from the database: %d\n",
              succeeded, failed, client_disagrees);
  for (const auto& [why, count] : failures) std::printf("  failed %d: %s\n", count, why.c_str());
  std::printf("runs: once %d; again after its worker was killed %d; again with no kill (duplicate) %d; never %d\n",
              ran_once, reran_after_kill, duplicate, never_ran);
  std::printf("server RSS: %.1f MiB at 30 s, %.1f MiB at the end, %.1f MiB at most; exit code after SIGTERM %d\n",
              first_rss_kb / 1024.0, end_rss_kb / 1024.0, max_rss_kb / 1024.0, server_exit);
  std::printf("database: %.1f MiB\n", std::filesystem::file_size(db) / 1048576.0);
  const bool ok = missing == 0 && unfinished == 0 && duplicate == 0 && never_ran <= failed && client_disagrees == 0 &&
                  server_exit == 0;
  std::printf("%s\n", ok ? "every acknowledged job ended exactly once; none lost"
                         : "FAILED: see the counts above (missing, not finished, duplicate, disagreeing)");
  return ok ? 0 : 1;
}

int Main(int argc, char** argv) {
  Options options;
  FlagSet flags("kseek-soak-bench", "[flags]",
                "Load and soak test of kseek-server: a real server process on 127.0.0.1,\n"
                "concurrent clients submitting and following trivial jobs, simulated workers\n"
                "(the WorkerHub protocol) and random worker kills. Prints per-minute\n"
                "latencies and server memory, then whether every job ended exactly once.\n"
                "Exits 1 if a job was lost, duplicated or left unfinished.");
  flags.Int("minutes", &options.minutes, "how long clients keep submitting");
  flags.Int("clients", &options.clients, "concurrent clients, each on its own connection");
  flags.Int("workers", &options.workers, "simulated workers, each on its own connection");
  flags.Int("think-ms", &options.think_ms, "a client's pause after each job, drawn from 0..N ms");
  flags.Int("work-ms", &options.work_ms, "a job's run on a worker, drawn from 1..N ms");
  flags.Int("kill-every-ms", &options.kill_every_ms, "mean time between worker kills (exponential)");
  flags.Int("restart-ms", &options.restart_ms, "a killed worker's replacement starts this much later");
  flags.Int("lease-timeout", &options.lease_timeout_s, "the server's --lease-timeout, seconds");
  flags.Int("max-attempts", &options.max_attempts, "the server's --max-attempts");
  flags.Int("seed", &options.seed, "seed of every random choice");
  flags.String("server-bin", &options.server_bin, "kseek-server to run (default: the one beside this program)");
  if (std::optional<int> done =
          ParseCommandFlags(flags, std::vector<std::string>(argv + 1, argv + argc), "kseek-soak-bench")) {
    return *done;
  }
  if (options.minutes < 1 || options.clients < 1 || options.workers < 1 || options.work_ms < 1 ||
      options.kill_every_ms < 1 || options.lease_timeout_s < 1 || options.think_ms < 0 || options.restart_ms < 0) {
    std::cerr << "kseek-soak-bench: --minutes, --clients, --workers, --work-ms, --kill-every-ms and --lease-timeout "
                 "must be at least 1; --think-ms and --restart-ms at least 0\n";
    return 2;
  }
  if (options.server_bin.empty()) {
    options.server_bin = (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "kseek-server").string();
  }
  if (access(options.server_bin.c_str(), X_OK) != 0) {
    std::cerr << "kseek-soak-bench: no kseek-server at " << options.server_bin << " (give --server-bin)\n";
    return 2;
  }
  return Run(options);
}

}  // namespace
}  // namespace kseek

int main(int argc, char** argv) { return kseek::Main(argc, argv); }
