"""QueueWritingDialog: every item written so far has an answer and more of the queue is being written.

Modal, as the "all done" dialog it stands in for: no key reaches the item screen meanwhile (its answer
clock has stopped). The app dismisses it with `next` when more items are stored (`growing_queue.py`),
with `done` when nothing more comes; `b` goes back to revise the last item, `q` quits (the next start
writes the rest).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Static


class QueueWritingDialog(ModalScreen[str]):
    """Says the rest of the queue is on its way; goes away by itself when it is."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b,backspace,escape", "choose('back')", "Back to revise", id="writing-back"),
        Binding("q", "choose('quit')", "Quit", id="writing-quit"),
    ]

    def __init__(self, note: Callable[[], str]) -> None:
        super().__init__()
        self._note = note
        self._ready: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="writing-box"):
            yield Static(Text("Every item written so far has an answer.", style="bold"))
            yield Static(self._text(), id="writing-note")

    def _text(self) -> Text:
        note = self._note()
        progress = f" ({note})" if note else ""
        return Text(f"The rest of your queue is still being written{progress}: the next item shows as soon as it "
                    "is stored. b goes back to revise the last item; q quits (your next start writes the rest).")

    def refresh_progress(self) -> None:
        """A chunk landed (or a write): show how far the queue is."""
        try:
            self.query_one("#writing-note", Static).update(self._text())
        except NoMatches:
            return

    def ready(self, what: str) -> None:
        """The app's word (`next`, `done`): dismissed now if on top, else once the screen above it closes."""
        if self.app.screen is self:
            self.dismiss(what)
        else:
            self._ready = what

    def on_screen_resume(self) -> None:
        if self._ready is not None:
            what, self._ready = self._ready, None
            self.dismiss(what)

    def action_choose(self, what: str) -> None:
        self.dismiss(what)
