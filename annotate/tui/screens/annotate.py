"""PairwiseScreen: the prompt above, Left and Right responses side by side (stacked when narrow).

What is asked comes from the session's label schema (annotate.design): one question (the four
outcomes, or a graded scale) is one answer bar; several (aspects) are one row each, moved between
with the up and down arrows, a digit answering the marked row and moving to the next. Answers are
chosen in side space (Left/Right) and stored in slot space through the assignment's display order.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType

from annotate.design import Order, Question, order_of
from annotate.model import Assignment, Item, Judgment, side_to_slot
from annotate.tui.content import response_doc
from annotate.tui.render import Doc
from annotate.tui.screens.item import ItemScreen, digit_bindings
from annotate.tui.widgets.label_bar import LabelBar
from annotate.tui.widgets.question_form import QuestionForm
from annotate.tui.widgets.response_pane import ResponsePane

OUTCOMES: tuple[tuple[str, str, str], ...] = (
    ("1", "left", "Left better"),
    ("2", "right", "Right better"),
    ("3", "tie", "Tie"),
    ("4", "both_bad", "Both bad"),
)
"""(key, side-space label, description): the four outcomes in key order (the help screen's names)."""


class PairwiseScreen(ItemScreen):
    """Judge two responses on the schema's questions. Answers are chosen in side space (Left/Right)
    and stored in slot space through the assignment's `swapped` flag."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *digit_bindings({key: (text, f"label-{side.replace('_', '-')}") for key, side, text in OUTCOMES}),
        Binding("l", "link", "Link scrolling", id="link", show=False,
                tooltip="Scroll Left and Right together, or each on its own"),
        Binding("down", "question(1)", "Next aspect", id="aspect-next", show=False,
                tooltip="Digits then answer that one"),
        Binding("up", "question(-1)", "Previous aspect", id="aspect-previous", show=False,
                tooltip="Digits then answer that one"),
    ]

    HELP_GROUPS = (("Outcome", ("label-left", "label-right", "label-tie", "label-both-bad")),)

    def __init__(self, start_index: int, open_guideline: bool = False) -> None:
        super().__init__(start_index, open_guideline)
        self.answers: dict[str, str] = {}
        """Question name -> the side-space answer chosen (left, right, tie, +2 from the left...)."""
        self.current = 0
        """Index of the question the digit keys answer (aspects)."""

    # -- the schema --------------------------------------------------------------------------

    @property
    def questions(self) -> tuple[Question, ...]:
        return self.annotate_app.spec.schema.questions

    @property
    def several(self) -> bool:
        """One row per question (aspects) rather than one answer bar."""
        return len(self.questions) > 1

    @property
    def order(self) -> Order:
        """The slots left to right for the assignment on screen."""
        return order_of(self.assignment.swapped if self.assignment is not None else False)

    @property
    def choice(self) -> str | None:
        """The side-space answer to the first question (the only one outside aspect sessions)."""
        return self.answers.get(self.questions[0].name)

    def help_groups(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        if self.several:
            return (("Aspects", ("aspect-next", "aspect-previous")),)
        return self.HELP_GROUPS if self._four_outcomes() else ()

    def help_answers(self) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
        if not self.several and self._four_outcomes():
            return ()  # the bindings' own descriptions say it
        return tuple(
            (f"Aspect: {q.name}" if self.several else "Answer",
             tuple((c.key, c.text) for c in q.choices()))
            for q in self.questions
        )

    def _four_outcomes(self) -> bool:
        first = self.questions[0]
        return tuple((c.key, c.value, c.text) for c in first.choices()) == OUTCOMES

    # -- layout ------------------------------------------------------------------------------

    def compose_panes(self) -> ComposeResult:
        lines_for = self.annotate_app.lines_for
        yield ResponsePane("Left", lines_for, id="left", classes="response")
        yield ResponsePane("Right", lines_for, id="right", classes="response")

    def compose_answer(self) -> ComposeResult:
        if self.several:
            yield QuestionForm(id="aspects")
        yield LabelBar(id="labels")

    def docs_for(self, item: Item, assignment: Assignment) -> list[tuple[str, Doc]]:
        left = side_to_slot("left", assignment.swapped)
        right = side_to_slot("right", assignment.swapped)
        earlier = self.show_earlier
        return [("left", response_doc(item, left, earlier)), ("right", response_doc(item, right, earlier))]

    # -- the answer --------------------------------------------------------------------------

    def has_answer(self) -> bool:
        return all(q.name in self.answers for q in self.questions)

    def clear_answer(self) -> None:
        self.answers = {}
        self.current = 0

    def load_answer(self, judgment: Judgment) -> None:
        schema = self.annotate_app.spec.schema
        stored = schema.decode(judgment.label, judgment.scores)
        try:
            self.answers = schema.sides(stored, self.order)
        except ValueError:  # a value outside the schema: shown as not answered
            self.answers = {}

    def answer_fields(self) -> dict[str, Any]:
        schema = self.annotate_app.spec.schema
        order = self.order
        stored = {q.name: q.to_slot(self.answers[q.name], order) for q in self.questions}
        label, scores = schema.encode(stored)
        return {"label": label, "scores": scores}

    def on_digit(self, digit: str) -> None:
        question = self.questions[self.current]
        choice = next((c for c in question.choices() if c.key == digit), None)
        if choice is None:
            self.app.bell()
            return
        self.answers[question.name] = choice.value
        slot = question.to_slot(choice.value, self.order)
        if self.several:
            self.record("key.label", key=digit, side=choice.value, slot=slot, question=question.name)
            if self.current + 1 < len(self.questions):
                self.current += 1
        else:
            self.record("key.label", key=digit, side=choice.value, slot=slot)

    def action_question(self, step: int) -> None:
        if not self.several:  # one question: the arrows scroll, as everywhere
            self.action_scroll("down" if int(step) > 0 else "up")
            return
        self.current = (self.current + int(step)) % len(self.questions)
        self.record("key.question", question=self.questions[self.current].name)
        self.refresh_answer()

    def action_aspect(self, index: int, key: str = "") -> None:
        """A click in an aspect's row: on an answer (`key`), what marking the row and pressing that
        digit does; on the row's name, mark the row."""
        index = int(index)
        if not self.several or not 0 <= index < len(self.questions) or (key and self.answer_blocked(str(key))):
            return
        if index != self.current:
            self.current = index
            self.record("key.question", question=self.questions[index].name)
        if key:
            self.action_pick(str(key))
        else:
            self.refresh_answer()

    def refresh_answer(self) -> None:
        bar = self.query_one(LabelBar)
        if self.several:
            form = self.query_one(QuestionForm)
            form.questions = self.questions
            form.answers = dict(self.answers)
            form.current = self.current
            bar.options = ()
            bar.short_options = ()
            bar.prefix = "Aspects"
        else:
            question = self.questions[0]
            choices = question.choices()
            bar.options = tuple((c.key, c.text) for c in choices)
            bar.short_options = tuple((c.key, c.short) for c in choices)
            bar.selected = next((c.key for c in choices if c.value == self.choice), None)
        super().refresh_answer()

    def action_link(self) -> None:
        self.linked = not self.linked
        self.record("scroll.link", linked=self.linked)
        self.show_notice("Left and Right scroll together" if self.linked else "Left and Right scroll separately")
