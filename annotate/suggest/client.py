"""A small client for OpenAI-compatible chat-completions servers (vLLM, llama.cpp's server,
Ollama, hosted APIs), built on httpx.

One `ChatClient` sends `POST {endpoint}/chat/completions` and returns the reply's text. It:

- times out each request after `timeout` seconds;
- retries timeouts, connection errors and 5xx replies with exponential backoff and jitter
  (`backoff_base * 2**attempt`, capped at `backoff_max`, then scaled by a random factor in
  [0.5, 1]), up to `max_retries` times;
- on 429 waits for the server's `Retry-After` (seconds or an HTTP date, capped at
  `retry_after_max`), or the backoff when there is none, and makes every concurrent request of
  this client wait until then too;
- gives up at once on 401, 403 and 404 (a wrong key, model or URL fails the same for every item:
  `FatalError`), and on other 4xx for this request only (`ReplyError`).

The API key is read from the environment variable the caller names, sent as a Bearer token, and
kept nowhere else: it is not logged (this module logs nothing), not put in any error message, and
never reaches the store. A name that looks like a key itself (`--api-key-env sk-...`) is refused
without being repeated. A server that echoes the key back (an error page quoting the request's
headers, a field of its JSON) does not get it stored either: every text this client returns
(reply content, model, finish reason, raw bodies of failures) has the key replaced by `[API key]`
(in any case, cut short or encoded: `annotate.suggest.secret`), and `ChatClient.redact` does the
same for anything else the caller stores. Replies are untrusted text; this module only extracts
the message content and a few provenance fields and never interprets them.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from annotate.suggest.secret import Redactor, env_var_problem

__all__ = [
    "ChatClient",
    "ClientConfig",
    "FatalError",
    "Reply",
    "ReplyError",
    "SuggestError",
    "UnavailableError",
    "chat_url",
    "read_api_key",
    "retry_after_seconds",
]

MAX_RAW_CHARS = 100_000
"""Longest reply text kept; longer ones are cut (and say so)."""


class SuggestError(Exception):
    """Asking the model failed; the message never contains the API key or request headers."""

    def __init__(self, message: str, raw: str = "") -> None:
        super().__init__(message)
        self.raw = raw
        """The server's body as text (cut to MAX_RAW_CHARS), when there was one."""


class ReplyError(SuggestError):
    """This request got no usable reply (a 4xx, a body that is not chat-completions JSON)."""


class UnavailableError(SuggestError):
    """The server could not be reached or kept failing (timeouts, 5xx, 429) after every retry."""


class FatalError(SuggestError):
    """A failure every request would share (401, 403, 404, an unset key): stop the run."""


@dataclass(frozen=True)
class ClientConfig:
    """Where and how to ask. Times are seconds."""

    endpoint: str
    """Base URL such as `http://127.0.0.1:8000/v1`, or the full `.../chat/completions` URL."""
    model: str
    """The `model` field of each request (the served model's name)."""
    api_key_env: str | None = field(default=None, repr=False)
    """Name of the environment variable holding the API key; None: send no key (local servers).
    Not in the repr: if someone passed the key itself here, a traceback must not show it."""
    timeout: float = 120.0
    max_retries: int = 5
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    retry_after_max: float = 300.0
    temperature: float = 0.0
    max_tokens: int | None = 1024
    """The `max_tokens` of each request: the longest reply, so a rambling model stops; None sends none."""


@dataclass(frozen=True)
class Reply:
    """A chat-completions reply: its message text and a little provenance."""

    content: str
    """The assistant message, verbatim (untrusted)."""
    model: str = ""
    """The `model` the server says answered."""
    finish_reason: str = ""
    """Why the model stopped: `stop`, or `length` when `max_tokens` cut it off."""
    attempts: int = 1
    """Requests sent for this reply (1 + retries)."""
    usage: dict[str, int] = field(default_factory=dict)
    """The reply's token counts as the server gave them (numbers only: prompt_tokens, ...)."""
    system_fingerprint: str = ""
    """The server's name for its backend configuration, when it gives one (drift between runs)."""


def chat_url(endpoint: str) -> str:
    """The chat-completions URL for an endpoint given as a base (`.../v1`) or in full."""
    url = endpoint.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"--endpoint {_redact(endpoint)!r}: expected an http(s) URL such as http://127.0.0.1:8000/v1")
    return url if url.endswith("/chat/completions") else f"{url}/chat/completions"


def read_api_key(env_var: str | None) -> str | None:
    """The key in environment variable `env_var`; None when no variable is named.

    Raises FatalError when the variable is named but unset or empty (the message names the
    variable, never a value), and when `env_var` is not a variable name (never repeating it: it
    may be the key itself).
    """
    if env_var is None:
        return None
    problem = env_var_problem(env_var)
    if problem is not None:
        raise FatalError(problem)
    value = os.environ.get(env_var, "")
    if not value.strip():
        raise FatalError(f"environment variable {env_var} is not set; export the API key in it first")
    return value.strip()


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a `Retry-After` header: delay-seconds or an HTTP date; None if absent
    or unreadable. A date in the past gives 0."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = datetime.now(UTC).timestamp() if now is None else now
    return max(0.0, when.timestamp() - current)


