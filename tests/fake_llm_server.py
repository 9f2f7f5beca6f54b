#!/usr/bin/env python3
"""A scripted LLM endpoint for tests: OpenAI-compatible and Anthropic-compatible.

Listens on 127.0.0.1 on a free port and prints that port, alone, as the first
line of stdout. Every POST to a path ending in /chat/completions is answered
in OpenAI's chat-completions format; every POST to a path ending in /messages
in Anthropic's Messages format. Each request, whichever format, consumes the
next step of the script; once the script is used up every request gets a 400
saying so, so a test that makes more calls than it scripted fails clearly.

Requests are checked the way the real APIs check them (roles, tool call ids
answered by tool results, required fields and headers); a request that breaks
the rules gets the 400 the real API would send, in its error format, and
consumes no step.

Script: a JSON file holding a list of steps (or {"steps": [...]}). A step is
one of
  {"reply": {"content": "text",
             "tool_calls": [{"id": "call_1", "name": "compile",
                             "arguments": {"path": "k.cu"}}],
             "stop": "end_turn" | "max_tokens"},
   "usage": {"input_tokens": 12, "output_tokens": 5}}
      A model turn. "arguments" is an object, or a string sent verbatim in the
      OpenAI format (so malformed arguments can be scripted); the Anthropic
      format always carries an object, {} when the string is not JSON.
  {"error": {"status": 429, "message": "slow down", "retry_after": "1"}}
      An error response in the endpoint's format, with Retry-After if given.
  {"raw": {"status": 200, "body": "not json", "content_type": "text/plain"}}
      A body sent as is.
  {"big_reply": {"bytes": 10485760}}
      A well-formed model turn whose text is that many bytes of "x".
Any step may add "delay_s": seconds to wait before answering.

Options: --script FILE (required); --request-log FILE appends every request
as a JSON line {"n", "path", "headers", "body"} with the values of
Authorization and x-api-key replaced by "[set]"; --api-key KEY makes requests
without that key fail with 401, quoting the key they sent, as OpenAI does.

Standard library only.
"""

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Script:
    def __init__(self, steps):
        self._steps = list(steps)
        self._next = 0
        self._lock = threading.Lock()

    def next_step(self):
        with self._lock:
            if self._next >= len(self._steps):
                return None, self._next
            step = self._steps[self._next]
            self._next += 1
            return step, self._next


class BadRequest(Exception):
    pass


def _check_openai(body):
    if not isinstance(body, dict):
        raise BadRequest("request body must be a JSON object")
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise BadRequest("you must provide a model parameter")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("'messages' must be a non-empty array")
    pending_ids = set()
    for i, m in enumerate(messages):
        role = m.get("role") if isinstance(m, dict) else None
        if role not in ("system", "user", "assistant", "tool", "developer"):
            raise BadRequest(f"messages[{i}]: invalid role {role!r}")
        if role == "assistant":
            for call in m.get("tool_calls") or []:
                fn = call.get("function") or {}
                if call.get("type") != "function" or not isinstance(call.get("id"), str):
                    raise BadRequest(f"messages[{i}].tool_calls: need id and type 'function'")
                if not isinstance(fn.get("name"), str) or not isinstance(fn.get("arguments"), str):
                    raise BadRequest(f"messages[{i}].tool_calls: function.name and "
                                     "function.arguments (a string) are required")
                pending_ids.add(call["id"])
            if m.get("content") is None and not m.get("tool_calls"):
                raise BadRequest(f"messages[{i}]: assistant message needs content or tool_calls")
        elif role == "tool":
            if m.get("tool_call_id") not in pending_ids:
                raise BadRequest(f"messages[{i}]: tool message answers unknown tool_call_id "
                                 f"{m.get('tool_call_id')!r}")
            if not isinstance(m.get("content"), str):
                raise BadRequest(f"messages[{i}]: tool content must be a string")
        elif not isinstance(m.get("content"), str):
            raise BadRequest(f"messages[{i}]: content must be a string")
    for i, tool in enumerate(body.get("tools") or []):
        fn = tool.get("function") or {}
        if tool.get("type") != "function" or not isinstance(fn.get("name"), str):
            raise BadRequest(f"tools[{i}]: need type 'function' and function.name")
        if not isinstance(fn.get("parameters", {}), dict):
            raise BadRequest(f"tools[{i}]: function.parameters must be an object")


