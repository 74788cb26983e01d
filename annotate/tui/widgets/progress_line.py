"""ProgressLine: where the annotator is, how long this sitting has lasted, a gentle break note."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from annotate.safe_text import sanitize

BREAK_AFTER_S = 50 * 60
"""A break is suggested after this long without a pause of several minutes."""

REASON_CHARS = 40
"""A skip reason longer than this is cut (with an ellipsis) on the progress line."""


def skip_state(reason: str | None) -> str:
    """`skipped: expertise`, or `skipped: other: too long to…`: the reason on one line, sanitised."""
    text = " ".join(sanitize(reason or "").split())
    if len(text) > REASON_CHARS:
        text = text[: REASON_CHARS - 1].rstrip() + "…"
    return f"skipped: {text}" if text else "skipped"


def sitting_label(seconds: float) -> str:
    """`23m` or `1h 05m`."""
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes}m"
    return f"{minutes // 60}h {minutes % 60:02d}m"


class ProgressLine(Widget):
    """One line: `Item 13 of 44 #K7QM2X (skipped: expertise) · 11 of 44 done · 1 skipped · this sitting 23m`,
    and on the right a transient notice, the save status and a gentle break note.

    When the line is too narrow, the sitting time goes first, then the counts; the item, the
    notice and the save status stay.
    """

    DEFAULT_CSS = """
    ProgressLine { height: 1; }
    """

    position: reactive[int] = reactive(0)
    """Zero-based queue position of the item on screen."""
    total: reactive[int] = reactive(0)
    done: reactive[int] = reactive(0)
    """Assignments answered (skips not included)."""
    skipped: reactive[int] = reactive(0)
    """Assignments whose current judgment is a skip."""
    sitting_s: reactive[float] = reactive(0.0)
    """Seconds since the app started."""
    take_break: reactive[bool] = reactive(False)
    status: reactive[str] = reactive("")
    """A short fixed note, e.g. `Saved`."""
    state: reactive[str] = reactive("")
    """What the item on screen already has: empty, `answered` or `skipped: <reason>` (sanitised)."""
    ref: reactive[str] = reactive("")
    """The item's short reference (annotate.refs), for the annotator to quote to the lead."""
    flagged: reactive[str] = reactive("")
    """`flagged: identity leak` when the item on screen has open flags of this annotator."""
    writing: reactive[str] = reactive("")
    """`writing your queue: 1,200 of 1,000,000` while the rest of a newcomer's queue is being written."""
    notice: reactive[str] = reactive("")
    """A transient message (e.g. `Left and Right scroll separately`); the screen clears it."""

    def render(self) -> Text:
        head = Text(no_wrap=True)
        head.append(f" Item {self.position + 1:,} of {self.total:,}", style="bold")
        if self.ref:
            head.append(f" #{self.ref}")
        states = [s for s in (self.state, self.flagged) if s]
        if states:
            head.append(f" ({', '.join(states)})", style="italic")
        counts = f" · {self.done:,} of {self.total:,} done"
        if self.skipped:
            counts += f" · {self.skipped:,} skipped"
        sitting = f" · this sitting {sitting_label(self.sitting_s)}"
        right = Text(no_wrap=True)
        if self.notice:
            right.append(f" {self.notice} ", style="bold reverse")
            right.append(" ")
        if self.writing:
            right.append(f"{self.writing} ", style="italic")
        if self.status:
            right.append(f"{self.status} ", style="italic")
        if self.take_break:
            right.append(" Consider a short break ", style="reverse")
        width = self.size.width
        for extra in (counts + sitting, counts, ""):
            if head.cell_len + len(extra) + right.cell_len + 1 <= width:
                break
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append_text(head)
        text.append(extra)
        pad = width - text.cell_len - right.cell_len
        if pad > 0:
            text.append(" " * pad)
        elif right:
            text.append(" ")
        text.append_text(right)
        return text
