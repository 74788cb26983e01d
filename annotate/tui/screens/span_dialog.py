"""SpanDialog: the category, severity and note of an error span; dismisses with them, or None.

Keyboard first: a digit picks the category and moves to the severity row, a digit there picks the
severity and moves to the note; Enter saves once both are chosen, Esc cancels; ↑ ↓ move between the
rows. A click on an option picks it. Only fixed words and the taxonomy's names are shown, and the
marked text itself (sanitised, on one line, cut short), never as markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from annotate.design.spans import MAX_NOTE, Taxonomy, words
from annotate.safe_text import one_line

EXCERPT_CHARS = 160
"""The marked text shown in the dialog is cut after this many characters."""


@dataclass(frozen=True)
class SpanChoice:
    """What the dialog gives back."""

    category: str
    severity: str
    note: str = ""


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """`text` on one line, sanitised, cut in the middle when long."""
    shown = one_line(text)
    if len(shown) <= limit:
        return shown
    half = limit // 2 - 1
    return shown[:half] + " … " + shown[-half:]


class _Options(Static):
    """One row of options (`1 factual  2 reasoning ...`); a click picks the option under it."""

    def __init__(self, row: int, *, id: str) -> None:
        super().__init__("", id=id)
        self.row = row
        self.spans: list[tuple[int, int, int]] = []
        """(first cell, last cell + 1, option index) of each option on the row."""

    def on_click(self, event: events.Click) -> None:
        for first, last, index in self.spans:
            if first <= event.x < last:
                self.screen.pick_option(self.row, index)  # type: ignore[attr-defined]
                return


class SpanDialog(ModalScreen[SpanChoice | None]):
    """Choose the category and severity of a marked error, and optionally write a note."""

    AUTO_FOCUS = None
    """The rows take the digits; the note box gets focus only on its row."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="span-dialog-cancel", tooltip="Do not mark this error"),
        Binding("enter", "save", "Save", id="span-dialog-save", tooltip="Save the error"),
        Binding("up", "row(-1)", "Previous row", show=False, id="span-dialog-up"),
        Binding("down", "row(1)", "Next row", show=False, id="span-dialog-down"),
        *[Binding(str(i), f"digit({i})", show=False, id=f"span-dialog-{i}") for i in range(1, 10)],
    ]

    def __init__(self, taxonomy: Taxonomy, where: str, text: str, initial: SpanChoice | None = None) -> None:
        super().__init__()
        self.taxonomy = taxonomy
        self.where = where
        """`Left`, `Right` or `Response`: the fixed title of the pane."""
        self.text = text
        """The marked stretch of the original text."""
        self.category = initial.category if initial else None
        self.severity = initial.severity if initial else None
        self.note = initial.note if initial else ""
        self.row = 0
        """0 category, 1 severity, 2 note."""
        self.editing = initial is not None

    def compose(self) -> ComposeResult:
        with Vertical(id="span-box"):
            verb = "Change the error" if self.editing else "Mark an error"
            yield Static(Text(f"{verb} in {self.where}", style="bold"))
            quoted = Text("“", style="dim")
            quoted.append(excerpt(self.text))
            quoted.append(f"” ({len(self.text):,} characters)", style="dim")
            yield Static(quoted, id="span-excerpt")
            yield _Options(0, id="span-categories")
            yield _Options(1, id="span-severities")
            yield Input(self.note, placeholder="Note (optional), then Enter", id="span-note", max_length=MAX_NOTE,
                        disabled=True)
            yield Static(Text("digits choose · ↑↓ row · Enter save · Esc cancel", style="dim"), id="span-help")

    def on_mount(self) -> None:
        self._paint()

    def _paint(self) -> None:
        rows = (
            (0, "Category", self.taxonomy.categories, self.category),
            (1, "Severity", self.taxonomy.severities, self.severity),
        )
        for row, title, names, chosen in rows:
            widget = self.query_one("#span-categories" if row == 0 else "#span-severities", _Options)
            text = Text(no_wrap=False)
            active = self.row == row
            text.append(("▸ " if active else "  ") + f"{title:<9}", style="bold" if active else "")
            widget.spans = []
            for index, name in enumerate(names):
                picked = name == chosen
                start = text.cell_len
                text.append(" ▶" if picked else "  ", style="bold green")
                text.append(f" {index + 1} ", style="bold reverse green" if picked else "bold reverse")
                text.append(f" {words(name)}", style="bold green underline" if picked else "")
                text.append("◀" if picked else " ", style="bold green")
                widget.spans.append((start, text.cell_len, index))
            widget.update(text)

    def action_row(self, step: int) -> None:
        self.row = min(max(self.row + int(step), 0), 2)
        self._focus_row()

    def _focus_row(self) -> None:
        box = self.query_one(Input)
        box.disabled = self.row != 2
        if self.row == 2:
            box.focus()
        else:
            self.set_focus(None)
        self._paint()

    def action_digit(self, digit: int) -> None:
        if self.row == 2:
            return
        self.pick_option(self.row, int(digit) - 1)

    def pick_option(self, row: int, index: int) -> None:
        names = self.taxonomy.categories if row == 0 else self.taxonomy.severities
        if not 0 <= index < len(names):
            self.app.bell()
            return
        if row == 0:
            self.category = names[index]
        else:
            self.severity = names[index]
        self.row = row + 1
        self._focus_row()

    def on_key(self, event: events.Key) -> None:
        if self.row == 2 and event.key == "up":
            event.stop()
            self.action_row(-1)

    @on(Input.Submitted, "#span-note")
    def _note_done(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def action_save(self) -> None:
        if self.category is None:
            self.row = 0
        elif self.severity is None:
            self.row = 1
        else:
            note = self.query_one(Input).value.strip()
            self.dismiss(SpanChoice(self.category, self.severity, note))
            return
        self.app.bell()
        self._focus_row()

    def action_cancel(self) -> None:
        self.dismiss(None)