def _check_anthropic(body, headers):
    if not headers.get("anthropic-version"):
        raise BadRequest("anthropic-version: header is required")
    if not isinstance(body, dict):
        raise BadRequest("request body must be a JSON object")
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise BadRequest("model: Field required")
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] <= 0:
        raise BadRequest("max_tokens: Field required")
    if "system" in body and not isinstance(body["system"], (str, list)):
        raise BadRequest("system: must be a string or a list of blocks")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("messages: at least one message is required")
    previous_tool_uses = set()
    for i, m in enumerate(messages):
        role = m.get("role") if isinstance(m, dict) else None
        expected = "user" if i % 2 == 0 else "assistant"
        if role != expected:
            raise BadRequest(f"messages.{i}: roles must alternate between user and assistant, "
                             f"starting with user; got {role!r}")
        content = m.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list) or not blocks:
            raise BadRequest(f"messages.{i}: content must be a string or a non-empty list")
        tool_uses = set()
        answered = set()
        for j, block in enumerate(blocks):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                if not isinstance(block.get("text"), str) or not block["text"]:
                    raise BadRequest(f"messages.{i}.content.{j}: text content blocks must be "
                                     "non-empty")
            elif kind == "tool_use" and role == "assistant":
                if not isinstance(block.get("input"), dict):
                    raise BadRequest(f"messages.{i}.content.{j}.input: must be an object")
                tool_uses.add(block.get("id"))
            elif kind == "tool_result" and role == "user":
                if block.get("tool_use_id") not in previous_tool_uses:
                    raise BadRequest(f"messages.{i}.content.{j}: unexpected tool_use_id "
                                     f"{block.get('tool_use_id')!r} in tool_result blocks: "
                                     "each tool_result must answer a tool_use of the "
                                     "previous message")
                answered.add(block["tool_use_id"])
            else:
                raise BadRequest(f"messages.{i}.content.{j}: unexpected block type {kind!r}")
        if role == "user" and previous_tool_uses - answered:
            raise BadRequest(f"messages.{i}: tool_use ids without tool_result blocks: "
                             f"{sorted(previous_tool_uses - answered)}")
        previous_tool_uses = tool_uses if role == "assistant" else set()
    for i, tool in enumerate(body.get("tools") or []):
        if not isinstance(tool.get("name"), str) or not isinstance(tool.get("input_schema"), dict):
            raise BadRequest(f"tools.{i}: name and input_schema (an object) are required")


_ANTHROPIC_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error",
                          403: "permission_error", 404: "not_found_error",
                          429: "rate_limit_error", 529: "overloaded_error"}


def _error_body(api, status, message):
    if api == "anthropic":
        kind = _ANTHROPIC_ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
    kind = "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def _arguments(call, api):
    args = call.get("arguments", {})
    if api == "openai":
        return args if isinstance(args, str) else json.dumps(args)
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            args = {}
    return args if isinstance(args, dict) else {}