class ChatClient:
    """Use as `async with ChatClient(config) as client: reply = await client.complete(messages)`.

    Safe to share between concurrent tasks; the caller bounds concurrency (run.py uses a
    semaphore).
    """

    def __init__(self, config: ClientConfig, *, rng: random.Random | None = None) -> None:
        self.config = config
        self.url = chat_url(config.endpoint)
        self._key = read_api_key(config.api_key_env)
        self._redactor = Redactor(self._key)
        self._rng = rng or random.Random()
        self._not_before = 0.0
        self._http: httpx.AsyncClient | None = None

    def __repr__(self) -> str:
        return f"ChatClient(url={_redact(self.url)!r}, model={self.config.model!r})"

    async def __aenter__(self) -> ChatClient:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key is not None:
            headers["Authorization"] = f"Bearer {self._key}"
        self._http = httpx.AsyncClient(
            headers=headers, timeout=httpx.Timeout(self.config.timeout), follow_redirects=False,
            trust_env=False,
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def complete(self, messages: list[dict[str, str]]) -> Reply:
        """Ask once (with retries) and return the reply.

        Raises ReplyError (this request only), UnavailableError (retries exhausted) or FatalError.
        """
        if self._http is None:
            raise RuntimeError("use ChatClient as an async context manager")
        body = {**self.settings, "messages": messages}
        last = ""
        for attempt in range(self.config.max_retries + 1):
            await self._wait_turn()
            retry_in: float | None = None
            try:
                response = await self._http.post(self.url, json=body)
            except httpx.TimeoutException:
                last = f"no reply within {self.config.timeout:g} s"
            except httpx.TransportError as exc:
                last = f"cannot reach {_redact(self.url)}: {type(exc).__name__}"
            else:
                status = response.status_code
                if status == 200:
                    return self._reply(response, attempt + 1)
                text = _cut(self._scrub(response.text))
                if status == 429:
                    retry_in = retry_after_seconds(response.headers.get("retry-after"))
                    if retry_in is not None:
                        retry_in = min(retry_in, self.config.retry_after_max)
                        self._not_before = max(self._not_before, time.monotonic() + retry_in)
                    last = "rate limited (HTTP 429)"
                elif status >= 500:
                    last = f"server error (HTTP {status})"
                elif status in (401, 403):
                    raise FatalError(
                        f"HTTP {status} from {_redact(self.url)}: the server refused the API key"
                        f"{'' if self._key else ' (none was sent; pass --api-key-env)'}", text,
                    )
                elif status == 404:
                    raise FatalError(
                        f"HTTP 404 from {_redact(self.url)}: no such endpoint or model {self.config.model!r}", text,
                    )
                else:
                    raise ReplyError(f"HTTP {status} from the server", text)
            if attempt == self.config.max_retries:
                break
            await asyncio.sleep(retry_in if retry_in is not None else self._backoff(attempt))
        raise UnavailableError(f"{last}; gave up after {self.config.max_retries + 1} attempts")

    @property
    def settings(self) -> dict[str, Any]:
        """Every field of each request body but `messages`, exactly as sent (stored with each suggestion)."""
        body: dict[str, Any] = {"model": self.config.model, "temperature": self.config.temperature, "stream": False}
        if self.config.max_tokens is not None:
            body["max_tokens"] = self.config.max_tokens
        return body

    @property
    def endpoint(self) -> str:
        """The chat-completions URL without credentials or query string (safe to store and print)."""
        return _redact(self.url)

    def redact(self, value: Any) -> Any:
        """A text or JSON-like value (at any depth, dict keys too) with the API key replaced."""
        return self._redactor.value(value)

    def _backoff(self, attempt: int) -> float:
        base = min(self.config.backoff_max, self.config.backoff_base * (2**attempt))
        return base * (0.5 + 0.5 * self._rng.random())

    async def _wait_turn(self) -> None:
        delay = self._not_before - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)

    def _scrub(self, text: str) -> str:
        """`text` with the API key (if any, and if echoed back by the server) replaced."""
        return self._redactor.text(text)

    def _reply(self, response: httpx.Response, attempts: int) -> Reply:
        text = response.text
        try:
            data = json.loads(text)
        except ValueError:
            raise ReplyError("the reply is not JSON (expected a chat-completions object)",
                             _cut(self._scrub(text))) from None
        except RecursionError:
            raise ReplyError("the reply is JSON nested too deeply to read (not a chat-completions object)",
                             _cut(self._scrub(text))) from None
        try:
            choice = data["choices"][0]
            content = choice["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise ReplyError("the reply has no choices[0].message.content", _cut(self._scrub(text))) from None
        if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}]
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if not isinstance(content, str):
            raise ReplyError("the reply's message content is not text", _cut(self._scrub(text)))
        return Reply(
            content=_cut(self._scrub(content)), model=self._field(data, "model"),
            finish_reason=self._field(choice, "finish_reason"), attempts=attempts,
            usage=_usage(data.get("usage")), system_fingerprint=self._field(data, "system_fingerprint"),
        )

    def _field(self, data: Any, key: str) -> str:
        """A short text field of the reply, scrubbed; "" when absent or not text."""
        value = data.get(key) if isinstance(data, dict) else None
        return self._scrub(value)[:200] if isinstance(value, str) else ""


def _usage(value: Any) -> dict[str, int]:
    """The whole-number token counts of a reply's `usage` (nothing else from it is kept)."""
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and len(k) <= 40 and k.isidentifier()
            and isinstance(v, int) and not isinstance(v, bool)}


def _cut(text: str) -> str:
    if len(text) <= MAX_RAW_CHARS:
        return text
    return text[:MAX_RAW_CHARS] + f"\n[... cut: {len(text) - MAX_RAW_CHARS} more characters]"


def _redact(url: str) -> str:
    """The URL without any user:password part and query string (they may carry secrets)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<endpoint>"
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
