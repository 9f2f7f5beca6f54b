// Whether a job's state is final: the one definition the server, its
// services and the CLI share.
#ifndef KERNELSEEK_COMMON_JOB_STATE_H_
#define KERNELSEEK_COMMON_JOB_STATE_H_

#include "proto/kernelseek.pb.h"

namespace kseek {

inline bool IsFinishedState(kernelseek::v1::JobState state) {
  return state == kernelseek::v1::JOB_STATE_SUCCEEDED || state == kernelseek::v1::JOB_STATE_FAILED ||
         state == kernelseek::v1::JOB_STATE_CANCELLED;
}

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_JOB_STATE_H_
