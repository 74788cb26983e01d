"""FinishedDialog: every item has an answer. Dismisses with `back` or `quit`."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Static


class FinishedDialog(ModalScreen[str]):
    """Says the queue is done; `b` goes back to revise, `q` quits."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b,backspace,escape", "choose('back')", "Back to revise", id="finished-back"),
        Binding("q,enter", "choose('quit')", "Quit", id="finished-quit"),
    ]

    def __init__(self, total: int, skipped: int, *, unwritten: int = 0) -> None:
        super().__init__()
        self.total = total
        self.skipped = skipped
        self.unwritten = unwritten
        """Items of the queue that could not be written in this sitting (the next start writes them)."""

    def compose(self) -> ComposeResult:
        skipped = f" ({self.skipped} skipped)" if self.skipped else ""
        with Vertical(id="finished-box"):
            if self.unwritten:
                yield Static(Text(f"All {self.total} items written so far have an answer{skipped}; "
                                  f"{self.unwritten:,} more join your queue on your next start.", style="bold"))
            else:
                yield Static(Text(f"All {self.total} items have an answer{skipped}. Thank you!", style="bold"))
            yield Static(self._saved_text(), id="finished-saved")

    def _saved_text(self) -> Text:
        status = getattr(self.app, "save_status", "")
        if status.startswith("Saving"):
            said = "Saving your last answer… q or Enter quits once it is written."
        elif status.startswith("NOT SAVED"):
            said = f"{status}: b goes back to that item to answer it again; q quits."
        else:
            said = "Everything is saved."
        return Text(f"{said} b goes back to revise the last item; q or Enter quits."
                    if said == "Everything is saved." else said)

    def refresh_progress(self) -> None:
        """The app's save status changed (a write landed). A write can land between the dialog's push and
        its compose (or during its dismissal): there is nothing to update then, compose reads the status."""
        try:
            saved = self.query_one("#finished-saved", Static)
        except NoMatches:
            return
        saved.update(self._saved_text())

    def action_choose(self, what: str) -> None:
        self.dismiss(what)
