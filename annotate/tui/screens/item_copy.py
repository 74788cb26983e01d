"""TextCopy: Ctrl+C copies the text selected with the mouse to the clipboard (OSC 52).

A mixin of ItemScreen. The panes give the text as they show it (DocView.get_selection); it is
sanitised once more here, so that no control character or escape sequence from an item reaches the
clipboard or the terminal, whatever widget the selection came from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from annotate.safe_text import sanitize

if TYPE_CHECKING:
    from annotate.tui.screens.item import ItemScreen

    _Base = ItemScreen
else:
    _Base = object

NOTHING_SELECTED = "select text with the mouse first: Ctrl+C copies it"


class TextCopy(_Base):
    """The copy key of an ItemScreen."""

    def action_copy_text(self) -> None:
        text = self.get_selected_text()
        if not text:
            self.show_notice(NOTHING_SELECTED)
            return
        text = sanitize(text)
        self.app.copy_to_clipboard(text)
        self.record("copy", chars=len(text))
        self.show_notice(f"copied {len(text)} characters")
