// FakeCoordinator: a scripted Coordinator service on a loopback port, for
// testing the CLI's RPC paths (token metadata, stream breaks, error mapping)
// without the real server. Thread-safe: gRPC calls it from its own threads.
#ifndef KERNELSEEK_TESTS_CLIENT_FAKE_COORDINATOR_H_
#define KERNELSEEK_TESTS_CLIENT_FAKE_COORDINATOR_H_

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "proto/kernelseek.grpc.pb.h"

namespace kseek::testing {

// What one WatchJob call sends before ending with `end`.
struct WatchScript {
  std::vector<kernelseek::v1::Job> updates;
  grpc::Status end = grpc::Status::OK;
};

class FakeCoordinator final : public kernelseek::v1::Coordinator::Service {
 public:
  explicit FakeCoordinator(std::string token) : token_(std::move(token)) {}

  // WatchJob call number i plays scripts[min(i, size - 1)].
  void SetWatchScripts(std::vector<WatchScript> scripts) {
    absl::MutexLock lock(&mu_);
    scripts_ = std::move(scripts);
  }
  void SetJob(kernelseek::v1::Job job) {
    absl::MutexLock lock(&mu_);
    job_ = std::move(job);
  }
  // ListScenarios answers `response` for `problem` (and any set) and
  // NOT_FOUND for other problems.
  void SetScenarios(std::string problem, kernelseek::v1::ListScenariosResponse response) {
    absl::MutexLock lock(&mu_);
    scenario_problem_ = std::move(problem);
    scenarios_ = std::move(response);
  }
  kernelseek::v1::ListScenariosRequest last_scenarios_request() const {
    absl::MutexLock lock(&mu_);
    return last_scenarios_request_;
  }
  std::vector<std::string> authorizations() const {
    absl::MutexLock lock(&mu_);
    return authorizations_;
  }
  int watch_calls() const {
    absl::MutexLock lock(&mu_);
    return watch_calls_;
  }
  kernelseek::v1::JobSpec last_submitted() const {
    absl::MutexLock lock(&mu_);
    return last_submitted_;
  }

  grpc::Status SubmitJob(grpc::ServerContext* context,
                         const kernelseek::v1::SubmitJobRequest* request,
                         kernelseek::v1::SubmitJobResponse* response) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    last_submitted_ = request->spec();
    response->set_job_id(job_.id());
    return grpc::Status::OK;
  }

  grpc::Status GetJob(grpc::ServerContext* context, const kernelseek::v1::GetJobRequest* request,
                      kernelseek::v1::Job* response) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    if (request->job_id() != job_.id()) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, absl::StrCat("no job ", request->job_id()));
    }
    *response = job_;
    return grpc::Status::OK;
  }

  grpc::Status WatchJob(grpc::ServerContext* context,
                        const kernelseek::v1::WatchJobRequest* request,
                        grpc::ServerWriter<kernelseek::v1::Job>* writer) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    WatchScript script;
    {
      absl::MutexLock lock(&mu_);
      if (request->job_id() != job_.id()) {
        return grpc::Status(grpc::StatusCode::NOT_FOUND,
                            absl::StrCat("no job ", request->job_id()));
      }
      if (scripts_.empty()) return grpc::Status(grpc::StatusCode::INTERNAL, "no watch script");
      script = scripts_[std::min<size_t>(watch_calls_, scripts_.size() - 1)];
      ++watch_calls_;
    }
    for (const kernelseek::v1::Job& job : script.updates) writer->Write(job);
    return script.end;
  }

  grpc::Status ListJobs(grpc::ServerContext* context, const kernelseek::v1::ListJobsRequest*,
                        kernelseek::v1::ListJobsResponse* response) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    *response->add_jobs() = job_;
    return grpc::Status::OK;
  }

  grpc::Status ListScenarios(grpc::ServerContext* context,
                             const kernelseek::v1::ListScenariosRequest* request,
                             kernelseek::v1::ListScenariosResponse* response) override {
    if (grpc::Status s = Authenticate(context); !s.ok()) return s;
    absl::MutexLock lock(&mu_);
    last_scenarios_request_ = *request;
    if (request->problem() != scenario_problem_) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          absl::StrCat("no problem named \"", request->problem(), "\""));
    }
    *response = scenarios_;
    return grpc::Status::OK;
  }

 private:
  grpc::Status Authenticate(grpc::ServerContext* context) {
    std::string seen;
    auto it = context->client_metadata().find("authorization");
    if (it != context->client_metadata().end()) seen.assign(it->second.data(), it->second.size());
    absl::MutexLock lock(&mu_);
    authorizations_.push_back(seen);
    if (seen != absl::StrCat("Bearer ", token_)) {
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "unknown token");
    }
    return grpc::Status::OK;
  }

  const std::string token_;
  mutable absl::Mutex mu_;
  std::vector<WatchScript> scripts_ ABSL_GUARDED_BY(mu_);
  kernelseek::v1::Job job_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> authorizations_ ABSL_GUARDED_BY(mu_);
  int watch_calls_ ABSL_GUARDED_BY(mu_) = 0;
  kernelseek::v1::JobSpec last_submitted_ ABSL_GUARDED_BY(mu_);
  std::string scenario_problem_ ABSL_GUARDED_BY(mu_);
  kernelseek::v1::ListScenariosResponse scenarios_ ABSL_GUARDED_BY(mu_);
  kernelseek::v1::ListScenariosRequest last_scenarios_request_ ABSL_GUARDED_BY(mu_);
};

// Serves a FakeCoordinator on 127.0.0.1 at a port chosen by the OS.
class FakeCoordinatorServer {
 public:
  explicit FakeCoordinatorServer(const std::string& token) : service_(token) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
  }
  ~FakeCoordinatorServer() { server_->Shutdown(); }

  FakeCoordinator& service() { return service_; }
  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }

 private:
  FakeCoordinator service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace kseek::testing

#endif  // KERNELSEEK_TESTS_CLIENT_FAKE_COORDINATOR_H_
