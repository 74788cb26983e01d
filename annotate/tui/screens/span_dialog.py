"""SpanDialog: the category, severity and note of an error span; closes with them, or None.

Keyboard first: a digit picks the category and moves to the severity row, a digit there picks the
severity and moves to the note; Enter saves once both are chosen, Esc cancels; ↑ ↓ move between the
rows. A click on an option picks it. Only fixed words and the taxonomy's names are shown, and the
marked text itself (sanitised, on one line, cut short), never as markup.

The dialog is a box on the item screen's overlay layer, built once with the screen and shown over
the panes, not a modal screen: opening and closing it lays out and paints only its own region
(a pushed screen repaints the whole dimmed base screen, and popping it the whole item screen,
which at 10k characters per response was several times the 50 ms key-to-paint target). It is
hidden with `visibility`, not `display`, so that it keeps its place in the screen's arrangement:
a widget joining or leaving it renumbers the painting order of every other widget, and the whole
screen was painted again on opening and on closing. Nor does
it take the focus: the pane in span mode keeps it, and the item screen routes every key to the
box (`press`) while it is open (moving the focus restyled and painted the pane again, on opening
and on closing); only the note box takes the focus, on its row, to receive typed text. The item
screen also keeps the app's bindings from the keys and drops mouse events outside the box, so it
is as modal as the screen it replaces.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.actions import parse as parse_action
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding, BindingType
from textual.containers import Vertical
from textual.widget import Widget
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
        dialog = next((node for node in self.ancestors if isinstance(node, SpanDialog)), None)
        for first, last, index in self.spans:
            if dialog is not None and first <= event.x < last:
                dialog.pick_option(self.row, index)
                return


class SpanDialog(Vertical):
    """Choose the category and severity of a marked error, and optionally write a note.

    Hidden until `open`; `done` is called once with the choice, or None when cancelled."""

    can_focus = False
    """The focus stays where it was (the pane in span mode), and the item screen routes the keys here;
    the note box gets the focus on its row."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="span-dialog-cancel", tooltip="Do not mark this error"),
        Binding("enter", "save", "Save", id="span-dialog-save", tooltip="Save the error"),
        Binding("up", "row(-1)", "Previous row", show=False, id="span-dialog-up"),
        Binding("down", "row(1)", "Next row", show=False, id="span-dialog-down"),
        *[Binding(str(i), f"digit({i})", show=False, id=f"span-dialog-{i}") for i in range(1, 10)],
    ]

    def __init__(self, taxonomy: Taxonomy, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.taxonomy = taxonomy
        self.where = ""
        """`Left`, `Right` or `Response`: the fixed title of the pane."""
        self.text = ""
        """The marked stretch of the original text."""
        self.category: str | None = None
        self.severity: str | None = None
        self.note = ""
        self.row = 0
        """0 category, 1 severity, 2 note."""
        self.editing = False
        self._done: Callable[[SpanChoice | None], None] | None = None
        self._focus_before: Widget | None = None
        self.visible = False  # laid out always (see `open`), shown only while open

    def compose(self) -> ComposeResult:
        yield Static("", id="span-title")
        yield Static("", id="span-excerpt")
        yield _Options(0, id="span-categories")
        yield _Options(1, id="span-severities")
        yield Input("", placeholder="Note (optional), then Enter", id="span-note", max_length=MAX_NOTE,
                    disabled=True)
        yield Static(Text("digits choose · ↑↓ row · Enter save · Esc cancel", style="dim"), id="span-help")

    @property
    def is_open(self) -> bool:
        return self._done is not None

    def open(self, where: str, text: str, initial: SpanChoice | None,
             done: Callable[[SpanChoice | None], None]) -> None:
        """Show the dialog for the marked `text` of pane `where` (`initial`: the error being changed)."""
        self.where = where
        self.text = text
        self.category = initial.category if initial else None
        self.severity = initial.severity if initial else None
        self.note = initial.note if initial else ""
        self.editing = initial is not None
        self.row = 0
        self._done = done
        verb = "Change the error" if self.editing else "Mark an error"
        self.query_one("#span-title", Static).update(Text(f"{verb} in {where}", style="bold"))
        quoted = Text("“", style="dim")
        quoted.append(excerpt(text))
        quoted.append(f"” ({len(text):,} characters)", style="dim")
        self.query_one("#span-excerpt", Static).update(quoted)
        box = self.query_one(Input)
        box.value = self.note
        box.disabled = True
        self._focus_before = None
        self.place()
        self.visible = True
        self._paint()

    def place(self) -> None:
        """Put the box in the middle of the screen, from its height worked out from what it shows
        (measuring it would cost another layout before the first paint)."""
        width, height = self.screen.size
        inner = max(1, min(84, width) - 6)  # the border and the padding

        def lines(cells: int) -> int:
            return max(1, -(-cells // inner))

        shown = [excerpt(self.text) + f"“” ({len(self.text):,} characters)"]
        for names in (self.taxonomy.categories, self.taxonomy.severities):
            shown.append(" " * 11 + "".join(f"    {index + 1}  {words(name)} " for index, name in enumerate(names)))
        rows = 4 + 1 + sum(lines(Text(line).cell_len) for line in shown) + 1 + 1 + 3 + 1
        self.styles.offset = (max(0, (width - min(84, width)) // 2), max(0, (height - rows) // 2))

    def abandon(self) -> None:
        """Hide the dialog without a choice and without calling `done` (its item left the screen)."""
        self._done = None
        self.visible = False
        self._leave_note()

    def _close(self, choice: SpanChoice | None) -> None:
        done, self._done = self._done, None
        self.visible = False
        self._leave_note()
        if done is not None:
            done(choice)

    def _leave_note(self) -> None:
        """Disable the note box; if it had the focus, give the focus back to where it was before, and
        disable the box after the paint (a restyle of a box no one sees: meanwhile a closed dialog
        lets no focus into it, and the severity row is not the note's)."""
        box = self.query_one(Input)
        before, self._focus_before = self._focus_before, None
        if not box.has_focus:
            box.disabled = True
            return
        if before is not None and before.is_attached and before.focusable:
            self.screen.set_focus(before)
        else:
            self.screen.set_focus(None)
        self.call_after_refresh(self._disable_note)

    def _disable_note(self) -> None:
        if not (self.is_open and self.row == 2):
            self.query_one(Input).disabled = True

    def allow_focus_children(self) -> bool:
        """The note box is focusable only while the dialog is open (a hidden box must not take the
        focus the screen gives back)."""
        return self.is_open

    def check_consume_key(self, key: str, character: str | None) -> bool:
        """While open (the note box focused), no key reaches the item screen's or the app's bindings."""
        return self.is_open

    def press(self, key: str) -> None:
        """A key the item screen routes here while the dialog is open and the focus is outside it: what
        the box's binding for it does (other keys do nothing, as in a modal dialog)."""
        for binding in self._bindings.key_to_bindings.get(key, ()):
            _namespace, name, params = parse_action(binding.action)
            getattr(self, f"action_{name}")(*params)
            return

    def routed_bindings(self) -> dict[str, ActiveBinding]:
        """The box's bindings as the key bar shows them while the keys are routed here."""
        return {key: ActiveBinding(self, binding, True, binding.tooltip) for key, binding in self._bindings}

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
        """The note row gives the note box the focus (it takes typed text); leaving it gives the focus back."""
        box = self.query_one(Input)
        if self.row == 2:
            if not box.has_focus:
                self._focus_before = self.screen.focused
                box.disabled = False
                box.focus()
        elif not box.disabled:
            self._leave_note()
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
            self._close(SpanChoice(self.category, self.severity, note))
            return
        self.app.bell()
        self._focus_row()

    def action_cancel(self) -> None:
        self._close(None)
