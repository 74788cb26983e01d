"""A write that lands while the item screen is being taken down (after `q`) updates nothing and raises
nothing: the progress line may already be gone."""

from __future__ import annotations

from pathlib import Path

from annotate.tui import make_app
from annotate.tui.widgets.progress_line import ProgressLine
from tests.tui.conftest import make_session


async def test_a_write_landing_after_the_progress_line_is_gone_is_ignored(tmp_path: Path) -> None:
    spec, store = make_session(tmp_path)
    app = make_app(spec, store, "alice", open_guideline=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        await screen.query_one(ProgressLine).remove()  # what the screen's teardown does first
        app._refresh_progress()  # the app's handler for a write that landed
        await pilot.pause()
        assert not screen.query(ProgressLine)
    store.close()
