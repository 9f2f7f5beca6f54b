// CompileJob: a compile job of `user` in team default as a client submits
// one, for the store tests that need a row in jobs.
#ifndef KERNELSEEK_TESTS_SERVER_COMPILE_JOB_H_
#define KERNELSEEK_TESTS_SERVER_COMPILE_JOB_H_

#include <string>

#include "proto/kernelseek.pb.h"
#include "server/store_file.h"

namespace kseek::testing {

inline kernelseek::v1::Job CompileJob(const std::string& user) {
  kernelseek::v1::Job job;
  job.set_user(user);
  job.set_team(kDefaultTeam);
  job.mutable_spec()->set_kind(kernelseek::v1::JOB_KIND_COMPILE);
  job.mutable_spec()->set_source_name("k.cu");
  job.mutable_spec()->set_source("__global__ void k() {}");
  job.mutable_spec()->mutable_compile()->set_arch("sm_90a");
  auto* req = job.add_requirements();
  req->set_key("compile");
  req->set_value("sm_90a");
  job.mutable_created()->set_seconds(1'800'000'000);
  return job;
}

}  // namespace kseek::testing

#endif  // KERNELSEEK_TESTS_SERVER_COMPILE_JOB_H_
