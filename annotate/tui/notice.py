"""A one-message app: what a browser annotator sees when their queue cannot be opened.

`annotate start` prints such a refusal (the annotator already has the session open elsewhere, the
queue is empty, the guideline is broken) as one line on the terminal; a browser has no terminal,
so the same line is shown on a screen of its own until the annotator closes it.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from annotate.safe_text import sanitize
from annotate.tui.terminal_driver import TerminalDriverChoice


class NoticeApp(TerminalDriverChoice, App[None]):
    """Shows `message` (untrusted text: never markup) and quits on q, Enter or Escape."""

    TITLE = "annotate"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    Screen { align: center middle; }
    #notice { width: 80%; max-width: 100; height: auto; border: heavy $error; padding: 1 2; }
    #notice-hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q,enter,escape", "quit", "Close", id="notice-close"),
    ]

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message

    def compose(self) -> ComposeResult:
        with Vertical(id="notice"):
            yield Static(Text("annotate cannot open your queue", style="bold"))
            yield Static(Text(sanitize(self.message)), id="notice-message")
            yield Static(Text("Press q to close this page's session."), id="notice-hint")
