"""PairwiseScreen: the prompt above, Left and Right responses side by side (stacked when narrow)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType

from annotate.model import Assignment, Item, Judgment, side_to_slot, slot_to_side
from annotate.tui.content import response_doc
from annotate.tui.render import Doc
from annotate.tui.screens.item import ItemScreen, digit_bindings
from annotate.tui.widgets.label_bar import LabelBar
from annotate.tui.widgets.response_pane import ResponsePane

OUTCOMES: tuple[tuple[str, str, str], ...] = (
    ("1", "left", "Left better"),
    ("2", "right", "Right better"),
    ("3", "tie", "Tie"),
    ("4", "both_bad", "Both bad"),
)
"""(key, side-space label, description): the four outcomes in key order."""


class PairwiseScreen(ItemScreen):
    """Judge which of two responses is better. Labels are chosen in side space (Left/Right)
    and stored in slot space through the assignment's `swapped` flag."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *digit_bindings({key: (text, f"label-{side.replace('_', '-')}") for key, side, text in OUTCOMES}),
        Binding("l", "link", "Link scrolling", id="link", show=False,
                tooltip="Scroll Left and Right together, or each on its own"),
    ]

    HELP_GROUPS = (("Outcome", ("label-left", "label-right", "label-tie", "label-both-bad")),)

    def __init__(self, start_index: int, open_guideline: bool = False) -> None:
        super().__init__(start_index, open_guideline)
        self.choice: str | None = None
        """The side-space outcome chosen: left, right, tie, both_bad; None until one is."""

    def compose_panes(self) -> ComposeResult:
        lines_for = self.annotate_app.lines_for
        yield ResponsePane("Left", lines_for, id="left", classes="response")
        yield ResponsePane("Right", lines_for, id="right", classes="response")

    def docs_for(self, item: Item, assignment: Assignment) -> list[tuple[str, Doc]]:
        left = side_to_slot("left", assignment.swapped)
        right = side_to_slot("right", assignment.swapped)
        return [("left", response_doc(item, left)), ("right", response_doc(item, right))]

    def has_answer(self) -> bool:
        return self.choice is not None

    def clear_answer(self) -> None:
        self.choice = None

    def load_answer(self, judgment: Judgment) -> None:
        if judgment.label is not None and self.assignment is not None:
            self.choice = slot_to_side(judgment.label, self.assignment.swapped)

    def answer_fields(self) -> dict[str, Any]:
        assert self.choice is not None and self.assignment is not None
        return {"label": side_to_slot(self.choice, self.assignment.swapped), "scores": {}}

    def on_digit(self, digit: str) -> None:
        for key, side, _text in OUTCOMES:
            if key == digit:
                self.choice = side
                slot = side_to_slot(side, self.assignment.swapped) if self.assignment else side
                self.record("key.label", key=key, side=side, slot=slot)
                return
        self.app.bell()

    def refresh_answer(self) -> None:
        bar = self.query_one(LabelBar)
        bar.options = tuple((key, text) for key, _side, text in OUTCOMES)
        bar.selected = next((key for key, side, _ in OUTCOMES if side == self.choice), None)
        super().refresh_answer()

    def action_link(self) -> None:
        self.linked = not self.linked
        self.record("scroll.link", linked=self.linked)
        self.show_notice("Left and Right scroll together" if self.linked else "Left and Right scroll separately")
