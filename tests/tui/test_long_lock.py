"""Another program holding the session's write lock past the busy timeout (a large import swapping
its rows in): the app's submit waits, says so on the progress line, and lands once the lock is free,
on the item it was made on; nothing is dropped, shown as NOT SAVED or filed out of order."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

import annotate.store.store as store_module
from annotate.store import Store
from annotate.tui import make_app
from annotate.tui.app import WAITING_STATUS
from annotate.tui.patient import is_lock_timeout, patiently
from tests.tui.conftest import make_session, pairwise_item

SIZE = (160, 48)


async def test_a_submit_waits_out_a_hold_longer_than_the_busy_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_MS", 300)  # a short busy timeout: the hold lasts four
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(6)])
    app = make_app(spec, store, "alice", open_guideline=False)
    importer = Store.open(spec.db)
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with importer.transaction():
            holding.set()
            release.wait(30)

    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown = [app.screen.assignment.item_id]
        holder = threading.Thread(target=hold)
        holder.start()
        assert holding.wait(10)
        await pilot.press("1", "enter")
        await pilot.pause()
        shown.append(app.screen.assignment.item_id)
        await pilot.press("2", "enter")  # a second answer queued behind the waiting one
        deadline = time.monotonic() + 10
        while app.save_status != WAITING_STATUS and time.monotonic() < deadline:
            await pilot.pause(0.05)
        assert app.save_status == WAITING_STATUS
        time.sleep(1.2)  # four busy timeouts: the write is tried again, not given up
        assert not app.write_errors
        release.set()
        holder.join()
        app.runner.drain()
        await pilot.pause()
        await pilot.pause()
        assert app.save_status == "Saved", app.save_status
        assert not app.write_errors
    saved = sorted(j.assignment_id for j in store.judgments("alice"))
    by_item = {a.item_id: a.id for a in store.assignments("alice")}
    assert saved == sorted(by_item[item_id] for item_id in shown)  # each on the item it was made on
    importer.close()
    store.close()


def test_patiently_tries_again_only_while_the_lock_is_held_elsewhere() -> None:
    tries: list[int] = []
    waits: list[int] = []

    def flaky() -> str:
        tries.append(1)
        if len(tries) < 3:
            raise sqlite3.OperationalError("database is locked")
        return "written"

    assert patiently(flaky, lambda: waits.append(1), pause_s=0.0)() == "written"
    assert len(tries) == 3 and len(waits) == 1  # said once, however many tries

    def broken() -> None:
        tries.append(1)
        raise sqlite3.OperationalError("disk I/O error")

    tries.clear()
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        patiently(broken, lambda: waits.append(1), pause_s=0.0)()
    assert len(tries) == 1 and len(waits) == 1  # any other error is the caller's at once
    assert is_lock_timeout(sqlite3.OperationalError("database is locked"))
    assert not is_lock_timeout(sqlite3.OperationalError("database disk image is malformed"))
    assert not is_lock_timeout(ValueError("database is locked"))


def test_patiently_gives_up_after_its_limit_with_the_lock_error() -> None:
    tries: list[int] = []

    def held() -> None:
        tries.append(1)
        raise sqlite3.OperationalError("database is locked")

    began = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="database is locked"):
        patiently(held, lambda: None, pause_s=0.01, give_up_s=0.2)()
    assert 0.2 <= time.monotonic() - began < 5 and len(tries) > 2  # tried again, then the error as before
