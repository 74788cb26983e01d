"""EarlierTurns: the turns before the question answered, folded by default and one key (`e`) away.

A mixin of ItemScreen. The prompt pane always shows the last user message in full
(annotate.tui.content); `e` shows every earlier turn in the prompt and response panes, or folds
them again. The choice holds for the rest of the sitting (an expert judging MT-Bench turn 2 wants
each model's first answer on every item) and is logged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from annotate.tui.content import has_earlier, prompt_doc
from annotate.tui.widgets.prompt_pane import PromptPane

if TYPE_CHECKING:
    from annotate.tui.screens.item import ItemScreen

    _Base = ItemScreen
else:
    _Base = object


class EarlierTurns(_Base):
    """Folding and showing earlier turns on an ItemScreen."""

    show_earlier: bool = False
    """Earlier turns are shown (else folded into the headings)."""

    def can_show_earlier(self) -> bool:
        return self.item is not None and has_earlier(self.item)

    def action_earlier(self) -> None:
        if not self.can_show_earlier():
            self.app.bell()
            return
        self.show_earlier = not self.show_earlier
        self.record("context.earlier", shown=self.show_earlier)
        self.show_context()
        self.show_notice("earlier turns shown: e folds them" if self.show_earlier else "earlier turns folded: e shows")

    def show_context(self) -> None:
        """Show the item on screen again in the prompt and response panes (after `e`)."""
        if self.item is None or self.assignment is None:
            return
        self.clear_matches()  # they were in the lines shown before
        self.query_one("#prompt", PromptPane).show(prompt_doc(self.item, self.show_earlier))
        self.show_item(self.item, self.assignment)
        self.call_after_refresh(self._update_visibility)
