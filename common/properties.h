// Worker capabilities and job requirements: validation and matching of the
// sorted key/value `Property` lists defined in proto/kernelseek.proto.
//
// Used by the server (scheduling, rejecting bad requests) and the worker
// (checking what it advertises). Pure functions; thread-safe.
#ifndef KERNELSEEK_COMMON_PROPERTIES_H_
#define KERNELSEEK_COMMON_PROPERTIES_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "proto/kernelseek.pb.h"

namespace kseek {

using PropertyList = google::protobuf::RepeatedPtrField<kernelseek::v1::Property>;

// A requirement value meaning "the worker has this key, with any value"
// (e.g. `ncu=*`: any Nsight Compute version).
inline constexpr absl::string_view kAnyValue = "*";

// The keys the proto defines: arch, baselines, compile, driver, gpu, ncu, nvcc, problems.
bool IsKnownPropertyKey(absl::string_view key);

// Sorts by key (stable), so a list built in any order can then be validated.
void SortProperties(PropertyList* properties);

// INVALID_ARGUMENT, naming the offending key or value, when a key is unknown,
// appears twice, is out of key order, or its value is empty, has surrounding
// whitespace or control characters, or is malformed for its key (`arch` must
// look like sm_90; `compile` a comma-separated list of such names; `problems`
// a comma-separated list of NAME@HEX16). The value
// kAnyValue is well-formed for every key.
absl::Status ValidateProperties(const PropertyList& properties);

// Whether a worker with `capabilities` can run a job with `requirements`.
// A requirement whose key the worker lacks never matches. Otherwise a
// requirement valued kAnyValue matches whatever value the worker has;
// `compile=X[,Y...]` and `problems=P@D[,...]` match when the worker's list
// contains every listed item; any other key needs an equal value. Both lists are
// assumed valid.
bool RequirementsMatch(const PropertyList& requirements, const PropertyList& capabilities);

// Splits a `compile` value into its architectures ("sm_90a,sm_100a").
std::vector<std::string> SplitArchList(absl::string_view value);

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_PROPERTIES_H_
