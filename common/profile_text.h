// The text of a worker's Nsight Compute profile (ProfileResult), shared by the
// agent's `profile` tool and `kseek profile` so that a model and a user read
// the same numbers in the same words.
//
// The build itself (its outcome and diagnostics) is left to the caller, which
// has its own renderer for compile results; this is everything after it.
// Plain functions; thread-safe.
#ifndef KERNELSEEK_COMMON_PROFILE_TEXT_H_
#define KERNELSEEK_COMMON_PROFILE_TEXT_H_

#include <string>

#include "proto/kernelseek.pb.h"

namespace kseek {

// The most hot spots (SASS lines with the most warp-stall samples) a profile
// job may ask for per kernel, RunOptions.hotspots; the server refuses more.
inline constexpr int kMaxProfileHotSpots = 50;

struct ProfileTextOptions {
  std::string subject;             // what was profiled, e.g. "version v3" or "naive.cu"
  bool show_command_line = false;  // add the ncu command line the worker ran
};

// Lines ending in "\n":
//   profile of SUBJECT on SCENARIO on GPU (Nsight Compute VERSION)
//   verify: passed (max error 1.0e-03 <= bar 4.0e-03) | verify: FAIL REASON
//   kernel NAME block B grid G: D us, SM throughput S%, memory throughput M%,
//     occupancy A% achieved / T% theoretical, R registers/thread, N B shared/block
//     (one line; ", first of K profiled launches" added when ncu profiled more)
//     METRIC VALUE UNIT, ...                  (the kernel's other metrics)
//     stall reasons (N samples): REASON P%, ...  (when ncu sampled warp stalls)
//     hot spots (share of this kernel's stall samples):
//        P%  #INDEX SASS  (REASON P%, ...)       (one line per hot spot)
//     (shares of the kernel's samples; a reason under 0.05% is left out)
//   no candidate kernel was profiled          (when there is none)
//   profile error: ERROR                      (when the worker gave one)
//   ncu command: COMMAND                      (with show_command_line)
// A failed build gives the heading and one line saying nothing was profiled.
std::string FormatProfileText(const kernelseek::v1::ProfileResult& profile,
                              const ProfileTextOptions& options);

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_PROFILE_TEXT_H_
