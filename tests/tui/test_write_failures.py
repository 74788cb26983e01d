"""A write the annotation screen cannot make (a full disk, the -wal file deleted under it): the
progress line says NOT SAVED with the reason, the app carries on, and it never crashes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from annotate.tui import make_app
from tests.tui.conftest import make_session, pairwise_item

SIZE = (160, 48)


async def test_a_full_disk_shows_not_saved_with_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(40)])
    app = make_app(spec, store, "alice", open_guideline=False)
    pages = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count = {pages}")  # the file cannot grow by a page: SQLITE_FULL
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(40):
            await pilot.press("1", "enter")
            await pilot.pause()
            app.runner.drain()
            await pilot.pause()
            if app.write_errors:
                break
        assert app.write_errors, "the file never filled up"
        assert app.save_status.startswith("NOT SAVED: item")
        error = app.write_errors[0]
        assert error.startswith("sessions/t.db: the disk is full (or the file reached its size limit): nothing of"
                                " this change was written"), error
        notes = [n.message for n in app._notifications]
        assert any("Could not save item" in n and "the disk is full" in n for n in notes), notes
        store.db.execute("PRAGMA max_page_count = 1000000")  # space again: the next answer is saved
        await pilot.press("1", "enter")
        await pilot.pause()
        app.runner.drain()
        await pilot.pause()
    saved = store.judgments("alice")
    assert len(saved) == app.queue.done  # what the app counts as answered is what the file holds
    store.close()


async def test_a_deleted_wal_file_shows_not_saved_and_stops_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    spec, store = make_session(tmp_path, items=[pairwise_item(i) for i in range(6)])
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("1", "enter")
        await pilot.pause()
        app.runner.drain()
        await pilot.pause()
        assert app.save_status == "Saved" and not app.write_errors
        os.unlink(f"{spec.db}-wal")
        await pilot.press("2", "enter")
        await pilot.pause()
        app.runner.drain()
        await pilot.pause()
        assert app.save_status.startswith("NOT SAVED"), app.save_status
        assert app.write_errors[0].startswith("sessions/t.db-wal was deleted (or replaced) while this program had"
                                              " the session open: it writes nothing more"), app.write_errors[0]
    store.close()  # a normal close: what it saved before is written into the file now
    from annotate.store import Store

    with Store.open(spec.db) as reopened:
        assert len(reopened.judgments("alice")) == 1


async def test_an_item_that_cannot_be_read_is_said_and_the_sitting_goes_on(tmp_path: Path) -> None:
    """A page of the items table goes bad while the app is open (a failing disk): going to an item
    stored there shows why it cannot be read, and the annotator stays on the item on screen."""
    from annotate.tui.screens.item import ItemScreen

    items = [pairwise_item(i, a=f"A{i} " + "long answer text " * 200) for i in range(40)]
    spec, store = make_session(tmp_path, items=items)
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ItemScreen)
        shown = screen.item
        last = items[-1].id
        target = next(i for i in range(len(app.queue)) if app.queue.assignments[i].item_id == last)
        data = bytearray(spec.db.read_bytes())
        page = int.from_bytes(data[16:18], "big")
        keep = len(data) * 3 // 4 // page * page  # the last quarter of the file: the last items' pages
        data[keep:] = bytes(len(data) - keep)
        spec.db.write_bytes(bytes(data))
        screen.go_to(target)
        await pilot.pause()
        assert screen.item is shown  # still on the item that was on screen
        notes = [n.message for n in app._notifications]
        assert any(f"Could not read item {target + 1}" in n for n in notes), notes
        assert "\n" not in next(n for n in notes if "Could not read" in n)
    store.close()
