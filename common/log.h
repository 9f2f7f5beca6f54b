// Log: one timestamped line to stderr per call. Thread-safe (one write(2) per
// line). The processes here are daemons whose stderr is the log.
#ifndef KERNELSEEK_COMMON_LOG_H_
#define KERNELSEEK_COMMON_LOG_H_

#include <string_view>

namespace kseek {

void Log(std::string_view line);

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_LOG_H_
