"""SuggestionLine and SuggestionController: an LLM suggestion on the annotation screen, exactly as
the assignment's condition says (DESIGN.md section 6; the rules are in `annotate.suggest.display`).

The screen owns one controller and calls it at four points: when an item is shown (`start`),
when the reveal key is pressed (`reveal`), before a submit (`intercept_submit`, the `after`
mode's two-step answer) and when the judgment is built (`complete`, which adds the initial label
and the time the suggestion was on screen). The line shows fixed words and the label in side
space ("Suggestion: Left better"); never the model's name.

The label is read on the store thread with the item (`Prefetcher.label`, asked for first, so it
is there when the item is) and never waited for on the event loop: should it still be on its
way when the item is shown, the controller starts the item without it and catches up when it
arrives (`SuggestionLine.LabelArrived`), as if the item had been shown then; an `after` first
answer given meanwhile is kept and intercepted then (should there be no label after all, the
annotator presses Enter again). In practice the label is always there first.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rich.text import Text
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from annotate.model import Assignment, Judgment
from annotate.safe_text import sanitize
from annotate.suggest.display import INITIAL_EVENT, REVEAL_EVENT, SHOWN_EVENT, SuggestionView

if TYPE_CHECKING:
    from annotate.tui.screens.item import ItemScreen

__all__ = ["SuggestionController", "SuggestionLine"]


class SuggestionLine(Widget):
    """One line under the responses; hidden unless there is something to show."""

    DEFAULT_CSS = """
    SuggestionLine { height: 1; display: none; padding: 0 1; background: $boost; }
    SuggestionLine.-shown { display: block; text-style: bold; }
    SuggestionLine.-offered { display: block; color: $text-muted; }
    """

    text: reactive[str] = reactive("")
    """What the line says (fixed words and a label; sanitised anyway)."""

    @dataclass
    class LabelArrived(Message):
        """A suggestion label read on the store thread is in (posted from that thread)."""

        future: Future[str | None]

    def render(self) -> Text:
        return Text(sanitize(self.text), no_wrap=True, overflow="ellipsis")


def _result(future: Future[str | None]) -> str | None:
    """The label, or None when it could not be read (shown as no suggestion)."""
    return future.result() if future.exception() is None else None


class SuggestionController:
    """The suggestion state of an ItemScreen's current item."""

    def __init__(self, screen: ItemScreen) -> None:
        self.screen = screen
        self.view: SuggestionView | None = None
        self._waiting: tuple[Future[str | None], Assignment, Judgment | None] | None = None
        """The label on its way for the item on screen, with what `start` was given."""
        self._held_answer: tuple[str | None] | None = None
        """`after`: a first answer submitted while the label was on its way."""

    def start(self, assignment: Assignment, stored: Judgment | None) -> None:
        """A new item is on screen; `stored` is its answer when the annotator is revising."""
        self._waiting, self._held_answer = None, None
        label: str | None = None
        if assignment.suggestion_id is not None:
            future = self.screen.annotate_app.prefetcher.label(assignment.suggestion_id)
            if not future.done():  # never wait on the event loop: catch up when it arrives
                self._waiting = (future, assignment, stored)
                line = self.screen.query_one(SuggestionLine)
                future.add_done_callback(lambda f: line.post_message(SuggestionLine.LabelArrived(f)))
            else:
                label = _result(future)
        self._start(assignment, stored, label)

    def label_arrived(self, future: Future[str | None]) -> None:
        """The label for the item on screen arrived: start its suggestion state now."""
        if self._waiting is None or self._waiting[0] is not future:
            return  # for an item no longer on screen
        _, assignment, stored = self._waiting
        self._waiting = None
        self._start(assignment, stored, _result(future))
        if self._held_answer is not None:
            (answer,) = self._held_answer
            self._held_answer = None
            self.intercept_submit(answer)
        self.screen.refresh_answer()

    def _start(self, assignment: Assignment, stored: Judgment | None, label: str | None) -> None:
        app = self.screen.annotate_app
        revisiting = stored is not None and not stored.skipped
        self.view = SuggestionView.start(
            assignment.condition, label, app.spec.kind, assignment.swapped,
            app.clock(), revisiting=revisiting, initial_label=stored.initial_label if stored else None,
            was_revealed=stored is not None and stored.timings.suggestion_ms is not None,
        )
        if self.view.visible:
            self.screen.record(SHOWN_EVENT, by_annotator=False, condition=assignment.condition)
        self.refresh()

    @property
    def can_reveal(self) -> bool:
        return self.view is not None and self.view.can_reveal

    def reveal(self) -> None:
        """`on_request`: show the suggestion and log the reveal."""
        if self.view is not None and self.view.reveal(self.screen.annotate_app.clock()):
            self.screen.record(REVEAL_EVENT, condition=self.view.condition)
            self.refresh()
        else:
            self.screen.app.bell()

    def intercept_submit(self, answer: str | None) -> bool:
        """`after`: the first submit shows the suggestion instead (True: do not commit yet)."""
        if self._waiting is not None and self._waiting[1].condition == "after":
            self._held_answer = (answer,)  # intercepted when the label arrives
            return True
        if self.view is None or not self.view.intercept_submit(answer, self.screen.annotate_app.clock()):
            return False
        self.screen.record(INITIAL_EVENT, initial=answer)
        self.screen.record(SHOWN_EVENT, by_annotator=False, condition=self.view.condition)
        self.refresh()
        return True

    def complete(self, judgment: Judgment, now_ns: int) -> Judgment:
        """The judgment with the initial label (`after`) and the suggestion's time on screen."""
        if self.view is None:
            return judgment
        initial = self.view.initial_label if self.view.condition == "after" else judgment.initial_label
        timings = replace(judgment.timings, suggestion_ms=self.view.suggestion_ms(now_ns))
        return replace(judgment, initial_label=initial, timings=timings)

    def refresh(self) -> None:
        line = self.screen.query_one(SuggestionLine)
        view = self.view
        line.text = "" if view is None else view.text()
        line.set_class(view is not None and view.visible, "-shown")
        line.set_class(view is not None and view.can_reveal, "-offered")
