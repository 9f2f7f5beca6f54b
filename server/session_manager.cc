#include "server/session_manager.h"

#include <google/protobuf/util/time_util.h>

#include <cmath>
#include <optional>
#include <utility>


#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "server/job_validation.h"

namespace kseek {
namespace {

using kernelseek::v1::KernelVersion;
using kernelseek::v1::Session;
using kernelseek::v1::SessionDetails;
using kernelseek::v1::SessionEvent;
using kernelseek::v1::SessionSpec;

constexpr int kMaxSteps = 1000;

google::protobuf::Timestamp ToTimestamp(absl::Time t) {
  return google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(t));
}

SessionEvent Stamped(SessionEvent event, const std::string& author, absl::Time now) {
  event.set_author(author);
  *event.mutable_time() = ToTimestamp(now);
  return event;
}

SessionEvent StateChange(const std::string& state, const std::string& status) {
  SessionEvent event;
  event.mutable_state_change()->set_state(state);
  event.mutable_state_change()->set_status(status);
  return event;
}

std::string StateName(kernelseek::v1::SessionState state) {
  std::string name = kernelseek::v1::SessionState_Name(state);
  return name.substr(std::string("SESSION_STATE_").size());
}

}  // namespace

SessionManager::SessionManager(SessionStore* store, const Clock* clock, const ProblemCatalog* problems,
                               const QuestionBank* bank, JobRunner* jobs, LlmClientFactory llm_factory)
    : store_(store),
      clock_(clock),
      problems_(problems),
      bank_(bank),
      jobs_(jobs),
      llm_factory_(std::move(llm_factory)) {}

SessionManager::~SessionManager() { Shutdown(); }

void SessionManager::Shutdown() {
  std::map<int64_t, Running> running;
  {
    absl::MutexLock lock(&mu_);
    shutdown_ = true;
    running.swap(running_);
  }
  for (auto& [id, r] : running) r.loop->Shutdown();
  watchers_.NotifyAll();
  for (auto& [id, r] : running) {
    if (r.thread.joinable()) r.thread.join();
  }
}

bool SessionManager::shutting_down() {
  absl::MutexLock lock(&mu_);
  return shutdown_;
}

absl::StatusOr<ChangeNotifier::Subscription> SessionManager::SubscribeSession(const std::string& id,
                                                                              std::function<void()> on_change) {
  absl::StatusOr<int64_t> sid = ParseSessionId(id);
  if (!sid.ok()) return sid.status();
  return watchers_.Subscribe(*sid, std::move(on_change));
}

absl::StatusOr<int64_t> SessionManager::ParseSessionId(const std::string& id) {
  int64_t value = 0;
  if (!absl::SimpleAtoi(id, &value) || value <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("\"", id, "\" is not a session id"));
  }
  return value;
}

absl::StatusOr<Session> SessionManager::FindSession(int64_t sid, const std::string& id) {
  absl::StatusOr<std::optional<Session>> session = store_->GetSession(sid);
  if (!session.ok()) return session.status();
  if (!session->has_value()) return absl::NotFoundError(absl::StrCat("session ", id, " not found"));
  return **session;
}

