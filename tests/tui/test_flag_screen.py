"""The flag key and dialog on the item screen, and the item reference on the progress line."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotate.refs import item_ref
from annotate.store.flags import flags
from annotate.store.refs import ref_key
from annotate.tui import make_app
from annotate.tui.screens.flag import FlagDialog
from annotate.tui.widgets.progress_line import ProgressLine
from tests.tui.conftest import make_session, screen_render

SIZES = [(80, 24), (160, 48)]


def _size_id(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
async def test_flag_with_a_note_is_stored_and_shown(tmp_path: Path, size) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        first = app.screen.assignment
        ref = item_ref(ref_key(store), first.item_id)
        assert f"#{ref}" in screen_render(app)[0]
        await pilot.press("f")
        await pilot.pause()
        assert isinstance(app.screen, FlagDialog)
        await pilot.press("2", *"says 42 names", "enter")  # digits in the note are text
        await pilot.pause()
        assert not isinstance(app.screen, FlagDialog)
        text = screen_render(app)[0]
        assert "flagged: identity leak" in text
        await pilot.press("1", "enter")  # the flag is apart from the answer
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        assert "flagged: identity leak" in app.screen.query_one(ProgressLine).render().plain
    (flag,) = flags(store)
    assert (flag.kind, flag.note, flag.item_id, flag.annotator) == ("identity_leak", "says 42 names", first.item_id,
                                                                    "alice")
    assert [j.label for j in store.judgments("alice")] in (["A"], ["B"])
    kinds = [e.kind for e in store.events(first.id)]
    assert "flag.open" in kinds and "flag.add" in kinds
    store.close()


async def test_other_needs_a_note_and_escape_cancels(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("f", "5", "enter")
        await pilot.pause()
        assert isinstance(app.screen, FlagDialog)
        assert "needs a note" in screen_render(app)[0]
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, FlagDialog)
        await pilot.press("q")
        await pilot.pause()
    assert flags(store) == []
    assert "flag.cancel" in [e.kind for e in store.events()]
    store.close()


async def test_flags_are_read_back_and_can_be_withdrawn(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("f", "1", "enter", "q")
        await pilot.pause()
    assert len(flags(store)) == 1
    again = make_app(spec, store, "alice", open_guideline=False)
    async with again.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "flagged: broken item" in screen_render(again)[0]  # read with the queue's page
        await pilot.press("f")
        await pilot.pause()
        assert "Flagged already: broken item" in screen_render(again)[0]
        await pilot.press("w")
        await pilot.pause()
        assert "flagged:" not in again.screen.query_one(ProgressLine).render().plain
        await pilot.press("q")
        await pilot.pause()
    assert flags(store) == []
    (withdrawn,) = flags(store, include_cleared=True)
    assert withdrawn.cleared_by == "alice" and withdrawn.clear_note == "withdrawn"
    store.close()
