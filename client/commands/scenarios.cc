// kseek scenarios.
#include "client/commands/scenarios.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/exit_codes.h"
#include "client/scenario_table.h"
#include "common/flags.h"

namespace kseek {

int RunScenarios(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  std::string set;
  FlagSet flags("kseek scenarios", "PROBLEM [flags]",
                "Lists the scenarios of PROBLEM as the server's workers run them: shape\n"
                "symbols, scalars a scenario sets, dtype, and the input seed (\"hidden\" for\n"
                "seeds only the worker knows); then the problem's baselines and what a verify or\n"
                "bench that names no scenarios or baseline gets.");
  AddCommonFlags(&flags, &common, /*json=*/true);
  flags.String("set", &set, "only this scenario set, e.g. perf");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, args, &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one PROBLEM", "scenarios")) return *done;

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<kernelseek::v1::ListScenariosResponse> response =
      client->ListScenarios(positional[0], set);
  if (!response.ok()) return FailRpc(response.status(), server);
  if (common.json) return PrintJson(*response);
  std::cout << FormatScenarioTable(*response);
  return kExitOk;
}

}  // namespace kseek
