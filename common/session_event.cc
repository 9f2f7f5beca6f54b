#include "common/session_event.h"

#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/untrusted_json.h"

namespace kseek {
namespace {

using kernelseek::v1::SessionEvent;
using nlohmann::json;

// Readers that never throw: a field of another JSON type reads as absent, so
// a hand-edited or foreign row still shows what it can.
const json* Field(const json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

bool HasString(const json& object, const char* key) {
  const json* f = Field(object, key);
  return f != nullptr && f->is_string();
}
std::string String(const json& object, const char* key) {
  return HasString(object, key) ? Field(object, key)->get<std::string>() : "";
}

bool HasNumber(const json& object, const char* key) {
  const json* f = Field(object, key);
  return f != nullptr && f->is_number();
}
double Number(const json& object, const char* key) {
  return HasNumber(object, key) ? Field(object, key)->get<double>() : 0;
}
int64_t Integer(const json& object, const char* key) {
  const json* f = Field(object, key);
  if (f == nullptr || !f->is_number()) return 0;
  return f->is_number_float() ? static_cast<int64_t>(f->get<double>()) : f->get<int64_t>();
}

bool HasBool(const json& object, const char* key) {
  const json* f = Field(object, key);
  return f != nullptr && f->is_boolean();
}
bool Bool(const json& object, const char* key) { return HasBool(object, key) && Field(object, key)->get<bool>(); }

// A model turn is replayed and resent to the model, so unlike the other
// kinds its shape is checked (as ChatResponseFromJson did before).
absl::Status ModelMessageFromJson(const json& payload, kernelseek::v1::ModelMessageEvent* out) {
  const json* message = Field(payload, "message");
  if (message == nullptr || !message->is_object()) {
    return absl::InvalidArgumentError("model_message: \"message\" is not a JSON object");
  }
  if (!HasString(*message, "role")) return absl::InvalidArgumentError("model_message: the message has no role");
  if (const json* content = Field(*message, "content"); content != nullptr && !content->is_string()) {
    return absl::InvalidArgumentError("model_message: content is not a string");
  }
  out->set_content(String(*message, "content"));
  if (const json* calls = Field(*message, "tool_calls"); calls != nullptr) {
    if (!calls->is_array()) return absl::InvalidArgumentError("model_message: tool_calls is not an array");
    for (const json& call : *calls) {
      if (!call.is_object() || !HasString(call, "id") || !HasString(call, "name") || !HasString(call, "arguments")) {
        return absl::InvalidArgumentError("model_message: a tool call needs string id, name and arguments");
      }
      kernelseek::v1::ModelToolCall* c = out->add_tool_calls();
      c->set_id(String(call, "id"));
      c->set_name(String(call, "name"));
      c->set_arguments(String(call, "arguments"));
    }
  }
  if (const json* reason = Field(payload, "stop_reason"); reason != nullptr && !reason->is_string()) {
    return absl::InvalidArgumentError("model_message: stop_reason is not a string");
  }
  out->set_stop_reason(HasString(payload, "stop_reason") ? String(payload, "stop_reason") : "end_turn");
  out->set_model(String(payload, "model"));
  if (const json* usage = Field(payload, "usage"); usage != nullptr && usage->is_object()) {
    out->set_input_tokens(Integer(*usage, "input_tokens"));
    out->set_output_tokens(Integer(*usage, "output_tokens"));
  }
  return absl::OkStatus();
}

json ModelMessageToJson(const kernelseek::v1::ModelMessageEvent& m) {
  json message = {{"role", "assistant"}, {"content", m.content()}};
  if (!m.tool_calls().empty()) {
    json calls = json::array();
    for (const kernelseek::v1::ModelToolCall& call : m.tool_calls()) {
      calls.push_back({{"id", call.id()}, {"name", call.name()}, {"arguments", call.arguments()}});
    }
    message["tool_calls"] = std::move(calls);
  }
  return {{"message", std::move(message)},
          {"stop_reason", m.stop_reason()},
          {"model", m.model()},
          {"usage", {{"input_tokens", m.input_tokens()}, {"output_tokens", m.output_tokens()}}}};
}

}  // namespace

const char* EventKindName(SessionEvent::BodyCase body) {
  switch (body) {
    case SessionEvent::kPrompt: return "prompt";
    case SessionEvent::kModelMessage: return "model_message";
    case SessionEvent::kToolCall: return "tool_call";
    case SessionEvent::kToolResult: return "tool_result";
    case SessionEvent::kHumanMessage: return "human_message";
    case SessionEvent::kQuestion: return "question";
    case SessionEvent::kPolicyDecision: return "policy_decision";
    case SessionEvent::kKernelVersion: return "kernel_version";
    case SessionEvent::kStateChange: return "state_change";
    case SessionEvent::kHarnessMessage: return "harness_message";
    case SessionEvent::kSkippedTurn: return "skipped_turn";
    case SessionEvent::kLlmCallAborted: return "llm_call_aborted";
    case SessionEvent::BODY_NOT_SET: return "";
  }
  return "";
}

json BodyToJson(const SessionEvent& event) {
  switch (event.body_case()) {
    case SessionEvent::kPrompt:
      return {{"system", event.prompt().system()}, {"user", event.prompt().user()}};
    case SessionEvent::kModelMessage:
      return ModelMessageToJson(event.model_message());
    case SessionEvent::kToolCall: {
      const auto& c = event.tool_call();
      return {{"id", c.id()}, {"name", c.name()}, {"arguments", c.arguments()}};
    }
    case SessionEvent::kToolResult: {
      const auto& r = event.tool_result();
      json out = {{"id", r.id()},
                  {"name", r.name()},
                  {"content", r.content()},
                  {"is_error", r.is_error()},
                  {"signal", r.signal()}};
      if (r.has_speedup()) out["speedup"] = r.speedup();
      return out;
    }
    case SessionEvent::kHumanMessage:
      return {{"text", event.human_message().text()}};
    case SessionEvent::kQuestion: {
      const auto& q = event.question();
      json out = {{"trigger", q.trigger()},
                  {"source", q.source()},
                  {"text", q.text()},
                  {"prompt", q.prompt()},
                  {"best_speedup_before", q.best_speedup_before()}};
      if (q.has_question_id()) out["question_id"] = q.question_id();
      if (q.has_message_seq()) out["message_seq"] = q.message_seq();
      if (q.has_from()) out["from"] = q.from();
      return out;
    }
    case SessionEvent::kPolicyDecision: {
      const auto& d = event.policy_decision();
      json out = {{"trigger", d.trigger()}, {"mode", d.mode()}, {"layer", d.layer()}, {"action", d.action()}};
      if (d.has_question_id()) out["question_id"] = d.question_id();
      if (d.has_reason()) out["reason"] = d.reason();
      return out;
    }
    case SessionEvent::kKernelVersion: {
      const auto& v = event.kernel_version();
      json out = {{"version", v.version()}, {"status", v.status()}};
      if (v.has_parent()) out["parent"] = v.parent();
      if (v.has_counted()) out["counted"] = v.counted();
      if (v.has_geomean_speedup()) out["geomean_speedup"] = v.geomean_speedup();
      return out;
    }
    case SessionEvent::kStateChange:
      return {{"state", event.state_change().state()}, {"status", event.state_change().status()}};
    case SessionEvent::kHarnessMessage:
      return {{"text", event.harness_message().text()}};
    case SessionEvent::kSkippedTurn:
      return {{"error", event.skipped_turn().error()}};
    case SessionEvent::kLlmCallAborted:
      return {{"reason", event.llm_call_aborted().reason()}, {"resumes", event.llm_call_aborted().resumes()}};
    case SessionEvent::BODY_NOT_SET:
      break;
  }
  return json::object();
}

void SetKindAndPayload(SessionEvent* event) {
  if (event->body_case() == SessionEvent::BODY_NOT_SET) return;
  event->set_kind(EventKindName(event->body_case()));
  // Replace: a model reply or a kernel may hold bytes that are not UTF-8, and
  // recording it must not fail on them.
  event->set_payload_json(BodyToJson(*event).dump(-1, ' ', false, json::error_handler_t::replace));
}

absl::Status SetBodyFromJson(const std::string& kind, const json& p, SessionEvent* event) {
  bool known = false;
  for (int c = SessionEvent::kPrompt; c <= SessionEvent::kLlmCallAborted; ++c) {
    if (kind == EventKindName(static_cast<SessionEvent::BodyCase>(c))) known = true;
  }
  if (!known) {
    event->clear_body();
    return absl::OkStatus();
  }
  if (!p.is_object()) return absl::InvalidArgumentError(absl::StrCat(kind, ": the payload is not a JSON object"));
  if (kind == "prompt") {
    auto* b = event->mutable_prompt();
    b->set_system(String(p, "system"));
    b->set_user(String(p, "user"));
  } else if (kind == "model_message") {
    kernelseek::v1::ModelMessageEvent m;
    if (absl::Status s = ModelMessageFromJson(p, &m); !s.ok()) return s;
    *event->mutable_model_message() = std::move(m);
  } else if (kind == "tool_call") {
    auto* b = event->mutable_tool_call();
    b->set_id(String(p, "id"));
    b->set_name(String(p, "name"));
    b->set_arguments(String(p, "arguments"));
  } else if (kind == "tool_result") {
    auto* b = event->mutable_tool_result();
    b->set_id(String(p, "id"));
    b->set_name(String(p, "name"));
    b->set_content(String(p, "content"));
    b->set_is_error(Bool(p, "is_error"));
    b->set_signal(HasString(p, "signal") ? String(p, "signal") : "none");
    if (HasNumber(p, "speedup")) b->set_speedup(Number(p, "speedup"));
  } else if (kind == "human_message") {
    event->mutable_human_message()->set_text(String(p, "text"));
  } else if (kind == "question") {
    auto* b = event->mutable_question();
    b->set_trigger(String(p, "trigger"));
    b->set_source(String(p, "source"));
    b->set_text(String(p, "text"));
    b->set_prompt(String(p, "prompt"));
    b->set_best_speedup_before(Number(p, "best_speedup_before"));
    if (HasString(p, "question_id")) b->set_question_id(String(p, "question_id"));
    if (HasNumber(p, "message_seq")) b->set_message_seq(Integer(p, "message_seq"));
    if (HasString(p, "from")) b->set_from(String(p, "from"));
  } else if (kind == "policy_decision") {
    auto* b = event->mutable_policy_decision();
    b->set_trigger(String(p, "trigger"));
    b->set_mode(String(p, "mode"));
    b->set_layer(String(p, "layer"));
    b->set_action(String(p, "action"));
    if (HasString(p, "question_id")) b->set_question_id(String(p, "question_id"));
    if (HasString(p, "reason")) b->set_reason(String(p, "reason"));
  } else if (kind == "kernel_version") {
    auto* b = event->mutable_kernel_version();
    b->set_version(String(p, "version"));
    b->set_status(String(p, "status"));
    if (HasString(p, "parent")) b->set_parent(String(p, "parent"));
    if (HasBool(p, "counted")) b->set_counted(Bool(p, "counted"));
    if (HasNumber(p, "geomean_speedup")) b->set_geomean_speedup(Number(p, "geomean_speedup"));
  } else if (kind == "state_change") {
    auto* b = event->mutable_state_change();
    b->set_state(String(p, "state"));
    b->set_status(String(p, "status"));
  } else if (kind == "harness_message") {
    event->mutable_harness_message()->set_text(String(p, "text"));
  } else if (kind == "skipped_turn") {
    event->mutable_skipped_turn()->set_error(String(p, "error"));
  } else if (kind == "llm_call_aborted") {
    auto* b = event->mutable_llm_call_aborted();
    b->set_reason(String(p, "reason"));
    b->set_resumes(String(p, "resumes"));
  }
  return absl::OkStatus();
}

absl::Status SetBodyFromPayload(SessionEvent* event) {
  json payload = ParseUntrustedJson(event->payload_json());
  if (payload.is_discarded()) {
    event->clear_body();
    return absl::InvalidArgumentError(absl::StrCat(event->kind(), ": the payload is not JSON"));
  }
  absl::Status s = SetBodyFromJson(event->kind(), payload, event);
  if (!s.ok()) event->clear_body();
  return s;
}

}  // namespace kseek
