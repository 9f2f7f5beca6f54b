// QuestionPolicy: decides when a session has reached a decision point, from
// what the agent says and what the harness measured. It knows nothing about
// questions themselves (QuestionBank picks those) or about storage; the agent
// loop feeds it every model text and tool outcome in trace order, so feeding
// a stored trace again rebuilds the same state after a server restart.
//
// Decision points:
//   claimed limit     the model's text asserts a bound (ClaimedLimitPhrase)
//   repeated failure  failure_streak compile or verify failures in a row
//   plateau           plateau_benchmarks counted benchmarks in a row without
//                     beating the best by plateau_min_gain (a fraction)
//   large gain        a counted benchmark beats the previous best by large_gain
//   early finish      finish refused below the target
// Plain object, not thread-safe (one per session, used by its loop thread).
#ifndef KERNELSEEK_SERVER_QUESTION_POLICY_H_
#define KERNELSEEK_SERVER_QUESTION_POLICY_H_

#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "proto/kernelseek.pb.h"
#include "proto/question_bank.pb.h"

namespace kseek {

// What the harness learnt from one tool call, as the policy needs it.
enum class ToolSignal {
  kNone,            // reading, editing, listing: no measurement
  kCompileOk,
  kCompileFailed,
  kVerifyOk,        // every scenario passed
  kVerifyFailed,
  kBenched,         // a counted version was benchmarked; see speedup
  kFinishAccepted,
  kFinishRefused,
};

const char* ToolSignalName(ToolSignal signal);
ToolSignal ToolSignalFromName(std::string_view name);

// The policy options with defaults filled in for zero fields.
kernelseek::v1::PolicyOptions WithPolicyDefaults(kernelseek::v1::PolicyOptions options);

// The phrase in `text` that claims a performance limit, or nullopt. Matches,
// case-insensitively: memory-bound, bandwidth-bound, compute-bound, at (the)
// peak, cannot/can't be (made) faster, cannot go faster, hardware limit,
// theoretical maximum/peak/limit, physical limit, already optimal, fundamental
// limit, no further improvement/speedup is possible.
std::optional<std::string> ClaimedLimitPhrase(std::string_view text);

// "plateau", "claimed_limit", ... as recorded in the trace.
std::string TriggerName(kernelseek::v1::Trigger trigger);

class QuestionPolicy {
 public:
  explicit QuestionPolicy(const kernelseek::v1::PolicyOptions& options);

  // The model's text of one turn; TRIGGER_CLAIMED_LIMIT when it claims a bound.
  std::optional<kernelseek::v1::Trigger> OnModelText(std::string_view text);
  // One tool call's outcome. `tool` is its name (for the layer), `speedup`
  // the geomean of a kBenched version. Returns the decision point it makes.
  std::optional<kernelseek::v1::Trigger> OnToolOutcome(std::string_view tool, ToolSignal signal, double speedup);

  // The layer the agent has been working in, from its last kLayerWindow tool
  // calls: each show_sass or compile counts for compiler output, each
  // verify or bench for measurement, each read/write/edit/list for algorithm;
  // the largest count wins, ties going to compiler output, then measurement.
  // LAYER_UNSPECIFIED before any tool call.
  kernelseek::v1::Layer CurrentLayer() const;

  double best_speedup() const { return best_; }

  static constexpr size_t kLayerWindow = 8;

 private:
  kernelseek::v1::PolicyOptions options_;
  std::deque<std::string> recent_tools_;
  int failure_streak_ = 0;
  int benches_without_gain_ = 0;
  double best_ = 0;
};

}  // namespace kseek

#endif  // KERNELSEEK_SERVER_QUESTION_POLICY_H_
