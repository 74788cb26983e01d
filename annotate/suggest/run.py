"""Asking a judge model about every item of a session, resumably.

For each item that has no suggestion yet from this model and this prompt (same `source_model`,
same prompt hash, not planted), `suggest_session`:

- pairwise: asks twice, once with slot A shown first and once with slot B first, maps the second
  verdict back to slot space and stores one `Suggestion` with `label` (the A-first verdict) and
  `swapped_label` (the B-first verdict, None when that reply had none); the two agreeing is
  position consistency;
- single: asks once for a grade on the session's scale;
- parses each reply for a verdict with the messages it was sent, so a reply that only repeats
  the prompt (whose instructions hold every verdict marker) is no verdict (`parse.py`);
- keeps both raw replies, and the settings they were asked with, as JSON in `Suggestion.raw`
  (and `SuggestionFailure.raw`), so drift between judge versions, prompts and settings can be
  measured later (`json_extract(raw, '$.request.max_tokens')` in SQLite):

      {"request": {"model": ..., "temperature": ..., "max_tokens": ..., "stream": false},
       "prompt": {"hash": ..., "source": ...}, "endpoint": ..., "annotate": "<version>",
       "reason": ...,                      # failures only: why the first order gave no verdict
       "replies": [{"order": "AB", "content": ..., "verdict": ..., "error": ..., "reason": ...,
                    "model": ..., "finish_reason": ..., "attempts": ..., "usage": {...},
                    "system_fingerprint": ..., "echoed_chars": ...}, ...]}

  `request` is every field of the request body but the messages, exactly as sent; a reply's
  `model` is the model the server says answered (it may differ from the one asked for) and
  `echoed_chars` how much of it repeated the prompt. Keys without a value are left out.
- when the A-first request got no usable reply (server unreachable, an HTTP error, a body that
  is not a chat completion) or a reply without a readable verdict, stores no suggestion but a
  `SuggestionFailure` with the error and raw reply; a later run asks about that item again. The
  two are counted apart (`RunSummary.request_failed`, `RunSummary.no_verdict`): the first says
  something about the server, the second about the model or the prompt. Replies without a
  verdict are counted by reason too: an echo of the prompt, cut off at `max_tokens`
  (`finish_reason: "length"`), contradicting verdicts.

Every stored field (replies, errors, settings, at any depth) has the API key replaced
(`ChatClient.redact`), whatever field a server echoed it in.

Each item's result is written as soon as it arrives, so an interrupted run loses at most the
items in flight, and running the same command again resumes. Nothing the model wrote is
interpreted: replies are searched for a verdict and stored as text.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotate import __version__
from annotate.model import Item, Suggestion
from annotate.store.store import Store, SuggestionFailure
from annotate.suggest.client import ChatClient, ClientConfig, FatalError, SuggestError, UnavailableError
from annotate.suggest.parse import CONTRADICTION, ECHO, parse_verdict
from annotate.suggest.prompts import JudgePrompt

__all__ = ["ItemOutcome", "RunSummary", "flip", "pending_items", "suggest_items", "suggest_session"]

ABORT_AFTER_UNAVAILABLE = 5
"""Stop the run after this many items in a row found the server unavailable after all retries."""


STORED, NO_VERDICT, REQUEST_FAILED, UNAVAILABLE = "stored", "no_verdict", "request_failed", "unavailable"
"""`ItemOutcome.status`: a suggestion was stored; a reply came without a readable verdict; the
request got no usable reply (an HTTP error, a body that is not a chat completion, a prompt that
could not be built); the server could not be reached (or kept failing) after every retry."""

CUT_OFF = "length"
"""`reason` of a reply that `max_tokens` cut off (`finish_reason: "length"`) before any verdict;
the other reasons are parse.py's (ECHO, CONTRADICTION, ...)."""


@dataclass(frozen=True)
class ItemOutcome:
    """What happened to one item: its `status` (see STORED..UNAVAILABLE) and, unless stored, `error`."""

    item_id: str
    status: str
    label: str | None = None
    swapped_label: str | None = None
    error: str = ""
    reason: str = ""
    """Why a reply had no verdict (`echo`, `length`, `contradiction`, ...: CUT_OFF and parse.py's); empty
    otherwise. For a stored item: why the swapped order had none, if it had none."""

    @property
    def consistent(self) -> bool | None:
        """Whether both orders gave the same slot-space verdict (None when not both known)."""
        if self.label is None or self.swapped_label is None:
            return None
        return self.label == self.swapped_label

    @property
    def request_failed(self) -> bool:
        """No usable reply came back (as opposed to a reply without a readable verdict)."""
        return self.status in (REQUEST_FAILED, UNAVAILABLE)


