// The one mapping between a session event's typed body (proto/session_event.proto)
// and its stored and exported form: a kind name and a JSON payload, the
// session_events row's `kind` and `payload` columns and the "kind" and
// "payload" of `kseek trace --format jsonl`.
//
// The JSON is the format written before events were typed, byte for byte
// (keys sorted, optional fields only when set), so rows of existing databases
// and exported traces read back into the same body, and a body written today
// reads the same to a client that only knows `payload_json`.
//
// Plain functions, thread-safe.
#ifndef KERNELSEEK_COMMON_SESSION_EVENT_H_
#define KERNELSEEK_COMMON_SESSION_EVENT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/session_event.pb.h"

namespace kseek {

// The kind name of a body case ("model_message", ...); "" for BODY_NOT_SET.
const char* EventKindName(kernelseek::v1::SessionEvent::BodyCase body);

// The body as its JSON payload; an empty object for an event without a body.
nlohmann::json BodyToJson(const kernelseek::v1::SessionEvent& event);

// Sets `kind` and `payload_json` from the body. An event without a body is
// left as it is (a kind this code does not know keeps its own payload).
void SetKindAndPayload(kernelseek::v1::SessionEvent* event);

// Sets the body from `kind` and the JSON `payload`: OK with no body for a kind
// this code does not know; INVALID_ARGUMENT, naming the kind, when the payload
// of a known kind is not a JSON object. Fields missing from the payload, or of
// another JSON type, read as unset. `kind` and `payload_json` are not touched.
absl::Status SetBodyFromJson(const std::string& kind, const nlohmann::json& payload,
                             kernelseek::v1::SessionEvent* event);
// As SetBodyFromJson, from the event's own `kind` and `payload_json` (a stored
// row, or an event from a server that sends no body).
absl::Status SetBodyFromPayload(kernelseek::v1::SessionEvent* event);

}  // namespace kseek

#endif  // KERNELSEEK_COMMON_SESSION_EVENT_H_
