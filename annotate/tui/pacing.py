"""When the app does its background work and how long the annotator has been at it: Python's
cyclic garbage collection only while nothing is felt (read-ahead done, no key for a while), and
the sitting timer and break reminder of the progress line. Mixed into AnnotateApp (app.py)."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TYPE_CHECKING

from annotate.tui.widgets.progress_line import BREAK_AFTER_S

if TYPE_CHECKING:
    from annotate.tui.prefetch import Prefetcher
    from annotate.tui.queue import StoreRunner

BREAK_RESET_NS = 5 * 60 * 1_000_000_000
"""A pause this long (no key at all) counts as a break and restarts the stretch."""
FULL_GC_IDLE_NS = 2_000_000_000
"""A full garbage collection runs only after this long without a key..."""
FULL_GC_EVERY_NS = 60_000_000_000
"""...and at most this often."""


class IdleCollectionMixin:
    """Collection when idle, and `settled` for benchmarks; part of AnnotateApp."""

    clock: Callable[[], int]
    prefetcher: Prefetcher
    runner: StoreRunner
    painted_hooks: list[Callable[[int], None]]
    _gc_due: bool
    _last_activity: int
    _last_full_gc: int

    def item_painted(self, now_ns: int) -> None:
        self.runner.release()  # the write held since the key (app.write_judgment) starts now
        self._gc_due = True
        for hook in self.painted_hooks:
            hook(now_ns)

    def _collect_when_idle(self) -> None:
        if not self.prefetcher.idle():
            return
        now = self.clock()
        if self._gc_due:
            self._gc_due = False
            gc.collect(1)
        if now - self._last_activity >= FULL_GC_IDLE_NS and now - self._last_full_gc >= FULL_GC_EVERY_NS:
            self._last_full_gc = now
            gc.collect()

    def settled(self) -> bool:
        """Nothing left to do in the background: read-ahead, writes and collection are done
        (what an annotator's reading time gives; benchmarks wait for it)."""
        return self.prefetcher.idle() and self.runner.pending == 0 and not self._gc_due


class SittingPaceMixin:
    """The sitting timer and the break reminder; part of AnnotateApp."""

    clock: Callable[[], int]
    sitting_clock: Callable[[], float]
    _sitting_start: float
    _stretch_start: int
    _last_activity: int

    def note_activity(self, now_ns: int) -> None:
        if now_ns - self._last_activity > BREAK_RESET_NS:
            self._stretch_start = now_ns
        self._last_activity = now_ns

    def sitting_seconds(self) -> float:
        return max(0.0, self.sitting_clock() - self._sitting_start)

    def break_due(self) -> bool:
        now = self.clock()
        if now - self._last_activity > BREAK_RESET_NS:
            return False
        return (now - self._stretch_start) / 1e9 >= BREAK_AFTER_S
