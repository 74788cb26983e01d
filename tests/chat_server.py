"""A real HTTP server on loopback that speaks OpenAI chat completions, for the suggestion tests.

`ChatServer` runs `http.server.ThreadingHTTPServer` on 127.0.0.1, port 0, in a thread. Each
`POST /v1/chat/completions` is answered by a *behaviour* chosen from the request's user message:
the first `behaviours` key found in the text wins, else `default`. A behaviour is a list of
steps; the n-th request with that key (per order AB/BA) gets step min(n, last). A step is:

    ("judge", delay_s)            reply with the verdict for the answer marked GOOD, after delay_s
    ("text", content[, finish])   reply with this message content (and finish_reason, default "stop")
    ("parrot", style, tail)       a model that repeats its prompt, as small ones do: the messages it
                                  was sent, restyled by `style` (PARROT_STYLES), then `tail` ("" for
                                  nothing more, "judge" for the verdict "judge" would give, or a text)
    ("status", code, headers, body)  an HTTP error with headers and a text body
    ("raw", body)                 status 200 with this body verbatim (e.g. broken JSON)
    ("echo", code)                a leaky server: the request's headers quoted back, in the reply
                                  content with a verdict (code 200) or in an error body (other codes)
    ("leak", place, case)         a leaky server that puts the Authorization header (`case`: "same",
                                  "upper", "lower", or "partial": its first 20 characters) in one
                                  field (LEAK_PLACES) of an otherwise normal judge reply

Like a real server, every reply honours the request's `max_tokens`: content longer than that many
tokens (here: whitespace-separated words) is cut there, with finish_reason "length".

Every request is recorded (headers, parsed body, time), so tests can check what was sent.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = tuple[Any, ...]

PARROT_STYLES = ("verbatim", "system", "instructions", "markdown", "user")
"""verbatim: system then user message as sent; system / user: that message only; instructions:
only the sentences that hold verdict markers; markdown: the system message as a bulleted list
with bold markers, re-wrapped and re-spaced, then the user message with doubled line breaks."""
LEAK_PLACES = ("model", "finish_reason", "system_fingerprint", "usage_key", "nested", "id")


class ChatServer:
    def __init__(self, behaviours: Mapping[str, Sequence[Step]] | None = None,
                 default: Sequence[Step] = (("judge", 0.0),), served_model: str | None = None) -> None:
        self.behaviours = dict(behaviours or {})
        self.served_model = served_model
        """The `model` every reply names (default: the request's), as servers that resolve aliases do."""
        self.default = list(default)
        self.requests: list[dict[str, Any]] = []
        self.counts: dict[tuple[str, str], int] = defaultdict(int)
        self.lock = threading.Lock()
        self.in_flight = 0
        self.most_in_flight = 0
        """The most requests the server was handling at once."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._send(400, {}, b'{"error": "bad json"}')
                    return
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {}, b'{"error": "not found"}')
                    return
                step = server._step(body, dict(self.headers))
                with server.lock:
                    server.in_flight += 1
                    server.most_in_flight = max(server.most_in_flight, server.in_flight)
                try:
                    self._perform(step, body)
                finally:
                    with server.lock:
                        server.in_flight -= 1

            def _perform(self, step: Step, body: dict[str, Any]) -> None:
                kind = step[0]
                if kind == "judge":
                    time.sleep(step[1])
                    self._reply(body, _judge(body))
                elif kind == "text":
                    self._reply(body, step[1], step[2] if len(step) > 2 else "stop")
                elif kind == "parrot":
                    _, style, tail = step
                    self._reply(body, _parrot(body, style) + ("\n\n" + _judge(body) if tail == "judge" else tail))
                elif kind == "leak":
                    self._leak(body, step[1], step[2])
                elif kind == "status":
                    _, code, headers, text = step
                    self._send(code, headers, text.encode())
                elif kind == "raw":
                    self._send(200, {}, step[1].encode())
                elif kind == "echo":
                    quoted = "; ".join(f"{k}: {v}" for k, v in self.headers.items())
                    if step[1] == 200:
                        self._reply(body, f"You sent {quoted}\n\n" + _judge(body))
                    else:
                        self._send(step[1], {}, json.dumps({"error": f"rejected; your headers: {quoted}"}).encode())
                else:
                    raise ValueError(kind)

            def _reply(self, body: dict[str, Any], content: str, finish: str = "stop") -> None:
                self._send(200, {}, json.dumps(_payload(body, content, finish, server.served_model)).encode())

            def _leak(self, body: dict[str, Any], place: str, case: str) -> None:
                header = self.headers.get("Authorization", "")
                secret = {"same": header, "upper": header.upper(), "lower": header.lower(),
                          "partial": header.removeprefix("Bearer ")[:20]}[case]
                payload = _payload(body, _judge(body), "stop", server.served_model)
                choice = payload["choices"][0]
                if place in ("model", "system_fingerprint", "id"):
                    payload[place] = f"{payload.get(place, '')} {secret}".strip()
                elif place == "finish_reason":
                    choice["finish_reason"] = f"stop ({secret})"
                elif place == "usage_key":
                    payload["usage"][secret] = 1
                elif place == "nested":
                    payload["debug"] = {"request": {"headers": [{"name": "authorization", "value": secret}]}}
                    choice["message"]["content"] += f"\n\n(debug: {secret})"
                else:
                    raise ValueError(place)
                self._send(200, {}, json.dumps(payload).encode())

            def _send(self, code: int, headers: Mapping[str, str], data: bytes) -> None:
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)

    def _step(self, body: dict[str, Any], headers: dict[str, str]) -> Step:
        text = _user_text(body)
        order = "AB" if _first_answer(text).find("slot-A") >= 0 else "BA"
        key = next((k for k in self.behaviours if k in text), None)
        steps = self.behaviours[key] if key is not None else self.default
        with self.lock:
            n = self.counts[(key or "", order)]
            self.counts[(key or "", order)] += 1
            self.requests.append({"headers": headers, "body": body, "key": key, "order": order,
                                  "time": time.monotonic()})
        return steps[min(n, len(steps) - 1)]


def _payload(body: dict[str, Any], content: str, finish: str, model: str | None = None) -> dict[str, Any]:
    """A chat completion of `content`, cut to the request's max_tokens like a real server's."""
    limit = body.get("max_tokens")
    if isinstance(limit, int):
        pieces = re.findall(r"\S+\s*", content)
        if len(pieces) > limit:
            content, finish = "".join(pieces[:limit]).rstrip(), "length"
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
        "model": model or body.get("model", ""), "system_fingerprint": "fp-test-1",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _parrot(body: dict[str, Any], style: str) -> str:
    """The prompt repeated back (see PARROT_STYLES)."""
    messages = {m.get("role"): m.get("content", "") for m in body.get("messages", [])}
    system, user = messages.get("system", ""), messages.get("user", "")
    if style == "verbatim":
        return f"{system}\n\n{user}".strip()
    if style == "system":
        return system
    if style == "user":
        return user
    sentences = re.split(r"(?<=[.])\s+", f"{system} {user}" if style == "instructions" else system)
    if style == "instructions":
        return " ".join(s for s in sentences if "[[" in s)
    if style == "markdown":
        bullets = "\n".join("*   " + re.sub(r"(\[\[[^\]]*\]\])", r"**\1**", s).replace(" ", "  ")
                            for s in sentences if s.strip())
        return f"## Instructions\n\n{bullets}\n\n### The question\n\n" + user.replace("\n", "\n\n")
    raise ValueError(style)


def _user_text(body: dict[str, Any]) -> str:
    return "\n".join(m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user")


def _first_answer(text: str) -> str:
    start = text.find("[The Start of Assistant A's Answer]")
    end = text.find("[The End of Assistant A's Answer]")
    return text[start:end] if start >= 0 else text


def _judge(body: dict[str, Any]) -> str:
    """A consistent judge: prefers the answer containing GOOD; a tie when neither does."""
    text = _user_text(body)
    if "[The Start of Assistant's Answer]" in text:  # single: grade from a GRADE=n marker
        marker = text.find("GRADE=")
        grade = text[marker + 6 : marker + 8].strip() if marker >= 0 else "5"
        return f"The answer is fine.\n\nRating: [[{grade}]]"
    first = _first_answer(text)
    if "GOOD" in text and "GOOD" in first:
        return "Assistant A is clearly better.\n\n[[A]]"
    if "GOOD" in text:
        return "Assistant B is clearly better.\n\n[[B]]"
    return "They are equally good.\n\n[[C]]"
