"""RubricScreen: one response scored on each rubric criterion; ↑↓ move between criteria."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType

from annotate.design import Criterion
from annotate.model import Assignment, Item, Judgment
from annotate.tui.content import response_doc
from annotate.tui.render import Doc
from annotate.tui.screens.grade import grade_keys
from annotate.tui.screens.item import ItemScreen, digit_bindings
from annotate.tui.widgets.label_bar import LabelBar
from annotate.tui.widgets.response_pane import ResponsePane
from annotate.tui.widgets.rubric_form import RubricForm


class RubricScreen(ItemScreen):
    """Score every criterion (a digit scores the current one and moves to the next)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *digit_bindings({}),
        Binding("down", "criterion(1)", "Next criterion", id="criterion-next", show=False,
                tooltip="Digits then score that one"),
        Binding("up", "criterion(-1)", "Previous criterion", id="criterion-previous", show=False,
                tooltip="Digits then score that one"),
    ]

    HELP_NOTES = ("Digits score the marked criterion and move to the next.", *ItemScreen.HELP_NOTES)
    HELP_GROUPS = (("Criteria", ("criterion-next", "criterion-previous")),)

    def __init__(self, start_index: int, open_guideline: bool = False) -> None:
        super().__init__(start_index, open_guideline)
        self.scores: dict[str, int] = {}
        """Criterion name -> score given so far."""
        self.current = 0

    @property
    def criteria(self) -> tuple[Criterion, ...]:
        return self.annotate_app.spec.schema.criteria

    def compose_panes(self) -> ComposeResult:
        yield ResponsePane("Response", self.annotate_app.lines_for, id="response", classes="response")

    def compose_answer(self) -> ComposeResult:
        yield RubricForm(id="rubric")
        yield LabelBar(id="labels")

    def docs_for(self, item: Item, assignment: Assignment) -> list[tuple[str, Doc]]:
        return [("response", response_doc(item, item.responses[0].slot, self.show_earlier))]

    def has_answer(self) -> bool:
        return all(c.name in self.scores for c in self.criteria)

    def clear_answer(self) -> None:
        self.scores = {}
        self.current = 0

    def load_answer(self, judgment: Judgment) -> None:
        self.scores = {k: int(v) for k, v in judgment.scores.items()}

    def answer_fields(self) -> dict[str, Any]:
        return {"label": None, "scores": dict(self.scores)}

    def on_digit(self, digit: str) -> None:
        criterion = self.criteria[self.current]
        keys = grade_keys(criterion.low, criterion.high)
        if digit not in keys:
            self.app.bell()
            return
        self.scores[criterion.name] = keys[digit]
        self.record("key.score", criterion=criterion.name, score=keys[digit])
        if self.current + 1 < len(self.criteria):
            self.current += 1

    def action_criterion(self, step: int) -> None:
        self.current = (self.current + int(step)) % len(self.criteria)
        self.record("key.criterion", criterion=self.criteria[self.current].name)
        self.refresh_answer()

    def action_criterion_click(self, index: int, key: str = "") -> None:
        """A click in a criterion's row: on a score (its digit `key`), what marking the row and
        pressing that digit does; on the row's name, mark the row."""
        index = int(index)
        if not 0 <= index < len(self.criteria) or (key and self.answer_blocked(str(key))):
            return
        if index != self.current:
            self.current = index
            self.record("key.criterion", criterion=self.criteria[index].name)
        if key:
            self.action_pick(str(key))
        else:
            self.refresh_answer()

    def refresh_answer(self) -> None:
        form = self.query_one(RubricForm)
        form.criteria = self.criteria
        form.scores = dict(self.scores)
        form.current = self.current
        form.refresh(layout=True)
        bar = self.query_one(LabelBar)
        bar.options = ()
        bar.prefix = "Rubric"
        super().refresh_answer()
