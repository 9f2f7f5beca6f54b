// kseek workers.
#include "client/commands/workers.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "client/exit_codes.h"
#include "client/report_format.h"
#include "common/flags.h"

namespace kseek {

int RunWorkers(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  FlagSet flags("kseek workers", "[flags]",
                "Lists the workers the server knows, what they can do and when they last called.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 0, "no arguments", "workers")) return *done;

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<std::vector<kernelseek::v1::WorkerInfo>> workers = client->ListWorkers();
  if (!workers.ok()) return FailRpc(workers.status(), server);
  if (common.json) {
    kernelseek::v1::ListWorkersResponse response;
    for (const auto& worker : *workers) *response.add_workers() = worker;
    return PrintJson(response);
  }
  std::cout << FormatWorkerTable(*workers, absl::Now());
  return kExitOk;
}

}  // namespace kseek
