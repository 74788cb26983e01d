"""The small values and errors the Store API hands back (store.py re-exports them), and the clock
and id helpers every store module stamps rows with."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from annotate.store.errors import StoreError


class ItemConflict(StoreError):
    """An item id already stored with different content."""


class StaleAssignment(StoreError):
    """A write for an assignment that is gone, or is no longer what was on screen (another item,
    sides, condition or suggestion): refused, so an answer is never filed on the wrong item."""


STALE_ANSWER = (
    "this answer was NOT saved: the item on screen is no longer in {annotator}'s queue as it was shown"
    " (the session was planned again while the app was open); open the queue again to go on"
)


def utc_now() -> str:
    """The current UTC time, ISO-8601 with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def new_uid() -> str:
    """A new unique id of a row (judgment, event, flag): 32 hex digits, the milliseconds since 1970
    then 80 random bits. Ids made one after the other sort in that order, so the unique index on
    uid grows at its end; a random id lands on a random page of an index that grows with the
    session, a page read and written again by every row (the write tail, docs/scaling.md)."""
    return f"{time.time_ns() // 1_000_000:012x}{secrets.token_hex(10)}"


@dataclass(frozen=True)
class AddResult:
    """What a bulk add did: rows added and rows already there unchanged."""

    added: int
    unchanged: int


@dataclass(frozen=True)
class Progress:
    """One annotator's progress through their queue."""

    total: int
    done: int
    skipped: int
    next_position: int | None
    """Position of the first assignment with no current judgment, or None when all are done."""


@dataclass(frozen=True)
class SuggestionFailure:
    """An LLM reply that gave no usable verdict for an item (`annotate suggest`)."""

    item_id: str
    source_model: str
    prompt_hash: str
    error: str
    """Why: no verdict found, HTTP status, timeout after retries..."""
    raw: str = ""
    """The reply (or replies, as JSON) verbatim; untrusted text."""
    created: str = ""
