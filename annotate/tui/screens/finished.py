"""FinishedDialog: every item has an answer. Dismisses with `back` or `quit`."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class FinishedDialog(ModalScreen[str]):
    """Says the queue is done; `b` goes back to revise, `q` quits."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b,backspace,escape", "choose('back')", "Back to revise", id="finished-back"),
        Binding("q,enter", "choose('quit')", "Quit", id="finished-quit"),
    ]

    def __init__(self, total: int, skipped: int) -> None:
        super().__init__()
        self.total = total
        self.skipped = skipped

    def compose(self) -> ComposeResult:
        skipped = f" ({self.skipped} skipped)" if self.skipped else ""
        with Vertical(id="finished-box"):
            yield Static(Text(f"All {self.total} items have an answer{skipped}. Thank you!", style="bold"))
            yield Static(Text("Everything is saved. b goes back to revise the last item; q or Enter quits."))

    def action_choose(self, what: str) -> None:
        self.dismiss(what)
