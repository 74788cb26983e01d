"""One annotator, one sitting: a second start is refused while the first app is alive; a sitting
left by a crashed app expires."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from annotate.store import Store
from annotate.store.sittings import (
    STALE_AFTER_S,
    SittingBusy,
    close_sitting,
    heartbeat,
    live_sittings,
    open_sitting,
)


def test_a_second_sitting_is_refused_with_where_the_first_one_is(store: Store) -> None:
    first = open_sitting(store, "alice", terminal="/dev/pts/7")
    with pytest.raises(SittingBusy) as refused:
        open_sitting(store, "alice")
    message = str(refused.value)
    assert "alice already has this session open in a terminal" in message
    assert f"process {first.pid}" in message and "/dev/pts/7" in message
    assert "\n" not in message
    other = open_sitting(store, "bob")  # someone else is not blocked
    assert [s.annotator for s in live_sittings(store)] == ["alice", "bob"]
    close_sitting(store, first)
    close_sitting(store, other)
    again = open_sitting(store, "alice", display="browser")
    assert again.display == "browser"


def test_a_sitting_without_heartbeat_expires(store: Store) -> None:
    now = time.time()
    old = open_sitting(store, "alice", host="elsewhere", pid=1, now=now - STALE_AFTER_S - 5)
    with pytest.raises(SittingBusy):  # on another host: alive until its heartbeat is stale...
        open_sitting(store, "alice", now=now - STALE_AFTER_S + 1)
    fresh = open_sitting(store, "alice", now=now)  # ...after which it no longer counts
    ended = dict(store.db.execute("SELECT id, end_reason FROM sittings").fetchall())
    assert ended[old.id] == "expired" and ended[fresh.id] is None


def test_a_heartbeat_keeps_a_sitting_alive(store: Store) -> None:
    now = time.time()
    sitting = open_sitting(store, "alice", host="elsewhere", pid=1, now=now - STALE_AFTER_S - 5)
    heartbeat(store, sitting, now=now - 1)
    with pytest.raises(SittingBusy):
        open_sitting(store, "alice", now=now)


def test_a_sitting_of_a_process_that_is_gone_expires_at_once(store: Store) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(gone.stdout)
    open_sitting(store, "alice", pid=dead_pid)  # this host, a process that exited: a crashed app
    assert live_sittings(store) == []
    open_sitting(store, "alice")
