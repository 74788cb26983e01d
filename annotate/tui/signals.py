"""Stopping the app on SIGTERM or SIGHUP without losing an answer already submitted.

A submit is written on the store thread while the next item is already on screen, so for a few
milliseconds (or, when another process holds the session file's write lock, for as long as it
holds it) an answer is submitted but not yet written. Python's default for SIGHUP (the ssh
connection dropped) and SIGTERM is to die at once, losing it. Here both first wait until every
queued write has landed. After SIGTERM the app then quits as after `q` (the terminal is restored
and the usual line is printed); after SIGHUP there is no terminal left to restore, so the stop is
recorded in the session file (event `app.hangup` with what was saved), the sitting is ended, a
line goes to standard error if it still can, and the process leaves at once.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING

from annotate.model import Event
from annotate.store.store import BUSY_TIMEOUT_MS, utc_now

if TYPE_CHECKING:
    from annotate.tui.app import AnnotateApp

DRAIN_TIMEOUT_S = 4 * BUSY_TIMEOUT_MS / 1000
"""How long a signal waits for queued writes (each may wait out the busy timeout, and retries)."""
SIGNALS = (signal.SIGHUP, signal.SIGTERM)
REASONS = {signal.SIGHUP: "hangup", signal.SIGTERM: "terminated"}


@dataclass
class Stopped:
    """Which signal stopped the app, if one did."""

    signal: int | None = None
    drained: bool = True
    """Every queued write had landed when the app stopped."""

    @property
    def reason(self) -> str:
        return REASONS.get(self.signal, "") if self.signal is not None else ""


@contextmanager
def stop_on_signals(app: AnnotateApp) -> Iterator[Stopped]:
    """While the block runs (around `app.run()`), SIGHUP and SIGTERM stop `app` only after its
    queued writes have landed."""
    stopped = Stopped()

    def handler(signum: int, _frame: object) -> None:
        if stopped.signal is not None:
            return  # a second signal while the first one waits for the writes
        stopped.signal = signum
        app.halt_queue_fill()  # no chunk of a queue still being written is queued after the drain
        if signum != signal.SIGHUP:
            stopped.drained = app.runner.drain(DRAIN_TIMEOUT_S)
            app.exit()
            return
        try:  # the app may be half taken down already (the store thread closed): leave whatever happens
            stopped.drained = app.runner.drain(DRAIN_TIMEOUT_S)
            _record_hangup(app, stopped)
        finally:
            _leave_after_hangup(app, stopped)

    previous = {s: signal.signal(s, handler) for s in SIGNALS}
    try:
        yield stopped
    finally:
        for s, old in previous.items():
            signal.signal(s, old)


def _record_hangup(app: AnnotateApp, stopped: Stopped) -> None:
    """The stop in the session file (event `app.hangup`) and the sitting ended, on the store thread
    or, when the app has closed it already, on this one."""
    from annotate.store.sittings import close_sitting

    queue = app.queue
    answered = queue.done - queue.skipped
    payload = {"signal": "SIGHUP", "answered": answered, "skipped": queue.skipped, "total": len(queue),
               "unsaved": _unsaved(app, stopped)}
    event = Event(kind="app.hangup", mono_ns=app.clock(), wall_time=utc_now(), payload=payload,
                  annotator=app.annotator)
    try:
        _on_store(app, app.store.log_events, [event])
        if app.sitting is not None:
            _on_store(app, close_sitting, app.store, app.sitting, "hangup")
    except Exception:  # nothing more can be done without a terminal; what was submitted is written
        pass


def _on_store(app: AnnotateApp, func: Callable[..., object], *args: object) -> None:
    if app.runner.closed:
        func(*args)
    else:
        app.runner.call(func, *args).result(DRAIN_TIMEOUT_S)


def _unsaved(app: AnnotateApp, stopped: Stopped) -> int:
    return len(app.write_errors) + (0 if stopped.drained else app.runner.pending)


def _leave_after_hangup(app: AnnotateApp, stopped: Stopped) -> None:
    """A last line to standard error if it still can, and out at once: there is no terminal to restore."""
    try:
        queue = app.queue
        unsaved = _unsaved(app, stopped)
        saved = "all saved" if not unsaved else f"{unsaved} write(s) NOT saved"
        line = f"annotate: connection lost (SIGHUP): {queue.done - queue.skipped} of {len(queue)} answered, {saved}\n"
        with suppress(OSError):
            os.write(2, line.encode())
    finally:
        os._exit(128 + signal.SIGHUP)
