"""SpanStrip: the errors marked on the item on screen: a line of counts and (in span mode, those of
the pane being marked) a short list.

The strip keeps one height (STRIP_ROWS) whatever it shows, so that span mode going on or off, or
an error marked, never lays the screen out again: a strip that grew and shrank resized both panes
and painted every widget of the screen again on `m` and on Escape.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from annotate.design.spans import words
from annotate.tui.screens.span_dialog import excerpt

STRIP_ROWS = 3
"""The strip's height (app.tcss): the counts or the title line, then the list."""

LIST_ROWS = STRIP_ROWS - 1
"""Errors listed at most (the title line counts all of them)."""


@dataclass(frozen=True)
class SpanRow:
    """One marked error as the strip lists it (fixed words, taxonomy names and the marked text only)."""

    category: str
    severity: str
    text: str
    """The marked stretch of the original text (shown sanitised, on one line)."""
    note: str = ""
    current: bool = False
    where: str = ""
    """The pane's title, outside span mode (the errors of every pane are listed)."""


@dataclass(frozen=True)
class StripState:
    """What the strip shows."""

    counts: tuple[tuple[str, int, int], ...] = ()
    """(pane title, errors, of which the most severe) per response pane, in screen order."""
    marking: str = ""
    """The pane in span mode (`Left`), or empty outside span mode."""
    anchored: int = 0
    """Characters selected from the anchor to the cursor (0: no anchor)."""
    rows: tuple[SpanRow, ...] = ()
    """The errors of the pane in span mode, in text order; outside span mode, those of every pane."""
    others: int = 0
    """Errors other annotators marked on this item (adjudication)."""
    severe_word: str = "major"
    """The most severe severity, as the counts name it."""


class SpanStrip(Widget):
    """Outside span mode, the counts (`Errors  Left 2 (1 major) · Right none   m mark  v plain text`)
    and the first errors marked; in span mode, what the keys do and the pane's errors around the
    current one (marked). Always STRIP_ROWS lines high."""

    state: reactive[StripState] = reactive(StripState)
    """Painted again on every change; never laid out again (the strip's height is fixed)."""

    def render(self) -> Text:
        state = self.state
        out = Text(no_wrap=True, overflow="ellipsis")
        shown = _window(state.rows)
        if not state.marking:
            out.append(" Errors ", style="bold")
            for index, (title, n, severe) in enumerate(state.counts):
                out.append(" · " if index else " ")
                out.append(f"{title}: ", style="bold")
                out.append("none" if not n else f"{n}" + (f" ({severe} {words(state.severe_word)})" if severe else ""))
            if state.others:
                out.append(f"   others marked {state.others}", style="italic")
            out.append("   m", style="bold")
            out.append(" mark errors  ")
            out.append("v", style="bold")
            out.append(" plain text / Markdown")
            if len(state.rows) > len(shown):
                out.append(f"   (the first {len(shown)} listed)", style="dim")
        else:
            out.append(f" Marking errors in {state.marking}", style="bold")
            if len(state.rows) > len(shown):
                out.append(f" · {len(state.rows)} errors: n / p go through them, x deletes", style="bold")
            if state.anchored:
                out.append(f" · selecting {state.anchored:,} characters: Enter marks them, Esc drops the anchor")
            else:
                out.append(" · arrows or h j k l move, w b e by words; Space anchors, Enter marks (no anchor: the"
                           " word); or drag the mouse; Esc done", style="dim")
            if not state.rows:
                out.append("\n  no errors marked in this response yet", style="dim")
        for row in shown:
            out.append("\n")
            out.append(" ▶ " if row.current else "   ", style="bold green")
            if row.where:
                out.append(f"{row.where}: ", style="bold")
            out.append(f"{words(row.category)} · {words(row.severity)} ", style="bold")
            out.append("“")
            out.append(excerpt(row.text, 60))
            out.append("”")
            if row.note:
                out.append(f"  {excerpt(row.note, 60)}", style="italic")
        return out


def rows_shown(state: StripState) -> int:
    """The lines `state` fills (at most STRIP_ROWS): the counts or the title line, then the list (in span
    mode with no error yet, the line saying so)."""
    listed = len(_window(state.rows))
    return 1 + (max(listed, 1) if state.marking else listed)


def _window(rows: tuple[SpanRow, ...]) -> tuple[SpanRow, ...]:
    """At most LIST_ROWS rows around the current one."""
    if len(rows) <= LIST_ROWS:
        return rows
    current = next((i for i, r in enumerate(rows) if r.current), 0)
    start = min(max(current - 1, 0), len(rows) - LIST_ROWS)
    return rows[start : start + LIST_ROWS]