absl::Status SessionManager::ValidateSpec(SessionSpec* spec) {
  if (spec->problem().empty()) return absl::InvalidArgumentError("problem is required");
  absl::StatusOr<const Problem*> problem = problems_->Find(spec->problem());
  if (!problem.ok()) return absl::InvalidArgumentError(problem.status().message());
  if (spec->verify_scenarios().empty()) spec->set_verify_scenarios((*problem)->DefaultScenarios(false));
  if (spec->bench_scenarios().empty()) spec->set_bench_scenarios((*problem)->DefaultScenarios(true));
  if (spec->baseline().empty()) spec->set_baseline((*problem)->DefaultBaseline());
  // The jobs the tools will submit must pass the queue's own checks.
  for (kernelseek::v1::JobKind kind :
       {kernelseek::v1::JOB_KIND_COMPILE, kernelseek::v1::JOB_KIND_VERIFY, kernelseek::v1::JOB_KIND_BENCH}) {
    kernelseek::v1::JobSpec job;
    job.set_kind(kind);
    job.set_source_name(spec->kernel_name());
    job.set_source(spec->kernel_source());
    job.mutable_compile()->set_arch(spec->arch());
    if (kind != kernelseek::v1::JOB_KIND_COMPILE) {
      job.mutable_run()->set_problem(spec->problem());
      const bool bench = kind == kernelseek::v1::JOB_KIND_BENCH;
      job.mutable_run()->set_scenarios(bench ? spec->bench_scenarios() : spec->verify_scenarios());
      if (bench) {
        job.mutable_run()->set_baseline(spec->baseline());
        job.mutable_run()->set_rounds(spec->bench_rounds());
      }
    }
    if (absl::StatusOr<std::vector<kernelseek::v1::Property>> r = ValidateJobSpec(&job, *problems_); !r.ok()) {
      return r.status();
    }
  }
  if (!(spec->target_speedup() > 0) || !std::isfinite(spec->target_speedup())) {
    return absl::InvalidArgumentError(absl::StrCat("target_speedup ", spec->target_speedup(), " must be > 0"));
  }
  if (spec->max_steps() < 1 || spec->max_steps() > kMaxSteps) {
    return absl::InvalidArgumentError(absl::StrCat("max_steps ", spec->max_steps(), " is outside 1..", kMaxSteps));
  }
  if (spec->questions() == kernelseek::v1::QUESTION_MODE_UNSPECIFIED) {
    spec->set_questions(kernelseek::v1::QUESTION_MODE_BANK);
  }
  if ((spec->questions() == kernelseek::v1::QUESTION_MODE_BANK ||
       spec->questions() == kernelseek::v1::QUESTION_MODE_SELF) &&
      bank_ == nullptr) {
    return absl::FailedPreconditionError(
        "this server has no question bank loaded (--question-bank); use question mode human or off");
  }
  const kernelseek::v1::PolicyOptions& policy = spec->policy();
  if (policy.plateau_benchmarks() < 0 || policy.plateau_min_gain() < 0 || policy.failure_streak() < 0 ||
      policy.large_gain() < 0) {
    return absl::InvalidArgumentError("policy options must not be negative (0 means the default)");
  }
  *spec->mutable_policy() = WithPolicyDefaults(spec->policy());

  kernelseek::v1::LlmConfig* llm = spec->mutable_llm();
  if (llm->max_tokens() < 0) return absl::InvalidArgumentError("llm.max_tokens must not be negative");
  // Set by the server only, from whether a key came with the request.
  llm->clear_key_from_client();
  return absl::OkStatus();
}

