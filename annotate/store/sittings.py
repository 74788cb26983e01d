"""Sittings: who has the annotation app open on a session, where, and since when.

One annotator works in one sitting at a time: a second `annotate start` for the same name (another
terminal, another browser tab) is refused while the first is alive, instead of silently racing it
for the same queue. A sitting is alive while its app beats (`heartbeat`, every HEARTBEAT_S); one
left by a crashed app expires STALE_AFTER_S after its last beat, or at once when its process is
known to be gone (same host, no such process).
"""

from __future__ import annotations

import os
import secrets
import socket
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from annotate.store.store import Store, StoreError, utc_now

HEARTBEAT_S = 10.0
"""How often an open app says it is alive."""
STALE_AFTER_S = 60.0
"""A sitting with no beat for this long is taken to be a crashed app's, and no longer blocks."""
DISPLAYS = ("terminal", "browser")


class SittingBusy(StoreError):
    """The annotator already has the app open elsewhere."""


@dataclass(frozen=True)
class Sitting:
    """One open app: its row in `sittings`."""

    id: int
    annotator: str
    token: str
    host: str
    pid: int
    display: str
    """`terminal` or `browser`."""
    terminal: str | None
    started: str
    heartbeat_unix: float


def open_sitting(
    store: Store, annotator: str, display: str = "terminal", *, terminal: str | None = None,
    host: str | None = None, pid: int | None = None, now: float | None = None,
) -> Sitting:
    """Start a sitting for `annotator` (created as an expert if new), or raise SittingBusy naming
    the live one. Expired sittings of the annotator are closed on the way (end_reason `expired`)."""
    if display not in DISPLAYS:
        raise ValueError(f"display {display!r}: expected one of {', '.join(DISPLAYS)}")
    host = host or socket.gethostname()
    pid = os.getpid() if pid is None else pid
    now = time.time() if now is None else now
    annotator_id = store.ensure_annotator(annotator).id
    token = secrets.token_hex(16)
    with store.transaction() as db:
        for other in _open_rows(store, annotator_id):
            if _alive(other, now):
                raise SittingBusy(_busy_message(other))
            db.execute(
                "UPDATE sittings SET ended = ?, end_reason = 'expired' WHERE id = ? AND ended IS NULL",
                [utc_now(), other.id],
            )
        started = utc_now()
        cursor = db.execute(
            "INSERT INTO sittings (annotator_id, token, host, pid, display, terminal, started, heartbeat,"
            " heartbeat_unix) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [annotator_id, token, host, pid, display, terminal, started, started, now],
        )
    return Sitting(int(cursor.lastrowid or 0), annotator, token, host, pid, display, terminal, started, now)


def heartbeat(store: Store, sitting: Sitting, now: float | None = None) -> None:
    """Say the sitting's app is alive."""
    now = time.time() if now is None else now
    with store.transaction() as db:
        db.execute(
            "UPDATE sittings SET heartbeat = ?, heartbeat_unix = ? WHERE id = ? AND ended IS NULL",
            [utc_now(), now, sitting.id],
        )


def close_sitting(store: Store, sitting: Sitting, reason: str = "quit") -> None:
    """End the sitting (the app quit, or was stopped by a signal: `reason` says which)."""
    with store.transaction() as db:
        db.execute(
            "UPDATE sittings SET ended = ?, end_reason = ? WHERE id = ? AND ended IS NULL",
            [utc_now(), reason, sitting.id],
        )


def live_sittings(store: Store, now: float | None = None) -> list[Sitting]:
    """Every sitting that is open and alive (for `status` and the dashboard)."""
    now = time.time() if now is None else now
    rows = store.db.execute(_SELECT + " WHERE s.ended IS NULL ORDER BY s.id").fetchall()
    return [s for s in (_sitting(r) for r in rows) if _alive(s, now)]


_SELECT = (
    "SELECT s.id, n.name, s.token, s.host, s.pid, s.display, s.terminal, s.started, s.heartbeat_unix"
    " FROM sittings s JOIN annotators n ON n.id = s.annotator_id"
)


def _sitting(row: tuple) -> Sitting:
    return Sitting(int(row[0]), row[1], row[2], row[3], int(row[4]), row[5], row[6], row[7], float(row[8]))


def _open_rows(store: Store, annotator_id: int) -> list[Sitting]:
    rows = store.db.execute(_SELECT + " WHERE s.annotator_id = ? AND s.ended IS NULL", [annotator_id]).fetchall()
    return [_sitting(r) for r in rows]


def _alive(sitting: Sitting, now: float) -> bool:
    if now - sitting.heartbeat_unix > STALE_AFTER_S:
        return False
    if sitting.host == socket.gethostname():
        return _process_exists(sitting.pid)
    return True


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True


def _busy_message(other: Sitting) -> str:
    since = datetime.fromisoformat(other.started).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    where = "in a browser" if other.display == "browser" else "in a terminal"
    tty = f", {other.terminal}" if other.terminal else ""
    return (
        f"{other.annotator} already has this session open {where} (since {since}, host {other.host},"
        f" process {other.pid}{tty}); quit it there first. A sitting left by a crashed app stops counting"
        f" {int(STALE_AFTER_S)} s after its last sign of life"
    )