@dataclass(frozen=True)
class RunSummary:
    """Counts for one `annotate suggest` run."""

    total: int
    """Items in the session that can be asked about."""
    skipped: int
    """Items that already had a suggestion from this model and prompt."""
    stored: int
    failed: int
    """Items without a suggestion: `no_verdict` + `request_failed`."""
    consistent: int
    """Pairwise items whose two orders agreed."""
    inconsistent: int
    prompt_hash: str
    aborted: str = ""
    """Why the run stopped early, or empty."""
    errors: tuple[str, ...] = field(default_factory=tuple)
    """The first few replies without a verdict as `item: error` (item ids are untrusted text)."""
    no_verdict: int = 0
    """Items whose reply came back without a readable verdict (or with a grade off the scale)."""
    request_failed: int = 0
    """Items whose request got no usable reply: server unreachable, HTTP error, broken body."""
    request_errors: tuple[str, ...] = field(default_factory=tuple)
    """The first few failed requests as `item: error`."""
    echoed: int = 0
    """Of `no_verdict`: replies that only repeated or restated the prompt (its markers are not a verdict)."""
    cut_off: int = 0
    """Of `no_verdict`: replies cut off at `max_tokens` before any verdict."""
    contradictory: int = 0
    """Of `no_verdict`: replies whose verdicts contradict each other."""
    one_order: int = 0
    """Pairwise items stored with a verdict in the first order only (the swapped one had none), so
    left out of position consistency."""


def flip(label: str) -> str:
    """A pairwise verdict given with the answers presented B-first, mapped back to slot space."""
    return {"A": "B", "B": "A"}.get(label, label)


def pending_items(store: Store, model: str, prompt: JudgePrompt) -> tuple[list[Item], int]:
    """Items of the prompt's kind with no suggestion from `model` under this prompt yet, and how
    many were skipped as already done."""
    done = {
        s.item_id for s in store.suggestions()
        if s.source_model == model and s.prompt_hash == prompt.hash and not s.planted
    }
    items = [item for item in store.items() if item.kind == prompt.kind]
    return [item for item in items if item.id not in done], sum(1 for item in items if item.id in done)


async def suggest_items(
    store: Store,
    items: Sequence[Item],
    prompt: JudgePrompt,
    client: ChatClient,
    *,
    source_model: str,
    scale: tuple[int, int] = (1, 10),
    concurrency: int = 4,
    progress: Callable[[ItemOutcome], None] | None = None,
) -> list[ItemOutcome]:
    """Ask about `items` with at most `concurrency` requests in flight; store each result as it
    arrives. Raises FatalError (after cancelling the rest) when the server refuses every request."""
    if concurrency < 1:
        raise ValueError(f"--concurrency must be at least 1, not {concurrency}")
    semaphore = asyncio.Semaphore(concurrency)
    outcomes: list[ItemOutcome] = []
    unavailable_streak = 0

    async def ask(messages: list[dict[str, str]]) -> dict[str, Any]:
        async with semaphore:
            try:
                reply = await client.complete(messages)
            except FatalError:
                raise
            except SuggestError as exc:
                status = UNAVAILABLE if isinstance(exc, UnavailableError) else REQUEST_FAILED
                return {"content": exc.raw, "error": str(exc), "status": status}
        extra = {"model": reply.model, "finish_reason": reply.finish_reason, "usage": reply.usage,
                 "system_fingerprint": reply.system_fingerprint}
        return {"content": reply.content, "attempts": reply.attempts, **{k: v for k, v in extra.items() if v}}

    context = {"request": client.settings, "prompt": {"hash": prompt.hash, "source": prompt.source},
               "endpoint": client.endpoint, "annotate": __version__}

    async def one(item: Item) -> ItemOutcome:
        orders = ["AB", "BA"] if prompt.kind == "pairwise" else ["A"]
        try:
            requests = [prompt.messages(item, first=order[0]) for order in orders]
        except KeyError as exc:
            return _record_failure(store, client, item, source_model, prompt, f"cannot build the prompt: {exc}",
                                   [], context, REQUEST_FAILED)
        replies = await asyncio.gather(*(ask(m) for m in requests))
        for order, reply, messages in zip(orders, replies, requests, strict=True):
            reply["order"] = order
            if "error" not in reply:
                _read_verdict(reply, messages, prompt.kind, scale, client.config.max_tokens)
        first = replies[0]
        if first.get("verdict") is None:
            return _record_failure(store, client, item, source_model, prompt, first["error"], replies, context,
                                   first.get("status", NO_VERDICT), first.get("reason", ""))
        swapped = replies[1].get("verdict") if len(replies) > 1 else None
        store.add_suggestions([Suggestion(
            item_id=item.id, source_model=source_model, label=first["verdict"],
            rationale=client.redact(first["content"]), swapped_label=swapped, planted=False,
            prompt_hash=prompt.hash, raw=_raw(client, replies, context),
        )])
        return ItemOutcome(item.id, STORED, first["verdict"], swapped,
                           reason=replies[1].get("reason", "") if len(replies) > 1 else "")

    tasks = [asyncio.ensure_future(one(item)) for item in items]
    try:
        for future in asyncio.as_completed(tasks):
            outcome = await future
            outcomes.append(outcome)
            unavailable_streak = unavailable_streak + 1 if outcome.status == UNAVAILABLE else 0
            if progress is not None:
                progress(outcome)
            if unavailable_streak >= ABORT_AFTER_UNAVAILABLE:
                raise UnavailableError(
                    f"the server was unavailable for {unavailable_streak} items in a row ({outcome.error});"
                    " stopped. Run the command again to resume."
                )
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return outcomes


