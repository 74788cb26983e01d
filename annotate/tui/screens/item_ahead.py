"""ReadAhead: an item screen reads and renders the items likely shown next, before the key comes.

A mixin of ItemScreen: SQLite reads run on the store thread and rendering on the render thread
(annotate/tui/prefetch.py), and rendering waits until the item on screen is painted, so the next item
appears without perceptible delay. The first screenful of each neighbour is rendered before the
rest of anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import TYPE_CHECKING

from annotate.model import Assignment, Item
from annotate.store.store import utc_now
from annotate.tui.content import prompt_doc
from annotate.tui.prefetch import Ahead, Warm
from annotate.tui.widgets.doc_view import DocView

if TYPE_CHECKING:
    from annotate.tui.screens.item import ItemScreen

    _Base = ItemScreen
else:
    _Base = object

PREFETCH_DELAY_S = 0.03
"""Rendering (the rest of this item, then read-ahead) starts this long after an item is painted."""


class ReadAhead(_Base):
    """Reading and rendering ahead for an ItemScreen."""

    def _read(self, assignment: Assignment) -> None:
        """Start reading an assignment's item and suggestion label on the store thread (the label
        first: it is then there when the item is)."""
        prefetcher = self.annotate_app.prefetcher
        if assignment.suggestion_id is not None:
            prefetcher.label(assignment.suggestion_id)
        prefetcher.item(assignment.item_id)

    def _neighbours(self, index: int) -> list[int]:
        """Queue indexes likely shown after `index`: next, the one after, previous, next unfinished."""
        queue = self.annotate_app.queue
        wanted = [index + 1, index + 2, index - 1]
        nxt = queue.first_unfinished(index + 1)
        if nxt is not None:
            wanted.append(nxt)
        return [i for i in dict.fromkeys(wanted) if 0 <= i < len(queue) and i != index]

    def _read_ahead(self, index: int) -> None:
        """Read the neighbours of `index` now (SQLite on the store thread holds no GIL to speak
        of), so that the next item is there when the key comes, even at once; the queue's pages
        around `index` too."""
        self.annotate_app.queue.prefetch(index)
        for i in self._neighbours(index):
            self._read(self.annotate_app.queue.assignments[i])

    def _painted(self) -> None:
        now = self.annotate_app.clock()
        if self.clock is not None:
            self.clock.painted(now, utc_now())
        self._update_visibility()
        self.annotate_app.item_painted(now)
        # Render only once this item is on screen: rendering in another thread holds the GIL for a
        # while and would slow this paint down. The render thread finishes this item's documents
        # first, then renders the neighbours'.
        self.set_timer(PREFETCH_DELAY_S, partial(self._render_later, self.index, self._render_hold))

    def _render_later(self, index: int, hold: int) -> None:
        if hold != self._render_hold:
            return  # another item was shown since (and holds the render thread until it is painted)
        self.annotate_app.prefetcher.release(hold)
        self.prepare_spans()
        self.prefetch_around(index)

    def prefetch_around(self, index: int) -> None:
        """Read and render the neighbours of `index` in the background."""
        app = self.annotate_app
        widths = self._widths()
        for i in self._neighbours(index):
            assignment = app.queue.assignments[i]
            self._read(assignment)
            app.prefetcher.prefetch(
                assignment.item_id,
                lambda item, a=assignment, w=widths: self._docs_at(item, a, w),
            )

    def _widths(self) -> dict[str, tuple[int, Warm | None, int]]:
        """Pane id -> (the width it renders at, what the render thread does with a document it will
        show: frames its first rows, the lines of its first screenful)."""
        views = [self.query_one("#prompt", DocView), *self.response_panes()]
        return {view.id or "": (view.render_width, view.warmer(), view.screenful) for view in views}

    def _docs_at(self, item: Item, assignment: Assignment, widths: dict[str, tuple[int, Warm | None, int]]
                 ) -> Iterable[Ahead]:
        """Documents to render ahead, at the widths their panes had; runs off the UI thread."""
        for pane_id, doc in [("prompt", prompt_doc(item, self.show_earlier)), *self.docs_for(item, assignment)]:
            width, warm, rows = widths.get(pane_id, (0, None, 0))
            if width > 0:
                yield doc, width, warm, rows
