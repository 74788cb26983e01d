"""Building and running the annotation app: the `make_app` factory (queue, guideline and the
design it was read under), and `run_app` / `run_in_sitting`, which run it in a sitting of the
annotator and say why a queue is empty. app.py re-exports these names."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from annotate.guidelines import Guideline, GuidelineError, load_guideline
from annotate.plan import PLAN_META_KEY
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.store.sittings import Sitting
from annotate.tui.queue import Queue
from annotate.tui.queue_fill import QueueFill
from annotate.tui.summary import SittingSummary
from annotate.tui.themes import theme_name

if TYPE_CHECKING:
    from annotate.tui.app import AnnotateApp


def make_app(
    spec: SessionSpec, store: Store, annotator: str, *, guideline: Guideline | None = None,
    clock: Callable[[], int] = time.monotonic_ns, sitting_clock: Callable[[], float] = time.monotonic,
    open_guideline: bool | None = None, sitting: Sitting | None = None, theme: str | None = None,
    queue_chunk_rows: int | None = None,
) -> AnnotateApp:
    """The app for `annotator` on the session `spec` stored in `store` (already open).

    Creates the annotator's default queue when they have none: the first chunk before the app opens
    (the whole queue when it is small), the rest a chunk at a time while the annotator works
    (`annotate.tui.queue_fill`; `queue_chunk_rows` as in `DefaultQueueWriter`). `guideline` defaults to the
    session's (loaded from the project's `guidelines/` or the shipped ones). `open_guideline`
    defaults to True on an annotator's first item, when they have no judgment yet. The app
    watches the plan: when the lead plans the session again while it is open, it reads the queue
    again and goes on in the new one.
    """
    from annotate.tui.app import DESIGN_KEYS, AnnotateApp  # app.py imports this module

    fill = QueueFill(store, spec, annotator, chunk_rows=queue_chunk_rows)

    def load() -> Queue:  # on the store thread, when the app reads its queue again
        fill.resume()
        return Queue(store, annotator)

    hashes = tuple(store.get_meta(k) for k in DESIGN_KEYS)
    fill.begin()
    queue = Queue(store, annotator)
    guideline, error = session_guideline(spec, guideline)
    app = AnnotateApp(
        spec, store, annotator, queue, guideline, guideline_error=error,
        clock=clock, sitting_clock=sitting_clock, open_guideline=open_guideline,
        load_queue=load, sitting=sitting, design_hashes=hashes, queue_fill=fill,
    )
    from annotate.store.training import training_state

    app.training = training_state(store, spec, annotator)
    if theme:
        app.theme = theme_name(theme)
    return app


def session_guideline(spec: SessionSpec, guideline: Guideline | None) -> tuple[Guideline | None, str]:
    """The guideline to show (the given one, else the session's) and, when it cannot be loaded, why."""
    if guideline is not None:
        return guideline, ""
    try:
        return load_guideline(spec.guideline, spec.project_dir), ""
    except (GuidelineError, OSError) as exc:
        return None, str(exc)


def run_app(
    spec: SessionSpec, annotator: str, db: Path | None = None, *, display: str = "terminal",
    theme: str | None = None,
) -> SittingSummary:
    """Open the session's store, run the app until the annotator quits, close the store; return
    what the queue holds then (the CLI prints it).

    The guideline is loaded first: a missing or broken one (no front matter, say) is a GuidelineError
    naming the file and line before the session file is opened, so nothing is written and no
    judgment is made without the guideline version it should carry. The file must be this
    session's (`annotate.session.check_identity`).
    """
    from annotate.session import check_identity, session_taxonomy

    theme = theme_name(theme) if theme else None  # a bad name is refused before the file is opened
    guideline = load_guideline(spec.guideline, spec.project_dir)
    session_taxonomy(spec, guideline)  # a taxonomy that cannot be used is refused before the file is opened
    with Store.open(db or spec.db) as store:
        store.require_writable("annotating writes to it")
        check_identity(spec, store)

        def empty() -> str:
            return no_queue_message(store, spec, annotator)

        if no_queue(store, annotator):  # refused before anything is written (no annotator row, no sitting)
            raise ValueError(empty())
        return run_in_sitting(
            store, annotator,
            lambda sitting: make_app(spec, store, annotator, guideline=guideline, sitting=sitting, theme=theme),
            empty, display=display,
        )


def no_queue(store: Store, annotator: str) -> bool:
    """Whether `annotator` would open an empty queue: the session has no items, or a plan that
    does not name them."""
    from annotate.store.queues import queue_counts

    if store.newest_item_rowid() == 0:
        return True
    return bool(store.get_meta(PLAN_META_KEY)) and queue_counts(store, annotator).total == 0


def no_queue_message(store: Store, spec: SessionSpec, annotator: str) -> str:
    """Why `annotator` has nothing to do, with the names the plan gives (and the closest one)."""
    import difflib
    import json

    from annotate.safe_text import one_line

    head = f"{one_line(repr(annotator))} has no items in session {spec.name!r}: "
    if not store.get_meta(PLAN_META_KEY):
        return head + "the session has no items yet (see `annotate import`)"
    raw = store.get_meta("plan_inputs")
    names = sorted(json.loads(raw).get("annotators", [])) if raw else []
    close = difflib.get_close_matches(annotator, names, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    listed = f"; the plan names {', '.join(names)}" if names else ""
    return head + f"the plan does not name them (see `annotate plan`){listed}{hint}"


def run_in_sitting(
    store: Store, annotator: str, build: Callable[[Sitting], AnnotateApp], empty: Callable[[], str],
    *, display: str = "terminal",
) -> SittingSummary:
    """Run an app built by `build` in a sitting of `annotator` until it stops; the summary after.

    The sitting is taken first (SittingBusy, naming the other one, when the annotator has the
    session open elsewhere) and ended when the app stops. An app with an empty queue does not run
    (ValueError with `empty()`). SIGTERM and SIGHUP (an ssh connection dropped) stop the app only
    after every answer already submitted has been written (`annotate.tui.signals`).
    """
    from annotate.store.sittings import close_sitting, open_sitting
    from annotate.tui.signals import stop_on_signals

    sitting = open_sitting(store, annotator, display, terminal=_terminal_name())
    reason = "quit"
    try:
        app = build(sitting)
        if not len(app.queue):
            raise ValueError(empty())
        with stop_on_signals(app) as stopped:
            app.run()
        reason = stopped.reason or reason
        if app.return_code not in (None, 0) and stopped.signal is None:
            raise SystemExit(app.return_code)
        unwritten = app.queue_fill.remaining if app.queue_fill is not None else 0
        return SittingSummary.of(app.queue, unsaved=len(app.write_errors), stale=app.stale_answers,
                                 stopped_by=stopped.reason, unwritten=unwritten)
    finally:
        close_sitting(store, sitting, reason)


def _terminal_name() -> str | None:
    """The controlling terminal's device (/dev/pts/3), to name a sitting by; None without one."""
    import os
    import sys

    try:
        return os.ttyname(sys.stdin.fileno())
    except (OSError, ValueError, AttributeError):
        return None
