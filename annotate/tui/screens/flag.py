"""FlagDialog: tell the lead an item has a problem (apart from answering or skipping it).

Dismisses with a `FlagChoice` (a kind and a note, or a withdrawal of the item's open flags), or
None when cancelled. The kinds are annotate.flags' FLAG_KINDS; `other` needs a note.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from annotate.flags import FLAG_KINDS, MAX_NOTE_CHARS, Flag, check_flag
from annotate.safe_text import one_line


@dataclass(frozen=True)
class FlagChoice:
    """What the annotator chose in the dialog."""

    kind: str = ""
    """One of FLAG_KINDS; empty when `withdraw`."""
    note: str = ""
    withdraw: bool = False
    """Withdraw the open flags this annotator put on the item."""


class FlagDialog(ModalScreen[FlagChoice | None]):
    """Pick a kind with 1-5 (or the arrows and Enter), write a note, Enter flags; Esc cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="flag-cancel", tooltip="Do not flag"),
        Binding("w", "withdraw", "Withdraw", id="flag-withdraw", show=False,
                tooltip="Withdraw your open flags on this item"),
        *[Binding(str(i), f"pick({i - 1})", show=False, id=f"flag-kind-{i}") for i in range(1, len(FLAG_KINDS) + 1)],
    ]

    def __init__(self, open_flags: tuple[Flag, ...] = ()) -> None:
        super().__init__()
        self.open_flags = open_flags
        """This annotator's open flags on the item (shown, and `w` withdraws them)."""
        self.kind = ""
        """The kind picked, once picked."""

    def compose(self) -> ComposeResult:
        with Vertical(id="flag-box"):
            yield Static(Text("Flag this item for the lead (your answer or skip stays as it is)", style="bold"))
            if self.open_flags:
                flagged = "; ".join(one_line(f.text)[:80] for f in self.open_flags)
                yield Static(Text(f"Flagged already: {flagged} (w withdraws)", style="italic"), id="flag-open")
            yield OptionList(
                *[Option(Text(f"{i}  {text}"), id=kind) for i, (kind, text) in enumerate(FLAG_KINDS, start=1)],
                id="flag-kinds",
            )
            yield Input(placeholder="A note for the lead (optional; needed for other), then Enter",
                        id="flag-note", max_length=MAX_NOTE_CHARS)
            yield Static(Text("", style="bold"), id="flag-error")
            yield Static(Text("1-5 or ↑↓ Enter to choose · Esc to go back to the item", style="dim"), id="flag-help")

    def on_mount(self) -> None:
        self.query_one("#flag-note", Input).display = False
        self.query_one(OptionList).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "withdraw":
            return True if self.open_flags and not self.query_one("#flag-note", Input).has_focus else None
        return not (action == "pick" and self.query_one("#flag-note", Input).has_focus)  # digits: note text

    def action_pick(self, index: int) -> None:
        self._chosen(FLAG_KINDS[int(index)][0])

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self._chosen(event.option.id or "other")

    def _chosen(self, kind: str) -> None:
        self.kind = kind
        self.query_one(OptionList).highlighted = [k for k, _t in FLAG_KINDS].index(kind)
        box = self.query_one("#flag-note", Input)
        box.display = True
        box.focus()
        what = dict(FLAG_KINDS)[kind]
        self.query_one("#flag-help", Static).update(Text(f"{what}: Enter flags · Esc to go back", style="dim"))

    @on(Input.Submitted, "#flag-note")
    def _note(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            note = check_flag(self.kind, event.value)
        except ValueError as exc:
            self.query_one("#flag-error", Static).update(Text(str(exc), style="bold"))
            return
        self.dismiss(FlagChoice(self.kind, note))

    def action_withdraw(self) -> None:
        if self.open_flags:
            self.dismiss(FlagChoice(withdraw=True))

    def action_cancel(self) -> None:
        self.dismiss(None)
