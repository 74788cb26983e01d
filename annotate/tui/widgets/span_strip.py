"""SpanStrip: the errors marked on the item on screen, in a line or (in span mode) a short list."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from annotate.design.spans import words
from annotate.tui.screens.span_dialog import excerpt

LIST_ROWS = 3
"""Errors listed at most in span mode (the rest are counted)."""


@dataclass(frozen=True)
class SpanRow:
    """One marked error as the strip lists it (fixed words, taxonomy names and the marked text only)."""

    category: str
    severity: str
    text: str
    """The marked stretch of the original text (shown sanitised, on one line)."""
    note: str = ""
    current: bool = False


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
    """The errors of the pane in span mode, in text order."""
    others: int = 0
    """Errors other annotators marked on this item (adjudication)."""
    severe_word: str = "major"
    """The most severe severity, as the counts name it."""


class SpanStrip(Widget):
    """One line outside span mode (`Errors  Left 2 (1 major) · Right none   m mark  v plain text`);
    in span mode, the pane's errors (the current one marked) and what the keys do."""

    DEFAULT_CSS = """
    SpanStrip { height: auto; max-height: 5; background: $boost; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    state: reactive[StripState] = reactive(StripState)
    """Painted again on every change; laid out again (the screen's layout) only when its height changes."""

    def watch_state(self, old: StripState, new: StripState) -> None:
        if rows_shown(old) != rows_shown(new):
            self.refresh(layout=True)

    def render(self) -> Text:
        state = self.state
        out = Text(no_wrap=True, overflow="ellipsis")
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
            return out
        out.append(f" Marking errors in {state.marking}", style="bold")
        if state.anchored:
            out.append(f" · selecting {state.anchored:,} characters: Enter marks them, Esc drops the anchor")
        else:
            out.append(" · arrows or h j k l move, w b e by words; Space anchors, Enter marks (no anchor: the"
                       " word); or drag the mouse; Esc done", style="dim")
        if not state.rows:
            out.append("\n  no errors marked in this response yet", style="dim")
        shown = _window(state.rows)
        for row in shown:
            out.append("\n")
            out.append(" ▶ " if row.current else "   ", style="bold green")
            out.append(f"{words(row.category)} · {words(row.severity)} ", style="bold")
            out.append("“")
            out.append(excerpt(row.text, 60))
            out.append("”")
            if row.note:
                out.append(f"  {excerpt(row.note, 60)}", style="italic")
        if len(state.rows) > len(shown):
            out.append(f"\n   … {len(state.rows) - len(shown)} more (n / p go through them; x deletes)", style="dim")
        return out


def rows_shown(state: StripState) -> int:
    """The strip's height for `state`: one line outside span mode; in span mode the title, the listed
    errors (or the line saying there are none) and the line counting the rest."""
    if not state.marking:
        return 1
    listed = len(_window(state.rows))
    return 1 + max(listed, 1) + (1 if len(state.rows) > listed else 0)


def _window(rows: tuple[SpanRow, ...]) -> tuple[SpanRow, ...]:
    """At most LIST_ROWS rows around the current one."""
    if len(rows) <= LIST_ROWS:
        return rows
    current = next((i for i, r in enumerate(rows) if r.current), 0)
    start = min(max(current - 1, 0), len(rows) - LIST_ROWS)
    return rows[start : start + LIST_ROWS]
