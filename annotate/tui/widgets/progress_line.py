"""ProgressLine: where the annotator is, how long this sitting has lasted, a gentle break note."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

BREAK_AFTER_S = 50 * 60
"""A break is suggested after this long without a pause of several minutes."""


def sitting_label(seconds: float) -> str:
    """`23m` or `1h 05m`."""
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes}m"
    return f"{minutes // 60}h {minutes % 60:02d}m"


class ProgressLine(Widget):
    """One line: `Item 13 of 44 · 12 of 44 done · this sitting 23m`, and notes on the right."""

    DEFAULT_CSS = """
    ProgressLine { height: 1; }
    """

    position: reactive[int] = reactive(0)
    """Zero-based queue position of the item on screen."""
    total: reactive[int] = reactive(0)
    done: reactive[int] = reactive(0)
    """Assignments with a current judgment (skips included)."""
    sitting_s: reactive[float] = reactive(0.0)
    """Seconds since the app started."""
    take_break: reactive[bool] = reactive(False)
    status: reactive[str] = reactive("")
    """A short fixed note, e.g. `Saved`."""
    finished_here: reactive[bool] = reactive(False)
    """The item on screen already has an answer (revising)."""

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f" Item {self.position + 1} of {self.total}", style="bold")
        if self.finished_here:
            text.append(" (answered)", style="italic")
        text.append(f" · {self.done} of {self.total} done · this sitting {sitting_label(self.sitting_s)}")
        right = Text()
        if self.status:
            right.append(f"{self.status} ", style="italic")
        if self.take_break:
            right.append(" Consider a short break ", style="reverse")
        pad = self.size.width - text.cell_len - right.cell_len
        if pad > 0:
            text.append(" " * pad)
        elif right:
            text.append(" ")
        text.append_text(right)
        return text
