"""The live dashboard app (`annotate status SESSION --watch`), built by `make_dashboard`.

It only reads: the store it is given is opened read-only (`open_store(spec, read_only=True)`),
so watching never migrates the file, writes to it or takes its write lock, and annotators' saves
never wait for it. The screen (`annotate.tui.screens.dashboard`) owns the keys and the refreshes.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.app import App

from annotate.dashboard import PACE_WINDOW_MIN
from annotate.spec import SessionSpec
from annotate.store import Store
from annotate.tui.screens.dashboard import DashboardScreen
from annotate.tui.terminal_driver import TerminalDriverChoice

DEFAULT_INTERVAL_S = 2.0
"""Seconds between two refreshes unless told otherwise (`--interval`)."""


class DashboardApp(TerminalDriverChoice, App[None]):
    """A session's annotators, live."""

    CSS_PATH = "app.tcss"
    TITLE = "annotate status --watch"
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self, spec: SessionSpec, store: Store, *, interval: float, window_min: float,
        now: Callable[[], float], perf: Callable[[], float],
    ) -> None:
        super().__init__()
        self.spec = spec
        self.store = store
        """Read by the refresh worker only, one refresh at a time."""
        self.interval = interval
        """Seconds between refreshes."""
        self.window_min = window_min
        """Minutes of the recent pace."""
        self.now = now
        """Unix seconds the figures are taken at (tests freeze it)."""
        self.perf = perf
        """A clock in seconds for how long a refresh took (tests freeze it)."""

    def on_mount(self) -> None:
        self.push_screen(DashboardScreen())


def make_dashboard(
    spec: SessionSpec, store: Store, *, interval: float = DEFAULT_INTERVAL_S, window_min: float = PACE_WINDOW_MIN,
    now: Callable[[], float] = time.time, perf: Callable[[], float] = time.perf_counter,
) -> DashboardApp:
    """The dashboard on `store` (open, preferably read-only), refreshing every `interval` seconds."""
    if not interval > 0:
        raise ValueError(f"--interval {interval:g}: expected a positive number of seconds")
    if not window_min > 0:
        raise ValueError(f"--window {window_min:g}: expected a positive number of minutes")
    return DashboardApp(spec, store, interval=interval, window_min=window_min, now=now, perf=perf)


def run_dashboard(spec: SessionSpec, *, interval: float = DEFAULT_INTERVAL_S,
                  window_min: float = PACE_WINDOW_MIN) -> None:
    """Open the session read-only and show the dashboard until q."""
    from annotate.session import open_store

    with open_store(spec, read_only=True) as store:
        make_dashboard(spec, store, interval=interval, window_min=window_min).run()
