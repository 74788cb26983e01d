"""DashboardScreen: the live view of a session's annotators (`annotate status --watch`).

Every `interval` seconds (and on `r`) a thread worker takes a snapshot (`annotate.dashboard`) on
the app's read-only store and posts it back; the event loop only fills the table. A refresh is
never started while one is still running (one connection, used by one thread at a time). Keys:
q quits, r refreshes now, s sorts by the next column, S reverses the order.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.events import Resize
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from annotate.dashboard import Snapshot, take_snapshot
from annotate.safe_text import one_line
from annotate.store.health import describe
from annotate.tui.widgets.annotator_table import AnnotatorTable, columns

if TYPE_CHECKING:
    from annotate.tui.dashboard import DashboardApp


class DashboardScreen(Screen[None]):
    """The annotators' figures, refreshed on a timer."""

    @dataclass
    class Refreshed(Message):
        """A refresh finished (sent from the worker thread)."""

        snapshot: Snapshot | None
        seconds: float
        """How long taking the snapshot took."""
        error: str = ""
        """Why it failed ("" when it did not)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "app.quit", "Quit", id="dashboard-quit"),
        Binding("r", "refresh_now", "Refresh now", id="dashboard-refresh"),
        Binding("s", "sort_next", "Sort by the next column", id="dashboard-sort"),
        Binding("S", "sort_reverse", "Reverse the order", id="dashboard-reverse"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.snapshot: Snapshot | None = None
        """The figures on screen; None until the first refresh lands."""
        self.refreshes = 0
        """Refreshes that landed (tests wait on it)."""
        self.sort_key = "name"
        self.descending = False
        self._refreshing = False
        self._refresh_again = False
        self._refresh_seconds = 0.0
        self._refresh_error = ""

    @property
    def dash(self) -> DashboardApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Static(self._title_text(), id="dash-title")
        yield Static(Text("reading the session…"), id="dash-summary")
        yield AnnotatorTable(id="dash-table")
        yield Static(Text(""), id="dash-refresh")

    def on_mount(self) -> None:
        self.action_refresh_now()
        self.set_interval(self.dash.interval, self.action_refresh_now)

    # -- refreshing -------------------------------------------------------------------------

    def action_refresh_now(self) -> None:
        """Take a snapshot in a worker, unless one is being taken (then once more after it)."""
        if self._refreshing:
            self._refresh_again = True
            return
        self._refreshing = True
        self._take()

    @work(thread=True, group="dashboard-refresh", description="read the session's figures")
    def _take(self) -> None:
        app = self.dash
        began = app.perf()
        try:
            snapshot = take_snapshot(app.spec, app.store, now=app.now(), window_min=app.window_min)
        except Exception as exc:  # shown on the refresh line; the last figures stay on screen
            self.post_message(self.Refreshed(None, app.perf() - began, describe(exc, app.store.path) or str(exc)))
            return
        self.post_message(self.Refreshed(snapshot, app.perf() - began))

    @on(Refreshed)
    def _refreshed(self, message: DashboardScreen.Refreshed) -> None:
        self._refreshing = False
        self._refresh_seconds = message.seconds
        self._refresh_error = message.error
        if message.snapshot is not None:
            self.snapshot = message.snapshot
            self._fill()
        self._show_refresh_line()
        self.refreshes += 1
        if self._refresh_again:
            self._refresh_again = False
            self.action_refresh_now()

    # -- sorting ----------------------------------------------------------------------------

    def action_sort_next(self) -> None:
        if self.snapshot is None:
            return
        table = self.query_one(AnnotatorTable)
        keys = [c.key for c in (table.shown or columns(self.snapshot))]
        nxt = keys[(keys.index(self.sort_key) + 1) % len(keys)] if self.sort_key in keys else keys[0]
        self.sort_key = nxt
        self.descending = next(c.descending for c in columns(self.snapshot) if c.key == nxt)
        self._fill()

    def action_sort_reverse(self) -> None:
        self.descending = not self.descending
        self._fill()

    # -- showing ----------------------------------------------------------------------------

    def on_resize(self, event: Resize) -> None:
        self._fill()

    def _fill(self) -> None:
        snap = self.snapshot
        if snap is None:
            return
        self.query_one(AnnotatorTable).show(snap, self.sort_key, self.descending, self.size.width)
        self.query_one("#dash-title", Static).update(self._title_text())
        self.query_one("#dash-summary", Static).update(self._summary_text(snap))

    def _title_text(self) -> Text:
        """Session, who is working, alpha: one line at 80 columns."""
        app = self.dash
        text = f"{one_line(app.spec.name)} ({app.spec.kind})"
        snap = self.snapshot
        if snap is not None:
            alpha = snap.alpha
            agreement = (f"alpha: {alpha.reason}" if alpha.value is None
                         else f"alpha {alpha.value:.3f} {alpha.level}, {alpha.items:,} items")
            text += f" · {snap.working} of {len(snap.annotators)} working · {agreement}"
        return Text(text, style="bold")

    @staticmethod
    def _summary_text(snap: Snapshot) -> Text:
        left = snap.assigned - snap.done - snap.skipped
        return Text(f"{snap.items:,} items · done {snap.done:,} of {snap.assigned:,} ({snap.skipped:,} skipped,"
                    f" {left:,} left)")

    def _show_refresh_line(self) -> None:
        app = self.dash
        keys = "r refresh · s/S sort · q quit"
        took = f"{1000 * self._refresh_seconds:,.0f} ms"
        if self.snapshot is None and not self._refresh_error:
            line = Text(keys)
        else:
            at = datetime.fromtimestamp(self.snapshot.taken_at if self.snapshot else app.now(), UTC)
            line = Text(f"refreshed {at:%H:%M:%S} UTC in {took} · every {app.interval:g} s · {keys}")
        if self._refresh_error:
            line = Text(f"refresh failed ({took}): {one_line(self._refresh_error)} · {keys}", style="bold red")
        self.query_one("#dash-refresh", Static).update(line)

