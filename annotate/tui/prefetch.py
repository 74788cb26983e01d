"""The app's read-ahead: the next items read on the store thread, their documents rendered on another.

No Textual here. `Prefetcher` reads the items likely shown next through the app's `StoreRunner` and
renders their documents on a render thread of its own, every neighbour's first screenful before the
rest, so showing the next item waits neither for SQLite nor for more Rich rendering than its first
screenful. (Split out of `annotate.tui.queue`, which keeps the queue itself.)
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import Any

from annotate.model import Item
from annotate.store import Store
from annotate.tui.render import Doc, DocLines, LineCache
from annotate.tui.store_runner import StoreRunner

HOLD_MAX_S = 1.0
"""A hold on the render thread ends by itself after this long (a screen that forgot to release)."""
SHOWN_MAX = 4
"""Documents on screen the render thread finishes first (prompt, two responses, guideline)."""
AHEAD_MAX = 12
"""Documents rendered ahead at most; the oldest requests are dropped first."""


def read_label(store: Store, suggestion_id: int) -> str | None:
    """A suggestion's label, or None when the store has no such suggestion."""
    try:
        return store.suggestion(suggestion_id).label
    except KeyError:
        return None


Warm = Callable[[DocLines], None]
"""Work on a document's lines once rendered ahead (on the render thread)."""
Ahead = tuple[Doc, int] | tuple[Doc, int, Warm | None] | tuple[Doc, int, Warm | None, int]
"""A document to render ahead: (doc, width[, what to do with its lines[, lines of its first screenful]])."""


