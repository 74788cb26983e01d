"""`annotate start` imports only what its first item needs before painting it.

Launch to the first item is a goal on a busy host (issue 15: <= 0.7 s with every core busy), and
every module imported before the first paint is paid there. Checked in a fresh interpreter from the
command line's own entry (`annotate.cli.main`), the app run headless and stopped at its first paint:
what `sys.modules` holds then is what an annotator waited for.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from annotate.model import Item, Message, Response
from annotate.plan import ensure_queue
from annotate.session import create_session, open_store

CHILD = """
import sys
import annotate.tui.app as tui_app

run = tui_app.AnnotateApp.run
loaded = []


def headless(self, *args, **kwargs):
    def painted(ns):
        if not loaded:
            loaded.extend(sorted(sys.modules))
            self.exit()
    self.painted_hooks.append(painted)
    return run(self, headless=True, size=(160, 48))


tui_app.AnnotateApp.run = headless
from annotate.cli import main

main(["start", "s", "--annotator", "alice"], standalone_mode=False)
print("LOADED", " ".join(loaded))
"""

NOT_BEFORE_THE_FIRST_ITEM = (
    "pandas", "numpy",
    # sqlite-utils and what it imports (store/database.py: ~0.13 s of CPU; the app imports it after the paint)
    "sqlite_utils", "dateutil", "pluggy",
    # the other commands' modules (the command line imports a command's module when it runs)
    "annotate.cli.analysis", "annotate.cli.data", "annotate.cli.flags", "annotate.cli.serve",
    "annotate.cli.sessions", "annotate.cli.suggestions", "annotate.cli.team", "annotate.cli.training",
)


def _loaded_at_first_paint(tmp_path: Path) -> set[str]:
    spec = create_session("s", "pairwise", folder=tmp_path / "sessions")
    with open_store(spec) as store:
        store.add_items([Item(id=f"i{k}", kind="pairwise", conversation=(Message("user", f"prompt {k}"),),
                              responses=(Response("A", "left **bold**", "m-a"), Response("B", "right", "m-b")))
                         for k in range(5)])
        ensure_queue(store, spec, "alice")  # alice resumes (a new annotator's first start writes a queue)
    result = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("LOADED "))
    return set(line.split()[1:])


def test_start_paints_its_first_item_before_importing_what_it_does_not_need(tmp_path: Path) -> None:
    loaded = _loaded_at_first_paint(tmp_path)
    assert "annotate.tui.app" in loaded and "annotate.cli.app" in loaded  # the check ran where it should
    assert sorted(loaded & set(NOT_BEFORE_THE_FIRST_ITEM)) == []


async def test_the_app_imports_sqlite_utils_on_its_store_thread_after_the_first_paint(tmp_path: Path) -> None:
    """A write needs sqlite-utils: the app makes it ready once the first item is painted, so the first
    submit does not pay for the import either."""
    from annotate.tui import make_app

    spec = create_session("s", "pairwise", folder=tmp_path / "sessions")
    with open_store(spec) as store:
        store.add_items([Item(id="i0", kind="pairwise", conversation=(Message("user", "prompt"),),
                              responses=(Response("A", "left", "m-a"), Response("B", "right", "m-b")))])
        ensure_queue(store, spec, "alice")
    with open_store(spec) as store:
        store.db = type(store.db)(store.db.conn)  # the store as Store.open makes it, before anything loaded it
        app = make_app(spec, store, "alice", open_guideline=False)
        painted: list[bool] = []
        app.painted_hooks.append(lambda ns: painted.append(store.db.loaded))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            app.runner.drain()
            assert painted[0] is False  # nothing before the paint needed it
            assert store.db.loaded
