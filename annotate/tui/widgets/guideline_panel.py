"""GuidelinePanel: the session's guideline beside (or over) the item, toggled with a key."""

from __future__ import annotations

from rich.text import Text

from annotate.guidelines import Guideline
from annotate.safe_text import sanitize
from annotate.tui.render import Block, Doc
from annotate.tui.widgets.doc_view import DocView, LinesFor


class GuidelinePanel(DocView):
    """The guideline's Markdown, titled with its title and version."""

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
        self.border_subtitle = Text("g or Esc closes · j/k scroll")

    def on_mount(self) -> None:
        self.show(self._doc)
