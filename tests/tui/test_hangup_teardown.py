"""A SIGHUP that lands while the app is being taken down (its store thread already closed).

The kernel sends SIGHUP when the terminal goes away; after `q` it can arrive once the app has closed
the thread its Store calls run on. The handler then used to fail on that closed thread, so the process
neither recorded the stop nor left. Now it waits for what was queued, records the stop on the
calling thread, ends the sitting and leaves with 128 + SIGHUP.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from annotate.store import Store
from annotate.tui.queue import StoreRunner
from tests.tui.test_kill_app import new_session

CHILD = """
import asyncio, os, signal, sys, time
from annotate.session import open_store
from annotate.spec import load_spec
from annotate.store.sittings import open_sitting
from annotate.tui import make_app
from annotate.tui.signals import stop_on_signals

spec = load_spec(sys.argv[1])
store = open_store(spec)
sitting = open_sitting(store, "alice")
app = make_app(spec, store, "alice", sitting=sitting, open_guideline=False)

async def run() -> None:
    async with app.run_test() as pilot:
        await pilot.pause()

asyncio.run(run())
assert app.runner.closed, "the app did not close its store thread"
with stop_on_signals(app):
    os.kill(os.getpid(), signal.SIGHUP)
    time.sleep(10)
print("the hangup did not stop the process")
sys.exit(3)
"""


def test_a_hangup_after_the_store_thread_closed_records_the_stop_and_leaves(tmp_path: Path) -> None:
    spec = new_session(tmp_path, n_items=5)
    proc = subprocess.run([sys.executable, "-c", CHILD, str(spec.path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 129, proc.stdout + proc.stderr
    assert "connection lost (SIGHUP)" in proc.stderr
    with Store.open(spec.db) as store:
        reasons = [r[0] for r in store.db.execute("SELECT end_reason FROM sittings ORDER BY id")]
        assert reasons == ["hangup"]
        (event,) = [e for e in store.events() if e.kind == "app.hangup"]
        assert event.payload["unsaved"] == 0


def test_drain_waits_for_the_last_call_even_after_close(tmp_path: Path) -> None:
    spec = new_session(tmp_path, n_items=1)
    with Store.open(spec.db) as store:
        runner = StoreRunner(store)
        release = threading.Event()
        done: list[str] = []
        runner.call(release.wait, 5)
        runner.call(done.append, "second")
        closer = threading.Thread(target=runner.close)
        closer.start()
        time.sleep(0.05)
        assert runner.closed
        assert not runner.drain(0.05), "drain returned while a call was still queued"
        release.set()
        assert runner.drain(5) and done == ["second"]
        closer.join(5)
        try:
            runner.call(done.append, "late")
        except RuntimeError:
            pass
        else:
            raise AssertionError("a call was queued on a closed runner")
