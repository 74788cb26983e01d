"""SpanCompositor: Textual's compositor, but a partial update draws only what it will write.

For a partial update Textual takes the box around every changed region, asks each widget that
overlaps the box for all of its visible rows, and cuts every row at every widget edge. A new item
changes the progress line at the top, the panes and the bars at the bottom, so the box is the whole
screen: the screen and the panes' container were drawn (48 and 41 full-width rows, cut at every
edge) only to be hidden behind the panes, and the frame after it, in which only the panes'
scrollbars and the progress line change, drew every widget again.

Here a widget is asked only for the rows and columns of the pieces ("chops", between two edges on
a row) that the update writes and that no widget in front of it has drawn already; a widget with
no such piece is not drawn at all. What is written is the same: the same pieces, from the same
widgets (the front-most one covering each), as Textual's `ChopsUpdate`.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.strip import Strip


def _needed_cuts(cuts: list[list[int]], spans: Iterable[tuple[int, int, int]]) -> dict[int, list[int]]:
    """Line -> the start cuts of the pieces on it that overlap a span (what the update writes)."""
    needed: dict[int, list[int]] = {}
    for y, x1, x2 in spans:
        line = cuts[y]
        starts = needed.setdefault(y, [])
        for start, end in pairwise(line):
            if start < x2 and end > x1 and start not in starts:
                starts.append(start)
    return needed


class SpanCompositor(Compositor):
    """A Compositor whose partial updates draw each widget only where the update shows it."""

    def render_partial_update(self) -> ChopsUpdate | None:
        screen_region = self.size.region
        update_regions = self._dirty_regions.copy()
        self._dirty_regions.clear()
        if not update_regions:
            return None
        spans = list(self._regions_to_spans(
            region for region in (r.intersection(screen_region) for r in update_regions) if region))
        if not spans:
            return None
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
        self._fill_chops(chops, _needed_cuts(cuts, spans))
        return ChopsUpdate(chops, spans, [cut_set[1:] for cut_set in cuts])  # type: ignore[arg-type]

    def _fill_chops(self, chops: list[dict[int, Strip | None]], needed: dict[int, list[int]]) -> None:
        """Fill the needed pieces, front-most widget first (the first to draw a piece wins)."""
        cuts = self.cuts
        for widget, (region, clip) in self.visible_widgets.items():
            if not needed:
                return
            area = region.intersection(clip)
            if not area:
                continue
            x1, x2 = area.column_span
            rows: list[int] = []
            left, right = x2, x1
            for y in area.line_range:
                starts = needed.get(y)
                if not starts:
                    continue
                line_cuts = cuts[y]
                mine = [start for start in starts if x1 <= start < x2]
                if not mine:
                    continue
                rows.append(y)
                left = min(left, min(mine))
                right = max(right, max(line_cuts[line_cuts.index(start) + 1] for start in mine))
            if not rows:
                continue
            # The columns drawn start and end on an edge of every row drawn, else the widget's own.
            if any(left not in cuts[y] for y in rows):
                left = x1
            if any(right not in cuts[y] for y in rows):
                right = x2
            top, bottom = rows[0], rows[-1] + 1
            strips = widget.render_lines(Region(left - region.x, top - region.y, right - left, bottom - top))
            for y in rows:
                if y - top >= len(strips):
                    break  # a widget that drew fewer rows than asked: those pieces stay blank, as in Textual
                strip = strips[y - top]
                line_cuts = [cut for cut in cuts[y] if left <= cut <= right]
                pieces = strip.divide([cut - left for cut in line_cuts[1:]])
                line = chops[y]
                starts = needed[y]
                for cut, piece in zip(line_cuts, pieces, strict=False):
                    if cut in starts and line[cut] is None:
                        line[cut] = piece
                        starts.remove(cut)
                if not starts:
                    del needed[y]
