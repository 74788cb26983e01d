"""ResponsePane: one response (or the prompt), titled only by its screen side."""

from __future__ import annotations

from rich.text import Text

from annotate.tui.widgets.doc_view import DocView, LinesFor


class ResponsePane(DocView):
    """A DocView with a fixed border title ("Left", "Right", "Response", "Prompt").

    `slot` says which response slot the pane currently shows (it changes per item with the
    side mapping); it is never shown. The title is a fixed string, never item text or a model.
    """

    def __init__(self, title: str, lines_for: LinesFor | None = None, *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(lines_for, id=id, classes=classes)
        self.title = title
        """The fixed title shown in the border."""
        self.slot: str | None = None
        """The slot (`A`/`B`) shown now; None for the prompt."""
        self.border_title = Text(title)
