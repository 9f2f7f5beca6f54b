#include "worker/runner/run_log.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace kseek::runner {

RunLog::RunLog(RunInfo info, std::vector<ScenarioResult> planned)
    : info_(std::move(info)), results_(std::move(planned)), finished_(results_.size(), false) {}

void RunLog::Begin(size_t index) {
  std::lock_guard<std::mutex> lock(mu_);
  current_ = index;
}

void RunLog::Finish(size_t index, ScenarioResult result) {
  std::lock_guard<std::mutex> lock(mu_);
  results_[index] = std::move(result);
  finished_[index] = true;
}

void RunLog::AbandonRemaining(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < results_.size(); ++i) {
    if (!finished_[i]) {
      results_[i].status = ScenarioStatus::kNotRun;
      results_[i].reason = reason;
      finished_[i] = true;
    }
  }
}

void RunLog::FailCurrentPrintAndExit(const std::string& reason, int exit_code) {
  std::string text;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (current_ < results_.size() && !finished_[current_]) {
      results_[current_].status = ScenarioStatus::kFail;
      results_[current_].reason = reason;
      finished_[current_] = true;
    }
    for (size_t i = 0; i < results_.size(); ++i) {
      if (!finished_[i]) {
        results_[i].status = ScenarioStatus::kNotRun;
        results_[i].reason = "not run: an earlier scenario hung the GPU";
      }
    }
    text = RunReportToJson(info_, results_).dump(2);
  }
  std::fprintf(stdout, "%s\n", text.c_str());
  std::fflush(stdout);
  std::fprintf(stderr, "kseek-runner: %s\n", reason.c_str());
  std::fflush(stderr);
  // exit() would run destructors and CUDA teardown while the main thread is
  // still inside a CUDA call; _exit leaves the driver to reclaim the context.
  _exit(exit_code);
}

std::string RunLog::Document() const {
  std::lock_guard<std::mutex> lock(mu_);
  return RunReportToJson(info_, results_).dump(2);
}

bool RunLog::AllPassed() const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const ScenarioResult& r : results_) {
    if (r.status != ScenarioStatus::kPass) return false;
  }
  return !results_.empty();
}

}  // namespace kseek::runner
