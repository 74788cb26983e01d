"""QueueChangedDialog: the lead planned the session again while the app was open."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static


class QueueChangedDialog(ModalScreen[None]):
    """Says that the queue was read again, and what became of the last answer; Enter goes on."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,escape,space", "close", "Go on", id="queue-changed-ok"),
    ]

    def __init__(self, total: int, lost_position: int | None, *, on_screen_left: bool, position: int) -> None:
        super().__init__()
        self.total = total
        self.lost_position = lost_position
        self.on_screen_left = on_screen_left
        self.position = position

    def lines(self) -> list[str]:
        """The dialog's text, one paragraph a line."""
        said = ["The lead planned this session again while you had it open, so your queue was read again."]
        if self.lost_position is not None:
            said.append(
                f"Your answer to item {self.lost_position + 1} was NOT saved: that item is no longer in your queue"
                " as it was shown to you, and an answer is never filed on another item."
            )
        elif self.on_screen_left:
            said.append("The item that was on screen is no longer in your queue.")
        if self.total:
            said.append(f"Your queue now has {self.total} items; you go on at item {self.position}.")
        else:
            said.append("The new plan gives you no items: press Enter, then q to quit.")
        return said

    def compose(self) -> ComposeResult:
        with Vertical(id="queue-changed-box"):
            yield Static(Text("Your queue has changed", style="bold"))
            for line in self.lines():
                yield Static(Text(line))
            yield Static(Text("Enter: go on", style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)
