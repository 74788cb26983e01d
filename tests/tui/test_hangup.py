"""An ssh connection that drops, or a SIGTERM, while another process holds the session's write lock.

`annotate start` runs in a real terminal (tmux). Another process takes the write lock and holds it
for a few seconds; the annotator submits two answers, which wait on the store thread (`Saving…`);
then the terminal goes away (tmux kills the window: the app gets SIGHUP and loses its terminal) or
the app gets SIGTERM. Both answers must be in the file once the lock is released, the stop recorded,
and the sitting ended, so the annotator can start again at once.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from annotate.store import Store
from tests.tui.test_kill_app import Tmux, _alive, new_session

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

HOLD_S = 4.0
"""How long the other process holds the write lock."""


def _command() -> str:
    annotate = Path(sys.executable).with_name("annotate")
    if annotate.exists():
        return f"'{annotate}' start kill --annotator alice"
    return f"'{sys.executable}' -m annotate start kill --annotator alice"


def _hold_lock(db: Path) -> subprocess.Popen[str]:
    """Another process that takes the write lock, says so, holds it HOLD_S seconds and commits."""
    code = (
        "import sqlite3, sys, time\n"
        f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
        "c.execute('BEGIN IMMEDIATE')\n"
        "print('locked', flush=True)\n"
        f"time.sleep({HOLD_S})\n"
        "c.execute('COMMIT')\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def _wait_gone(pid: int, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} still running after {seconds} s")


@pytest.mark.parametrize("how", ["hangup", "terminated"])
def test_answers_waiting_on_a_locked_file_survive_the_stop(tmp_path: Path, how: str) -> None:
    spec = new_session(tmp_path, n_items=12)
    term = Tmux(tmp_path)
    try:
        pid = term.open("s", _command())
        term.wait_for("s", "both responses are behind it")
        term.keys("s", "g")
        holder = _hold_lock(spec.db)
        started = time.monotonic()
        term.keys("s", "1", "Enter")
        term.wait_for("s", "Item 2 of 12")
        term.keys("s", "2", "Enter")
        screen = term.wait_for("s", "Item 3 of 12")
        assert "Saving" in screen and time.monotonic() - started < HOLD_S, "the writes did not wait on the lock"
        if how == "hangup":
            term.tmux("kill-session", "-t", "s")  # the terminal is gone: SIGHUP, and no tty left
        else:
            os.kill(pid, signal.SIGTERM)
        _wait_gone(pid)
        holder.wait(30)
    finally:
        term.close()
    with Store.open(spec.db) as store:
        assert [j.label for j in store.judgments("alice")] != []
        assert len(store.judgments("alice")) == 2
        assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        reasons = [r[0] for r in store.db.execute("SELECT end_reason FROM sittings ORDER BY id")]
        assert reasons == [how]
        if how == "hangup":
            (event,) = [e for e in store.events() if e.kind == "app.hangup"]
            assert event.payload["answered"] == 2 and event.payload["unsaved"] == 0


def test_one_annotator_cannot_open_the_same_session_twice(tmp_path: Path) -> None:
    spec = new_session(tmp_path, n_items=6)
    term = Tmux(tmp_path)
    try:
        pid = term.open("first", _command())
        term.wait_for("first", "Item 1 of 6")
        second = subprocess.run(_command().replace("'", "").split(), cwd=tmp_path, capture_output=True,
                                text=True, timeout=60)
        assert second.returncode != 0
        message = second.stderr.strip().splitlines()
        assert len(message) == 1, second.stderr
        assert "alice already has this session open in a terminal" in message[0]
        assert f"process {pid}" in message[0] and "quit it there first" in message[0]
        term.keys("first", "q")
        _wait_gone(pid)
    finally:
        term.close()
    with Store.open(spec.db) as store:  # quitting ended the sitting: the next start is allowed
        assert [r[0] for r in store.db.execute("SELECT end_reason FROM sittings")] == ["quit"]