absl::StatusOr<Session> SessionManager::StartSession(const std::string& user, const std::string& team,
                                                     SessionSpec spec, const std::string& api_key) {
  if (absl::Status s = ValidateSpec(&spec); !s.ok()) return s;
  // Made before anything is stored, so a bad LLM configuration is refused
  // cleanly; it also fills in defaults and key_from_client.
  if (absl::StatusOr<std::unique_ptr<llm::LlmClient>> probe = llm_factory_(spec.mutable_llm(), api_key);
      !probe.ok()) {
    return probe.status();
  }
  {
    absl::MutexLock lock(&mu_);
    if (shutdown_) return absl::UnavailableError("the server is shutting down");
  }
  const absl::Time now = clock_->Now();
  Session session;
  session.set_user(user);
  session.set_team(team);
  *session.mutable_spec() = spec;
  session.set_state(kernelseek::v1::SESSION_STATE_RUNNING);
  session.set_status("running");
  *session.mutable_created() = ToTimestamp(now);
  absl::StatusOr<int64_t> id = store_->InsertSession(session);
  if (!id.ok()) return id.status();
  if (absl::Status s = store_->AppendSessionEvent(
                          *id, Stamped(StateChange("RUNNING", "started"), user, now))
                          .status();
      !s.ok()) {
    return s;
  }
  SessionEvent prompt;
  *prompt.mutable_prompt() = AgentLoop::Prompt(spec);
  absl::StatusOr<int64_t> prompt_seq = store_->AppendSessionEvent(*id, Stamped(std::move(prompt), "harness", now));
  if (!prompt_seq.ok()) return prompt_seq.status();
  KernelVersion first;
  first.set_status("edited");
  first.set_seq(*prompt_seq);
  first.set_source(spec.kernel_source());
  absl::StatusOr<int64_t> version = store_->InsertKernelVersion(*id, first);
  if (!version.ok()) return version.status();
  SessionEvent first_version;
  first_version.mutable_kernel_version()->set_version(absl::StrCat(*version));
  first_version.mutable_kernel_version()->set_parent("");
  first_version.mutable_kernel_version()->set_status("edited");
  if (absl::Status s = store_->AppendSessionEvent(*id, Stamped(std::move(first_version), "harness", now)).status();
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::optional<Session>> stored = store_->GetSession(*id);
  if (!stored.ok()) return stored.status();
  if (absl::Status s = Launch(**stored, api_key); !s.ok()) return s;
  Log(absl::StrCat("session ", *id, " started by ", user, ": ", spec.problem(), " on ", spec.arch(), ", target ",
                   spec.target_speedup(), "x vs ", spec.baseline()));
  Session answer = **stored;
  answer.mutable_spec()->clear_kernel_source();
  answer.mutable_spec()->mutable_llm()->clear_replay_jsonl();
  return answer;
}

absl::Status SessionManager::Launch(const Session& session, const std::string& api_key) {
  kernelseek::v1::LlmConfig llm = session.spec().llm();
  absl::StatusOr<std::unique_ptr<llm::LlmClient>> client = llm_factory_(&llm, api_key);
  if (!client.ok()) return client.status();
  int64_t id = 0;
  (void)absl::SimpleAtoi(session.id(), &id);
  auto loop = std::make_unique<AgentLoop>(store_, clock_, bank_, jobs_, *std::move(client), session,
                                          [this, id] { watchers_.Notify(id); });
  if (absl::Status s = loop->Load(); !s.ok()) return s;
  absl::MutexLock lock(&mu_);
  if (shutdown_) return absl::UnavailableError("the server is shutting down");
  Running& running = running_[id];
  running.loop = std::move(loop);
  AgentLoop* raw = running.loop.get();
  running.thread = std::thread([raw] { raw->Run(); });
  watchers_.Notify(id);
  return absl::OkStatus();
}

absl::Status SessionManager::Recover() {
  absl::StatusOr<std::vector<int64_t>> ids = store_->RunningSessionIds();
  if (!ids.ok()) return ids.status();
  for (int64_t id : *ids) {
    absl::StatusOr<std::optional<Session>> session = store_->GetSession(id);
    if (!session.ok()) return session.status();
    if (!session->has_value()) continue;
    // A key that came from the client is not stored, so none is passed.
    absl::Status launched = Launch(**session, /*api_key=*/"");
    if (launched.ok()) {
      Log(absl::StrCat("session ", id, " resumed after event ", (*session)->last_seq()));
      continue;
    }
    // It cannot go on; say why rather than leave it RUNNING forever.
    Session failed = **session;
    failed.set_state(kernelseek::v1::SESSION_STATE_FAILED);
    failed.set_status(absl::StrCat("could not resume after a restart: ", launched.message()));
    *failed.mutable_updated() = ToTimestamp(clock_->Now());
    if (absl::Status s = store_->AppendSessionEvent(
                            id, Stamped(StateChange("FAILED", failed.status()), "harness", clock_->Now()))
                            .status();
        !s.ok()) {
      return s;
    }
    if (absl::Status s = store_->UpdateSession(failed); !s.ok()) return s;
    Log(absl::StrCat("session ", id, ": ", failed.status()));
  }
  return absl::OkStatus();
}

absl::StatusOr<SessionDetails> SessionManager::GetSession(const std::string& id) {
  absl::StatusOr<int64_t> sid = ParseSessionId(id);
  if (!sid.ok()) return sid.status();
  absl::StatusOr<Session> session = FindSession(*sid, id);
  if (!session.ok()) return session.status();
  SessionDetails details;
  *details.mutable_session() = *session;
  details.mutable_session()->mutable_spec()->clear_kernel_source();
  details.mutable_session()->mutable_spec()->mutable_llm()->clear_replay_jsonl();
  absl::StatusOr<std::vector<KernelVersion>> versions = store_->ListKernelVersions(*sid, /*with_source=*/false);
  if (!versions.ok()) return versions.status();
  for (KernelVersion& v : *versions) *details.add_versions() = std::move(v);
  int64_t after = 0;
  while (true) {
    absl::StatusOr<std::vector<SessionEvent>> events = store_->ListSessionEvents(*sid, after, 1000);
    if (!events.ok()) return events.status();
    if (events->empty()) break;
    for (const SessionEvent& event : *events) {
      after = event.seq();
      if (event.body_case() != SessionEvent::kQuestion) continue;
      const kernelseek::v1::QuestionEvent& asked = event.question();
      kernelseek::v1::QuestionAsked* q = details.add_questions();
      q->set_seq(event.seq());
      q->set_trigger(asked.trigger());
      q->set_source(asked.source());
      q->set_text(asked.text());
      q->set_best_speedup_before(asked.best_speedup_before());
    }
  }
  // What followed each question: the best at the next question, or now.
  for (int i = 0; i < details.questions_size(); ++i) {
    details.mutable_questions(i)->set_best_speedup_after(i + 1 < details.questions_size()
                                                             ? details.questions(i + 1).best_speedup_before()
                                                             : details.session().best_speedup());
  }
  return details;
}

absl::StatusOr<std::vector<Session>> SessionManager::ListSessions(const std::string& team, int limit) {
  return store_->ListSessions(team, limit);
}

absl::StatusOr<Session> SessionManager::FindSession(const std::string& id) {
  absl::StatusOr<int64_t> sid = ParseSessionId(id);
  if (!sid.ok()) return sid.status();
  return FindSession(*sid, id);
}

absl::StatusOr<int64_t> SessionManager::PostMessage(const std::string& user, const std::string& id,
                                                    const std::string& text) {
  absl::StatusOr<int64_t> sid = ParseSessionId(id);
  if (!sid.ok()) return sid.status();
  if (text.empty()) return absl::InvalidArgumentError("the message is empty");
  if (text.size() > kMaxMessageBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the message is ", text.size(), " bytes; the limit is ", kMaxMessageBytes));
  }
  absl::StatusOr<Session> session = FindSession(*sid, id);
  if (!session.ok()) return session.status();
  if (session->state() != kernelseek::v1::SESSION_STATE_RUNNING) {
    return absl::FailedPreconditionError(absl::StrCat("session ", id, " has ended (",
                                                      StateName(session->state()), "); it takes no messages"));
  }
  SessionEvent message;
  message.mutable_human_message()->set_text(text);
  absl::StatusOr<int64_t> seq = store_->AppendHumanMessage(*sid, Stamped(std::move(message), user, clock_->Now()));
  if (seq.ok()) watchers_.Notify(*sid);
  return seq;
}

absl::StatusOr<Session> SessionManager::StopSession(const std::string& user, const std::string& id) {
  absl::StatusOr<int64_t> sid = ParseSessionId(id);
  if (!sid.ok()) return sid.status();
  absl::StatusOr<Session> session = FindSession(*sid, id);
  if (!session.ok()) return session.status();
  AgentLoop* loop = nullptr;
  {
    absl::MutexLock lock(&mu_);
    auto it = running_.find(*sid);
    if (it != running_.end()) loop = it->second.loop.get();
  }
  if (session->state() != kernelseek::v1::SESSION_STATE_RUNNING || loop == nullptr || loop->ended()) {
    return absl::FailedPreconditionError(absl::StrCat("session ", id, " has already ended (",
                                                      StateName(session->state()), ": ", session->status(), ")"));
  }
  absl::StatusOr<Session> stopped = loop->Stop(user);
  if (stopped.ok()) {
    stopped->mutable_spec()->clear_kernel_source();
    stopped->mutable_spec()->mutable_llm()->clear_replay_jsonl();
  }
  return stopped;
}

absl::StatusOr<KernelVersion> SessionManager::GetBestKernel(const std::string& id) {
  absl::StatusOr<int64_t> sid = ParseSessionId(id);
  if (!sid.ok()) return sid.status();
  absl::StatusOr<Session> session = FindSession(*sid, id);
  if (!session.ok()) return session.status();
  if (session->best_version().empty()) {
    return absl::NotFoundError(absl::StrCat(
        "session ", id, " has no counted version yet (none has compiled, passed verification and been benchmarked)"));
  }
  absl::StatusOr<std::vector<KernelVersion>> versions = store_->ListKernelVersions(*sid, /*with_source=*/true);
  if (!versions.ok()) return versions.status();
  for (KernelVersion& v : *versions) {
    if (v.id() == session->best_version()) return std::move(v);
  }
  return absl::DataLossError(absl::StrCat("session ", id, ": best version ", session->best_version(), " is missing"));
}

absl::StatusOr<std::vector<SessionEvent>> SessionManager::Events(const std::string& id, int64_t after_seq, int limit) {
  absl::StatusOr<int64_t> sid = ParseSessionId(id);
  if (!sid.ok()) return sid.status();
  absl::StatusOr<Session> session = FindSession(*sid, id);
  if (!session.ok()) return session.status();
  return store_->ListSessionEvents(*sid, after_seq, limit);
}

}  // namespace kseek
