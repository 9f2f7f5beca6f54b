// WheelSite: makes a folder of Python wheels (e.g. fa3-fwd, flash-attn-4 and
// what they need, fetched with `pip download` where a registry is reachable)
// importable by the worker's Python on a GPU node that has no registry.
//
// The wheels are installed with that Python's own pip (`--no-index
// --no-deps --target`) into a site folder under the worker's cache, once per
// set of wheels: a stamp in the folder lists the wheels' names and sizes, and
// the same set is not installed again. The baseline program then gets the
// folder through PYTHONPATH (PythonPathEnv). Stateless; not safe for two
// workers installing into the same cache folder at once.
#ifndef KERNELSEEK_WORKER_WHEEL_SITE_H_
#define KERNELSEEK_WORKER_WHEEL_SITE_H_

#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace kseek {

struct WheelSiteConfig {
  std::string python = "python3";
  std::string wheels_dir;  // holds *.whl
  std::string cache_dir;   // the site folder goes under it
  absl::Duration install_limit = absl::Minutes(10);
};

// The site folder holding `wheels_dir`'s wheels, installed now or reused.
// NOT_FOUND for a missing or wheel-less folder; FAILED_PRECONDITION, with
// pip's output, when the install fails (e.g. a wheel for another Python).
absl::StatusOr<std::string> PrepareWheelSite(const WheelSiteConfig& config);

// PYTHONPATH=`dirs` followed by the worker's own PYTHONPATH, if it has one,
// for SubprocessSpec::extra_env.
std::pair<std::string, std::string> PythonPathEnv(const std::string& dirs);

}  // namespace kseek

#endif  // KERNELSEEK_WORKER_WHEEL_SITE_H_