def _reply_body(api, reply, usage, model, n):
    content = reply.get("content", "")
    calls = reply.get("tool_calls") or []
    stop = reply.get("stop", "end_turn")
    tokens_in = usage.get("input_tokens", 0)
    tokens_out = usage.get("output_tokens", 0)
    if api == "anthropic":
        blocks = [{"type": "text", "text": content}] if content else []
        for call in calls:
            blocks.append({"type": "tool_use", "id": call["id"], "name": call["name"],
                           "input": _arguments(call, api)})
        return {"id": f"msg_fake_{n}", "type": "message", "role": "assistant", "model": model,
                "content": blocks, "stop_reason": "tool_use" if calls else stop,
                "stop_sequence": None,
                "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out}}
    message = {"role": "assistant", "content": content or None}
    if calls:
        message["tool_calls"] = [
            {"id": call["id"], "type": "function",
             "function": {"name": call["name"], "arguments": _arguments(call, api)}}
            for call in calls]
    finish = "tool_calls" if calls else ("length" if stop == "max_tokens" else "stop")
    return {"id": f"chatcmpl-fake-{n}", "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out,
                      "total_tokens": tokens_in + tokens_out}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake_llm_server"

    def log_message(self, fmt, *args):  # keep test output clean
        pass

    def _send(self, status, body, content_type="application/json", headers=None):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _log_request(self, body):
        if not self.server.request_log:
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        for secret in ("authorization", "x-api-key"):
            if secret in headers:
                headers[secret] = "[set]"
        with self.server.log_lock:
            self.server.logged += 1
            entry = {"n": self.server.logged, "path": self.path, "headers": headers, "body": body}
            with open(self.server.request_log, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")

    def _sent_key(self, api):
        if api == "anthropic":
            return self.headers.get("x-api-key", "")
        auth = self.headers.get("Authorization", "")
        return auth[len("Bearer "):] if auth.startswith("Bearer ") else auth

    def do_POST(self):
        if self.path.rstrip("/").endswith("/chat/completions"):
            api = "openai"
        elif self.path.rstrip("/").endswith("/messages"):
            api = "anthropic"
        else:
            self._send(404, {"error": {"message": f"no route for {self.path}"}})
            return
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        self._log_request(body)

        expected_key = self.server.api_key
        if expected_key is not None and self._sent_key(api) != expected_key:
            sent = self._sent_key(api)
            self._send(401, _error_body(api, 401, f"Incorrect API key provided: {sent}"))
            return
        try:
            if isinstance(body, str):
                raise BadRequest("request body is not valid JSON")
            if api == "openai":
                _check_openai(body)
            else:
                _check_anthropic(body, {k.lower(): v for k, v in self.headers.items()})
        except BadRequest as e:
            self._send(400, _error_body(api, 400, str(e)))
            return

        step, n = self.server.script.next_step()
        if step is None:
            self._send(400, _error_body(api, 400, f"fake_llm_server: script exhausted after "
                                                  f"{n} steps"))
            return
        time.sleep(step.get("delay_s", 0))
        model = body.get("model", "")
        if "reply" in step:
            self._send(200, _reply_body(api, step["reply"], step.get("usage", {}), model, n))
        elif "error" in step:
            error = step["error"]
            status = error.get("status", 500)
            headers = {"Retry-After": str(error["retry_after"])} if "retry_after" in error else {}
            self._send(status, _error_body(api, status, error.get("message", "scripted error")),
                       headers=headers)
        elif "raw" in step:
            raw_step = step["raw"]
            self._send(raw_step.get("status", 200), raw_step.get("body", "").encode(),
                       content_type=raw_step.get("content_type", "application/json"))
        elif "big_reply" in step:
            text = "x" * int(step["big_reply"]["bytes"])
            self._send(200, _reply_body(api, {"content": text}, {}, model, n))
        else:
            self._send(500, _error_body(api, 500, f"fake_llm_server: bad script step {n}"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", required=True)
    parser.add_argument("--request-log")
    parser.add_argument("--api-key")
    args = parser.parse_args()
    with open(args.script, encoding="utf-8") as f:
        loaded = json.load(f)
    steps = loaded["steps"] if isinstance(loaded, dict) else loaded

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.script = Script(steps)
    server.request_log = args.request_log
    server.api_key = args.api_key
    server.log_lock = threading.Lock()
    server.logged = 0
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
