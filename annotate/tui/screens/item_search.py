"""PaneSearch: `/` finds text in the panes of an item screen; `>` and `<` go to the next and previous match.

A mixin of ItemScreen. The search runs over the lines as rendered (what the annotator reads, at the
panes' widths), case-insensitively, in the prompt, then the response panes in screen order, then the
guideline when it is open. A match is marked in reverse video (so it shows in every theme and
without colour), its pane becomes the active one and scrolls to it, and the progress line says
`match 2 of 7 · Left`. Showing another item forgets the matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.widgets import Input

from annotate.tui.widgets.doc_view import DocView

if TYPE_CHECKING:
    from annotate.tui.screens.item import ItemScreen

    _Base = ItemScreen
else:
    _Base = object

MAX_MATCHES = 999
"""Matches kept per search (the count says `999+` beyond)."""


@dataclass(frozen=True)
class Match:
    """One match: the view, the rendered line, and the cells it spans."""

    view: DocView
    line: int
    start: int
    end: int


def find_in(view: DocView, needle: str, limit: int) -> list[Match]:
    """Matches of `needle` (lowercase) in the rendered lines of `view`, at most `limit`."""
    found: list[Match] = []
    for number, strip in enumerate(view.full_lines()):
        text = strip.text.lower()
        at = text.find(needle)
        while at >= 0 and len(found) < limit:
            start = strip.index_to_cell_position(at)
            found.append(Match(view, number, start, strip.index_to_cell_position(at + len(needle))))
            at = text.find(needle, at + max(1, len(needle)))
        if len(found) >= limit:
            break
    return found


class PaneSearch(_Base):
    """Search in the panes of an ItemScreen."""

    search_text: str = ""
    matches: tuple[Match, ...] = ()
    match_index: int = -1

    def action_search(self) -> None:
        box = self.query_one("#search", Input)
        box.value = self.search_text
        box.display = True
        box.disabled = False
        box.focus()
        self.record("search.open")

    def close_search_box(self) -> None:
        box = self.query_one("#search", Input)
        box.display = False
        box.disabled = True
        self.set_focus(None)

    def run_search(self, text: str) -> None:
        """Find `text` in the panes and go to the first match at or after the active pane."""
        self.close_search_box()
        self.clear_matches()
        self.search_text = text.strip()
        if not self.search_text:
            return
        needle = self.search_text.lower()
        found: list[Match] = []
        for view in self.scroll_targets():
            found += find_in(view, needle, MAX_MATCHES + 1 - len(found))
            if len(found) > MAX_MATCHES:
                break
        self.matches = tuple(found)
        self.record("search.run", length=len(self.search_text), matches=len(found))
        if not found:
            self.show_notice(f"no match for {self.search_text[:30]!r}")
            return
        targets = self.scroll_targets()
        active = targets[min(self.active, len(targets) - 1)]
        first = next((i for i, m in enumerate(found) if targets.index(m.view) >= targets.index(active)), 0)
        self._go_to_match(first)

    def action_match(self, step: int) -> None:
        if not self.matches:
            self.app.bell()
            return
        self.record("search.step", step=int(step))
        self._go_to_match((self.match_index + int(step)) % len(self.matches))

    def _go_to_match(self, index: int) -> None:
        if self.match_index >= 0:
            self.matches[self.match_index].view.mark = None
            self.matches[self.match_index].view.refresh()
        self.match_index = index
        match = self.matches[index]
        view = match.view
        view.mark = (match.line, match.start, match.end)
        top = round(view.scroll_y)
        rows = view.scrollable_content_region.height
        if not top <= match.line < top + rows:
            view.scroll_to(y=max(0, match.line - rows // 3), animate=False, immediate=True)
        view.refresh()
        targets = self.scroll_targets()
        if view in targets:
            self.active = targets.index(view)
            self._mark_active()
        count = f"{len(self.matches)}+" if len(self.matches) > MAX_MATCHES else str(len(self.matches))
        where = view.title if hasattr(view, "title") else "Guideline"
        self.show_notice(f"match {index + 1} of {count} · {where} · > next, < previous")

    def clear_matches(self) -> None:
        """Forget the matches (another item is shown, or a new search)."""
        for match in self.matches:
            match.view.mark = None
            match.view.refresh()
        self.matches, self.match_index = (), -1
