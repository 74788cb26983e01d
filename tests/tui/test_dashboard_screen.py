"""The live dashboard (`annotate status --watch`): snapshots at 80x24 and 160x48, keys, untrusted
names, and a session written by another process while the dashboard runs."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from annotate.model import Assignment
from annotate.session import open_store
from annotate.tui.dashboard import DashboardApp, make_dashboard
from annotate.tui.widgets.annotator_table import AnnotatorTable
from tests.dashboard_util import build_session

ROOT = Path(__file__).resolve().parents[2]
FROZEN_NOW = 4102444800.0
"""2100-01-01 00:00 UTC: every judgment is older than the pace window, so the figures are fixed."""


def frozen_perf():
    ticks = iter(range(10**6))
    return lambda: next(ticks) * 0.025  # every refresh "takes" 25 ms


async def wait_refreshes(app: DashboardApp, n: int = 1, timeout: float = 20.0) -> None:
    async def done() -> None:
        while getattr(app.screen, "refreshes", 0) < n:
            await asyncio.sleep(0.02)

    await asyncio.wait_for(done(), timeout)
    await asyncio.sleep(0.05)


def cell(app: DashboardApp, annotator: str, column: str) -> str:
    table = app.screen.query_one(AnnotatorTable)
    return table.get_cell(annotator, column).plain


def watching(tmp_path: Path, **kwargs):
    spec, writer = build_session(tmp_path)
    writer.close()
    store = open_store(spec, read_only=True)
    kwargs.setdefault("interval", 3600.0)
    app = make_dashboard(spec, store, now=lambda: FROZEN_NOW, perf=frozen_perf(), **kwargs)
    return spec, store, app


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_dashboard_snapshot(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    _, store, app = watching(tmp_path)

    async def first_refresh(pilot) -> None:
        await wait_refreshes(app)
        await pilot.pause()

    try:
        assert snap_compare(app, terminal_size=size, run_before=first_refresh)
    finally:
        store.close()


async def test_narrow_terminal_drops_columns_in_the_stated_order(tmp_path: Path) -> None:
    _, store, app = watching(tmp_path)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_refreshes(app)
            table = app.screen.query_one(AnnotatorTable)
            narrow = [c.key for c in table.shown]
            await pilot.resize_terminal(160, 48)
            await pilot.pause()
            wide = [c.key for c in table.shown]
        assert "cohort" in wide and "pace_overall" in wide and "checks" in wide
        assert {"name", "working", "done", "pace", "gold", "attention", "fast"} <= set(narrow)
        assert "cohort" not in narrow and "pace_overall" not in narrow
        assert sum(len(c.header) + 4 for c in table.shown) <= 160
    finally:
        store.close()


async def test_keys_sort_and_refresh(tmp_path: Path) -> None:
    _, store, app = watching(tmp_path)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await wait_refreshes(app)
            table = app.screen.query_one(AnnotatorTable)
            names = [table.get_row_at(i)[0].plain for i in range(table.row_count)]
            assert names == ["alice", "bob", "carol", "dave"]
            await pilot.press("s", "s")  # the working column, then done: most done first
            await pilot.pause()
            assert app.screen.sort_key == "done" and app.screen.descending
            assert table.get_row_at(table.row_count - 1)[0].plain == "dave"
            await pilot.press("S")
            await pilot.pause()
            assert table.get_row_at(0)[0].plain == "dave"
            before = app.screen.refreshes
            await pilot.press("r")
            await wait_refreshes(app, before + 1)
            await pilot.press("q")
        assert app.return_code == 0
    finally:
        store.close()


async def test_untrusted_names_are_shown_as_text(tmp_path: Path) -> None:
    spec, writer = build_session(tmp_path)
    hostile = "[b]eve[/]\x1b[2J"
    writer.add_assignments([Assignment(0, hostile, "i0", 0)])
    writer.close()
    store = open_store(spec, read_only=True)
    app = make_dashboard(spec, store, interval=3600.0, now=lambda: FROZEN_NOW, perf=frozen_perf())
    try:
        async with app.run_test(size=(160, 48)):
            await wait_refreshes(app)
            shown = cell(app, hostile, "name")
        assert shown == "[b]eve[/]␛[2J"  # literal brackets, ESC as its picture
        assert "\x1b" not in shown
    finally:
        store.close()


WRITER = textwrap.dedent("""
    import sys, time
    from annotate.model import Assignment, Judgment, Timings
    from annotate.session import load_session, open_store
    from annotate.store import utc_now

    spec = load_session(sys.argv[1])
    with open_store(spec) as store:
        new = store.add_assignments([Assignment(0, "frank", f"i{k}", k) for k in range(4)])
        todo = new + [a for a in store.assignments("carol") if a.item_id == "i2"]
        for assignment in todo:
            timings = Timings(utc_now(), 100, 2500, 2000)
            store.submit(Judgment(assignment.id, "A", timings), shown=assignment)
            time.sleep(0.05)
    print("wrote", len(todo))
""")


async def test_numbers_follow_a_session_written_by_another_process(tmp_path: Path) -> None:
    spec, store, app = watching(tmp_path, interval=0.2)
    try:
        async with app.run_test(size=(160, 48)):
            await wait_refreshes(app)
            assert cell(app, "carol", "done") == "2/3"
            table = app.screen.query_one(AnnotatorTable)
            assert "frank" not in [table.get_row_at(i)[0].plain for i in range(table.row_count)]
            writer = await asyncio.to_thread(
                subprocess.run, [sys.executable, "-c", WRITER, str(spec.path)], cwd=ROOT, capture_output=True,
                text=True, timeout=120,
            )
            assert writer.returncode == 0, writer.stderr
            assert writer.stdout.strip() == "wrote 5"
            seen = app.screen.refreshes
            assert seen >= 2  # it went on refreshing while the other process wrote
            await wait_refreshes(app, seen + 2)
            assert cell(app, "carol", "done") == "3/3"
            assert cell(app, "frank", "done") == "4/4"
            assert cell(app, "frank", "fast") == "100%"  # 2 s of active time: under the report's 3 s
            assert "refresh failed" not in str(app.screen.query_one("#dash-refresh").render())
    finally:
        store.close()
