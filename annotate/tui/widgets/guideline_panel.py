"""GuidelinePanel: the session's guideline beside (or over) the item, toggled with a key."""

from __future__ import annotations

from rich.text import Text

from annotate.guidelines import Guideline
from annotate.safe_text import sanitize
from annotate.tui.render import Block, Doc
from annotate.tui.widgets.doc_view import DocView, LinesFor

SIDE_SUBTITLE = "g or Esc closes · j/k scroll"
"""Bottom border of the panel when it is a column beside the panes."""
OVERLAY_SUBTITLE = "g or Esc closes the guideline · both responses are behind it"
"""Bottom border of the panel when it covers the panes (narrower terminals)."""


class GuidelinePanel(DocView):
    """The guideline's Markdown, titled with its title and version; its bottom border says how to
    close it and, when it floats over the panes (`covering`), that the responses are behind it."""

    def __init__(self, guideline: Guideline | None, error: str = "", lines_for: LinesFor | None = None,
                 *, id: str | None = None) -> None:
        super().__init__(lines_for, id=id)
        self.guideline = guideline
        """The guideline shown, or None when it could not be loaded (then `error` says why)."""
        if guideline is not None:
            self.border_title = Text(sanitize(f"Guideline: {guideline.title} (v{guideline.version})"))
            self._doc = Doc(("guideline", guideline.id, guideline.version), (Block(guideline.body),))
        else:
            self.border_title = Text("Guideline")
            self._doc = Doc(("guideline", "missing"), (Block(f"No guideline could be loaded.\n\n{error}"),))
        self.covering = True
        """The panel floats over the panes (True) rather than standing beside them."""
        self.border_subtitle = Text(OVERLAY_SUBTITLE)

    def set_covering(self, covering: bool) -> None:
        """Say in the border whether the panel covers the panes."""
        if covering != self.covering:
            self.covering = covering
            self.border_subtitle = Text(OVERLAY_SUBTITLE if covering else SIDE_SUBTITLE)

    def on_mount(self) -> None:
        self.show(self._doc)