class Prefetcher:
    """Items (and suggestion labels) read ahead on the store thread; documents rendered on a render
    thread, a part at a time (`render.DocLines`).

    The render thread first renders the first screenful of each neighbour's documents (what the next
    key shows), then finishes the documents on screen (the last `lines` handed out), then renders
    the neighbours' documents whole. A screen `hold`s it from a key press until the next
    item is painted: rendering holds the GIL and would slow that paint down; between two parts it
    checks the hold, so it gives way within one part.
    """

    def __init__(self, runner: StoreRunner, cache: LineCache, capacity: int = 12) -> None:
        self.runner = runner
        self.cache = cache
        self.capacity = capacity
        """Items kept."""
        self._items: OrderedDict[str, Future[Item]] = OrderedDict()
        self._labels: dict[int, Future[str | None]] = {}
        self._shown: deque[DocLines] = deque(maxlen=SHOWN_MAX)
        """Documents handed out to views and not complete, most recent last."""
        self._ahead: deque[tuple[Doc, int]] = deque(maxlen=AHEAD_MAX)
        """(document, width) to render ahead, oldest first."""
        self._warm: dict[tuple[Doc, int], Warm] = {}
        """(document, width) -> what the view that will show it does with its lines once they are
        rendered ahead (frames its first rows: widgets/doc_view.py `warmer`), on the render thread."""
        self._first: deque[tuple[Doc, int]] = deque(maxlen=AHEAD_MAX)
        """(document, width) wanted ahead whose first screenful is not rendered yet, oldest first:
        rendered before anything else, so that the next key finds what it shows, even when the
        documents on screen are long (a 50k-character response takes ~300 ms to finish)."""
        self._rows: dict[tuple[Doc, int], int] = {}
        """(document, width) -> the lines of its first screenful (where `_first` stops)."""
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._hold_until = 0.0
        self._hold_token = 0
        self._busy = False
        self._closed = False
        self._thread: threading.Thread | None = None

    # -- reading ---------------------------------------------------------------------------------

    def item(self, item_id: str) -> Future[Item]:
        """The item, read on the store thread once and kept for a while."""
        with self._lock:
            future = self._items.get(item_id)
            if future is None:
                future = self.runner.call(self.runner.store.item, item_id)
                self._items[item_id] = future
            self._items.move_to_end(item_id)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)
            return future

    def label(self, suggestion_id: int) -> Future[str | None]:
        """A suggestion's label (None when missing), read on the store thread once. Asked for
        before the item it goes with, it is there when the item is (the store thread runs calls
        in order)."""
        with self._lock:
            future = self._labels.get(suggestion_id)
            if future is None:
                future = self.runner.call(read_label, self.runner.store, suggestion_id)
                self._labels[suggestion_id] = future
            return future

    # -- rendering -------------------------------------------------------------------------------

    def prefetch(self, item_id: str, docs: Callable[[Item], Iterable[Ahead]]) -> None:
        """Read the item and render `docs(item)` into the cache, in the background: (doc, width), or
        with what to do with the rendered lines on the render thread (then once the first screenful is
        rendered, if its lines are given, else once the whole document is), and the lines of its
        first screenful, rendered before any document's rest."""

        def render(item_future: Future[Item]) -> None:
            if item_future.exception() is not None:
                return
            wanted = list(docs(item_future.result()))
            with self._lock:
                for doc, width, *then in wanted:
                    entry = (doc, width)
                    warm = then[0] if then else None
                    rows = then[1] if len(then) > 1 else 0
                    if warm is not None:
                        self._warm[entry] = warm
                    if rows > 0 and entry not in self._first:
                        self._rows[entry] = rows
                        self._first.append(entry)
                    if entry not in self._ahead:
                        self._ahead.append(entry)
                if len(self._warm) > 2 * AHEAD_MAX:
                    for entry in [e for e in self._warm if e not in self._ahead]:
                        del self._warm[entry]
                for entry in [e for e in self._rows if e not in self._first]:
                    del self._rows[entry]
                self._start()

        self.item(item_id).add_done_callback(render)

    def lines(self, doc: Doc, width: int) -> DocLines:
        """The document's lines at `width` for a view on screen: as far as rendered (ahead, or
        not at all); the render thread finishes them first. The view renders what it shows now."""
        lines = self.cache.get(doc, width)
        if not lines.complete:
            with self._lock:
                if lines in self._shown:
                    self._shown.remove(lines)
                self._shown.append(lines)
                self._start()
        return lines

    def hold(self) -> int:
        """Pause the render thread (after the part it is rendering) until `release(token)`, or
        HOLD_MAX_S; returns the token."""
        with self._lock:
            self._hold_token += 1
            self._hold_until = time.monotonic() + HOLD_MAX_S
            return self._hold_token

    def release(self, token: int) -> None:
        """End the hold `token`, unless a later one was taken since."""
        with self._lock:
            if token == self._hold_token:
                self._hold_until = 0.0
                self._wake.notify_all()

    def idle(self) -> bool:
        """True when nothing is being read, nor is left to render."""
        with self._lock:
            rendering = (self._busy or bool(self._ahead) or bool(self._first)
                         or any(not lines.complete for lines in self._shown))
            reading = any(not f.done() for f in self._items.values())
        return not rendering and not reading

    def close(self) -> None:
        """Stop the render thread (after the part it is rendering)."""
        with self._lock:
            self._closed = True
            self._wake.notify_all()

    def _start(self) -> None:
        """Wake the render thread, starting it the first time (the lock is held)."""
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(target=self._run, name="annotate-render", daemon=True)
            self._thread.start()
        self._wake.notify_all()

    def _next(self) -> tuple[str, Any] | None:
        """What to render next (the lock is held): the first screenful of a document wanted ahead,
        oldest first (`first`); else a document on screen, newest first (`shown`); else the oldest
        document wanted ahead (`ahead`)."""
        if self._first:
            return "first", self._first[0]
        for lines in reversed(self._shown):
            if not lines.complete:
                return "shown", lines
        return ("ahead", self._ahead[0]) if self._ahead else None

    def _run(self) -> None:
        while True:
            with self._lock:
                while True:
                    if self._closed:
                        return
                    wait = self._hold_until - time.monotonic()
                    job = self._next() if wait <= 0 else None
                    if job is not None:
                        break
                    self._busy = False
                    self._wake.wait(wait if wait > 0 else None)
                self._busy = True
            kind, what = job
            try:
                if kind == "shown":
                    what.render_next()
                elif kind == "first":
                    self._render_first(what)
                else:
                    lines = self.cache.get(*what)
                    if not lines.render_next():
                        with self._lock:
                            if self._ahead and self._ahead[0] == what:
                                self._ahead.popleft()
                            warm = self._warm.pop(what, None)
                        if warm is not None:
                            warm(lines)
            except Exception:  # a document that cannot be rendered ahead is rendered (and fails) on screen
                with self._lock:
                    if kind == "shown" and what in self._shown:
                        self._shown.remove(what)
                    if kind == "first" and what in self._first:
                        self._first.remove(what)
                    if kind != "shown" and what in self._ahead:
                        self._ahead.remove(what)

    def _render_first(self, entry: tuple[Doc, int]) -> None:
        """Render one more part of the first screenful of `entry`; once it is there, do what its view
        does with it (`Warm`) and leave the rest for later."""
        lines = self.cache.get(*entry)
        rows = self._rows.get(entry, 0)
        if len(lines.lines) < rows and lines.render_next() and len(lines.lines) < rows and not lines.complete:
            return
        with self._lock:
            if entry in self._first:
                self._first.remove(entry)
            self._rows.pop(entry, None)
            warm = self._warm.pop(entry, None)
        if warm is not None:
            warm(lines)
