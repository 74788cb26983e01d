"""SkipDialog: why an item is skipped; dismisses with the reason, or None when cancelled."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

REASONS: tuple[tuple[str, str], ...] = (
    ("expertise", "I lack the expertise to check it"),
    ("broken", "Broken item: empty, truncated, garbled"),
    ("distressing", "Distressing content"),
    ("identity", "Blinding is broken: I recognise the model"),
    ("other", "Other (type a reason)"),
)
"""(stored reason, what the annotator reads); the codes are the guideline's."""


class SkipDialog(ModalScreen[str | None]):
    """Pick a reason with 1-5 or the arrows and Enter; `other` asks for text. Esc cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="skip-cancel", tooltip="Do not skip"),
        *[Binding(str(i), f"pick({i - 1})", show=False, id=f"skip-reason-{i}") for i in range(1, len(REASONS) + 1)],
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="skip-box"):
            yield Static(Text("Skip this item: why?", style="bold"))
            yield OptionList(
                *[Option(Text(f"{i}  {text}"), id=reason) for i, (reason, text) in enumerate(REASONS, start=1)],
                id="skip-reasons",
            )
            yield Input(placeholder="Your reason, then Enter", id="skip-other", max_length=500)
            yield Static(Text("1-5 or ↑↓ Enter to choose · Esc to go back to the item", style="dim"))

    def on_mount(self) -> None:
        self.query_one("#skip-other", Input).display = False
        self.query_one(OptionList).focus()

    def action_pick(self, index: int) -> None:
        if self.query_one("#skip-other", Input).has_focus:
            return
        self._chosen(REASONS[int(index)][0])

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self._chosen(event.option.id or "other")

    def _chosen(self, reason: str) -> None:
        if reason == "other":
            box = self.query_one("#skip-other", Input)
            box.display = True
            box.focus()
            return
        self.dismiss(reason)

    @on(Input.Submitted, "#skip-other")
    def _other(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if text:
            self.dismiss(f"other: {text}")

    def action_cancel(self) -> None:
        self.dismiss(None)
