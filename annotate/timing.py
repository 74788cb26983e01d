"""Per-item timing: turn the moments an annotator acted into a `Timings` record.

The app feeds an `ItemClock` with monotonic nanoseconds (`time.monotonic_ns()`) for everything
that happens while one item is on screen; `ItemClock.finish` turns them into `Timings`
(milliseconds, DESIGN.md section 3). No Textual here, so the rules are tested with synthetic
clocks and reused by anything that replays events.

Rules:
- *shown* is when the item was painted; every duration counts from it.
- *first input* is the first key or scroll action on the item.
- *active time* is the time from shown to submit with every gap between two consecutive actions
  (shown, inputs, submit) longer than `IDLE_GAP_NS` removed entirely: a coffee break is not work.
- *pane view time* per slot is the time that slot's pane was visible on screen (side by side
  both are; a maximised pane hides the other one).
- *scroll depth* per slot is the deepest scroll position reached, 0 (top) .. 1 (bottom); a pane
  whose whole text fits counts as read to the bottom once it has been in view.
- *guideline time* is the time the guideline panel was open.
"""

from __future__ import annotations

from annotate.model import Timings

IDLE_GAP_NS = 30_000_000_000
"""Gaps between actions longer than this (30 s) are left out of active time."""

NS_PER_MS = 1_000_000


class ItemClock:
    """Accumulates the timings of one item shown once. Not thread-safe; feed it from one thread.

    Every method takes `now_ns`, a `time.monotonic_ns()` reading not earlier than the last one.
    """

    def __init__(self, shown_ns: int, shown_at: str, idle_gap_ns: int = IDLE_GAP_NS) -> None:
        self.shown_ns = shown_ns
        """Monotonic ns when the item was painted."""
        self.shown_at = shown_at
        """UTC ISO-8601 wall time when the item was painted."""
        self.idle_gap_ns = idle_gap_ns
        self.first_input_ns: int | None = None
        """Monotonic ns of the first input, None until there is one."""
        self._last_activity_ns = shown_ns
        self._active_ns = 0
        self._pane_since: dict[str, int | None] = {}
        self._pane_ns: dict[str, int] = {}
        self._pane_depth: dict[str, float] = {}
        self._guideline_since: int | None = None
        self._guideline_ns = 0

    # -- feeding -----------------------------------------------------------------------------

    def painted(self, now_ns: int, shown_at: str) -> None:
        """Move *shown* to when the item was actually painted; ignored once there was input.

        Panes and the guideline panel already counted as in view or open start counting then too.
        """
        if self.first_input_ns is not None or now_ns < self.shown_ns:
            return
        self.shown_ns = now_ns
        self.shown_at = shown_at
        self._last_activity_ns = now_ns
        for slot, since in self._pane_since.items():
            if since is not None:
                self._pane_since[slot] = now_ns
        if self._guideline_since is not None:
            self._guideline_since = now_ns

    def input(self, now_ns: int) -> None:
        """The annotator pressed a key or scrolled."""
        if self.first_input_ns is None:
            self.first_input_ns = now_ns
        self._activity(now_ns)

    def pane_visible(self, slot: str, visible: bool, now_ns: int) -> None:
        """The pane showing `slot` came into view (True) or left it (False)."""
        since = self._pane_since.get(slot)
        self._pane_ns.setdefault(slot, 0)
        if visible and since is None:
            self._pane_since[slot] = now_ns
        elif not visible and since is not None:
            self._pane_ns[slot] += now_ns - since
            self._pane_since[slot] = None

    def scrolled(self, slot: str, depth: float) -> None:
        """The pane showing `slot` is now scrolled to `depth` (0 top .. 1 bottom)."""
        depth = min(1.0, max(0.0, depth))
        if depth > self._pane_depth.get(slot, 0.0):
            self._pane_depth[slot] = depth
        else:
            self._pane_depth.setdefault(slot, depth)

    def guideline(self, open_: bool, now_ns: int) -> None:
        """The guideline panel was opened (True) or closed (False)."""
        if open_ and self._guideline_since is None:
            self._guideline_since = now_ns
        elif not open_ and self._guideline_since is not None:
            self._guideline_ns += now_ns - self._guideline_since
            self._guideline_since = None

    # -- reading -----------------------------------------------------------------------------

    def active_ns(self, now_ns: int) -> int:
        """Active time so far, counting the gap up to `now_ns` if it is not idle."""
        gap = now_ns - self._last_activity_ns
        return self._active_ns + (gap if gap <= self.idle_gap_ns else 0)

    def finish(self, now_ns: int) -> Timings:
        """The timings of a submit at `now_ns`. The clock can go on (e.g. a failed submit)."""
        pane_ms = {}
        for slot, total in self._pane_ns.items():
            since = self._pane_since.get(slot)
            pane_ms[slot] = (total + (now_ns - since if since is not None else 0)) // NS_PER_MS
        guideline = self._guideline_ns
        if self._guideline_since is not None:
            guideline += now_ns - self._guideline_since
        return Timings(
            shown_at=self.shown_at,
            first_input_ms=None if self.first_input_ns is None
            else (self.first_input_ns - self.shown_ns) // NS_PER_MS,
            submit_ms=(now_ns - self.shown_ns) // NS_PER_MS,
            active_ms=self.active_ns(now_ns) // NS_PER_MS,
            pane_view_ms=pane_ms,
            pane_max_scroll={slot: round(d, 4) for slot, d in sorted(self._pane_depth.items())},
            guideline_ms=guideline // NS_PER_MS,
        )

    def _activity(self, now_ns: int) -> None:
        self._active_ns = self.active_ns(now_ns)
        self._last_activity_ns = now_ns