def _read_verdict(
    reply: dict[str, Any], messages: list[dict[str, str]], kind: str, scale: tuple[int, int], max_tokens: int | None,
) -> None:
    """Parse one reply (in place): its `verdict` in slot space, or `error` and `reason`."""
    verdict = parse_verdict(reply["content"], kind, scale, [m["content"] for m in messages])
    if verdict.echoed_chars:
        reply["echoed_chars"] = verdict.echoed_chars
    if verdict.label is not None:
        reply["verdict"] = flip(verdict.label) if reply["order"] == "BA" else verdict.label
        return
    reply["verdict"] = None
    reason, error = verdict.reason, verdict.error
    if reply.get("finish_reason") == "length":
        limit = f"max_tokens = {max_tokens}" if max_tokens is not None else "the server's token limit"
        if reason == ECHO:
            error = f"{error} (and it was cut off at {limit})"
        else:
            reason = CUT_OFF
            error = (f"cut off at {limit} (finish_reason: length) before a verdict; raise --max-tokens,"
                     f" or ask for a shorter answer ({verdict.error})")
    reply["reason"], reply["error"] = reason, error


def _raw(client: ChatClient, replies: list[dict[str, Any]], context: dict[str, Any], reason: str = "") -> str:
    """The replies and the settings they were asked with, as stored: JSON, the key scrubbed at any
    depth, without our own bookkeeping (`status`)."""
    data: dict[str, Any] = dict(context)
    if reason:
        data["reason"] = reason
    data["replies"] = [{k: v for k, v in r.items() if k != "status"} for r in replies]
    return json.dumps(client.redact(data), ensure_ascii=False, sort_keys=True)


def _record_failure(
    store: Store, client: ChatClient, item: Item, model: str, prompt: JudgePrompt, error: str,
    replies: list[dict[str, Any]], context: dict[str, Any], status: str, reason: str = "",
) -> ItemOutcome:
    error = client.redact(error)
    store.add_suggestion_failure(SuggestionFailure(item.id, model, prompt.hash, error,
                                                   _raw(client, replies, context, reason or status)))
    return ItemOutcome(item.id, status, error=error, reason=reason)


def suggest_session(
    store: Store,
    prompt: JudgePrompt,
    config: ClientConfig,
    *,
    scale: tuple[int, int] = (1, 10),
    concurrency: int = 4,
    limit: int | None = None,
    source_model: str | None = None,
    on_start: Callable[[int], None] | None = None,
    progress: Callable[[ItemOutcome], None] | None = None,
) -> RunSummary:
    """Ask the model about every pending item of the session (see the module docstring).

    `source_model` names the suggestions (default: `config.model`); `limit` asks about at most
    that many pending items; `on_start(n)` is called with the number about to be asked.
    FatalError propagates (nothing is lost: finished items are stored).
    """
    model = source_model or config.model
    items, skipped = pending_items(store, model, prompt)
    total = len(items) + skipped
    if limit is not None:
        items = items[:limit]
    client = ChatClient(config)  # reads the key now: an unset variable fails before any request
    if on_start is not None:
        on_start(len(items))
    outcomes: list[ItemOutcome] = []
    aborted = ""

    def record(outcome: ItemOutcome) -> None:
        outcomes.append(outcome)
        if progress is not None:
            progress(outcome)

    async def main() -> None:
        async with client:
            await suggest_items(
                store, items, prompt, client, source_model=model, scale=scale, concurrency=concurrency,
                progress=record,
            )

    try:
        asyncio.run(main())
    except UnavailableError as exc:
        aborted = str(exc)
    stored = [o for o in outcomes if o.status == STORED]
    no_verdict = [o for o in outcomes if o.status == NO_VERDICT]
    request_failed = [o for o in outcomes if o.request_failed]
    return RunSummary(
        total=total, skipped=skipped, stored=len(stored), failed=len(no_verdict) + len(request_failed),
        consistent=sum(1 for o in stored if o.consistent is True),
        inconsistent=sum(1 for o in stored if o.consistent is False),
        prompt_hash=prompt.hash, aborted=aborted,
        errors=tuple(f"{o.item_id}: {o.error}" for o in no_verdict[:5]),
        no_verdict=len(no_verdict), request_failed=len(request_failed),
        request_errors=tuple(f"{o.item_id}: {o.error}" for o in request_failed[:5]),
        echoed=sum(1 for o in no_verdict if o.reason == ECHO),
        cut_off=sum(1 for o in no_verdict if o.reason == CUT_OFF),
        contradictory=sum(1 for o in no_verdict if o.reason == CONTRADICTION),
        one_order=sum(1 for o in stored if o.swapped_label is None) if prompt.kind == "pairwise" else 0,
    )
