"""GradeScreen: one response, one grade on the session's scale (single-response tasks)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType

from annotate.design import grade_keys
from annotate.model import Assignment, Item, Judgment
from annotate.tui.content import response_doc
from annotate.tui.render import Doc
from annotate.tui.screens.item import ItemScreen, digit_bindings
from annotate.tui.widgets.label_bar import LabelBar
from annotate.tui.widgets.response_pane import ResponsePane

__all__ = ["GradeScreen", "grade_keys"]


class GradeScreen(ItemScreen):
    """Grade one response; the grade is stored as text in `label`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *digit_bindings({}),
        Binding("minus,left", "step(-1)", "Lower grade", id="grade-down", show=False, tooltip="One point lower"),
        Binding("plus,equals_sign,right", "step(1)", "Higher grade", id="grade-up", show=False,
                tooltip="One point higher"),
    ]

    HELP_NOTES = ("Digits set the grade (on a 1-10 scale, 0 means 10).", *ItemScreen.HELP_NOTES)
    HELP_GROUPS = (("Grade", ("grade-down", "grade-up")),)

    def __init__(self, start_index: int, open_guideline: bool = False) -> None:
        super().__init__(start_index, open_guideline)
        self.grade: int | None = None
        """The grade chosen, None until one is."""

    @property
    def scale(self) -> tuple[int, int]:
        return self.annotate_app.spec.schema.scale

    def compose_panes(self) -> ComposeResult:
        yield ResponsePane("Response", self.annotate_app.lines_for, id="response", classes="response")

    def docs_for(self, item: Item, assignment: Assignment) -> list[tuple[str, Doc]]:
        return [("response", response_doc(item, item.responses[0].slot, self.show_earlier))]

    def has_answer(self) -> bool:
        return self.grade is not None

    def clear_answer(self) -> None:
        self.grade = None

    def load_answer(self, judgment: Judgment) -> None:
        if judgment.label is not None and judgment.label.lstrip("-").isdigit():
            self.grade = int(judgment.label)

    def answer_fields(self) -> dict[str, Any]:
        return {"label": str(self.grade), "scores": {}}

    def on_digit(self, digit: str) -> None:
        keys = grade_keys(*self.scale)
        if digit not in keys:
            self.app.bell()
            return
        self.grade = keys[digit]
        self.record("key.grade", key=digit, grade=self.grade)

    def action_step(self, step: int) -> None:
        if self.answer_blocked("+" if int(step) > 0 else "-"):
            return
        low, high = self.scale
        start = self.grade if self.grade is not None else (low + high) // 2 - int(step)
        self.grade = min(high, max(low, start + int(step)))
        self.record("key.grade", key="step", grade=self.grade)
        self.refresh_answer()

    def refresh_answer(self) -> None:
        bar = self.query_one(LabelBar)
        keys = grade_keys(*self.scale)
        low, high = self.scale
        if keys:
            bar.options = tuple((key, str(grade)) for key, grade in keys.items())
            bar.selected = next((k for k, g in keys.items() if g == self.grade), None)
        else:
            bar.options = (("-/+", f"{self.grade if self.grade is not None else '?'} of {low}..{high}"),)
            bar.selected = "-/+" if self.grade is not None else None
        bar.prefix = f"Grade {low}-{high}"
        super().refresh_answer()
