"""PromptPane: the prompt, shown with its last lines in view (where the question being answered is).

The prompt pane is capped at a share of the screen; a long prompt would show only its top and hide
the question at its end. So the pane scrolls to the end of each prompt it shows, and its title
says how much is above (`Prompt ▲ 12 lines above`); the scroll keys read up as in any pane.
"""

from __future__ import annotations

from rich.text import Text
from textual.events import Resize

from annotate.tui.render import Doc
from annotate.tui.widgets.doc_view import LinesFor
from annotate.tui.widgets.response_pane import ResponsePane


class PromptPane(ResponsePane):
    """A ResponsePane titled `Prompt` that shows each document from its end."""

    def __init__(self, lines_for: LinesFor | None = None, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("Prompt", lines_for, id=id, classes=classes)
        self._to_end = False
        """Scroll to the end once the pane has its size (after the next layout)."""
        self._at_end = False
        """The end is in view (as last scrolled): a resize keeps it there."""

    def show(self, doc: Doc | None) -> None:
        """Show `doc` with its last line at the bottom of the pane."""
        super().show(doc)
        self._to_end = doc is not None
        self.call_after_refresh(self._scroll_to_end)

    def _scroll_to_end(self) -> None:
        if not self._to_end or self.render_width <= 0:
            return
        self._to_end = False
        self.finish()  # prompts are short; a long one is rendered whole once, to know where its end is
        self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)
        self._at_end = True
        self._title()

    def on_resize(self, event: Resize) -> None:
        """Keep the end in view across a resize (Textual calls DocView's handler after this one)."""
        if self.doc is not None and (self._to_end or self._at_end):
            self._to_end = True
            self.call_after_refresh(self._scroll_to_end)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if not self._to_end:  # not while a scroll to the end is pending (a resize moves it first)
            self._at_end = round(new_value) >= self.max_scroll_y
        self._title()

    def _title(self) -> None:
        """Say how many lines are above; the title is set (and the pane painted again) only when that changed."""
        above = round(self.scroll_y)
        title = f"Prompt ▲ {above} {'line' if above == 1 else 'lines'} above" if above else "Prompt"
        if str(self.border_title) != title:
            self.border_title = Text(title)
