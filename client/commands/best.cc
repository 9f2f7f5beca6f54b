// kseek best.
#include "client/commands/best.h"

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/commands/output_file.h"
#include "client/exit_codes.h"
#include "client/session_format.h"
#include "common/flags.h"

namespace kseek {

int RunBest(const std::vector<std::string>& args, const GlobalOptions& global) {
  CommonFlags common;
  std::string output;
  bool force = false;
  FlagSet flags("kseek best", "SESSION -o FILE [flags]",
                "Writes the source of a session's best counted kernel version (the highest\n"
                "geometric-mean speedup among versions that compiled, passed every scenario\n"
                "and were benchmarked) to FILE, and prints its version id and speedup.");
  AddCommonFlags(&flags, &common, /*json=*/false);
  flags.String("output", &output, "the file to write, - for stdout (also -o FILE)");
  flags.Bool("force", &force, "overwrite FILE if it exists");
  std::vector<std::string> positional;
  if (auto done = ParseArgs(&flags, ExpandOutputFlag(args), &positional)) return *done;
  if (auto done = ExpectPositional(positional, 1, "one SESSION id", "best")) return *done;
  if (output.empty()) return Fail(kExitUsage, "best wants -o FILE (- for stdout)");
  bool to_stdout = output == "-";
  std::error_code ec;
  if (!to_stdout && !force && std::filesystem::exists(output, ec)) {
    return Fail(kExitUsage, absl::StrCat(output, " exists; pass --force to overwrite it"));
  }

  std::string server;
  std::unique_ptr<CoordinatorClient> client;
  if (auto done = Connect(global, common, &server, &client)) return *done;
  absl::StatusOr<kernelseek::v1::KernelVersion> best = client->GetBestKernel(positional[0]);
  if (!best.ok()) return FailRpc(best.status(), server);
  if (int code = WriteOutput(output, best->source()); code != kExitOk) return code;
  std::string tflops = best->geomean_tflops() > 0
                           ? absl::StrFormat(", %.1f TFLOP/s", best->geomean_tflops())
                           : std::string();
  (to_stdout ? std::cerr : std::cout)
      << best->id() << ": " << FormatSpeedup(best->geomean_speedup()) << " geomean speedup"
      << tflops << (to_stdout ? "" : absl::StrCat(", written to ", output)) << "\n";
  return kExitOk;
}

}  // namespace kseek
