"""SuggestionLine and SuggestionController: an LLM suggestion on the annotation screen, exactly as
the assignment's condition says (DESIGN.md section 6; the rules are in `annotate.suggest.display`).

The screen owns one controller and calls it at four points: when an item is shown (`start`),
when the reveal key is pressed (`reveal`), before a submit (`intercept_submit`, the `after`
mode's two-step answer) and when the judgment is built (`complete`, which adds the initial label
and the time the suggestion was on screen). The line shows fixed words and the label in side
space ("Suggestion: Left better"); never the model's name.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from annotate.model import Assignment, Judgment
from annotate.safe_text import sanitize
from annotate.suggest.display import INITIAL_EVENT, REVEAL_EVENT, SHOWN_EVENT, SuggestionView

if TYPE_CHECKING:
    from annotate.store import Store
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

    def render(self) -> Text:
        return Text(sanitize(self.text), no_wrap=True, overflow="ellipsis")


def _labels(store: Store, ids: list[int]) -> dict[int, str]:
    out = {}
    for suggestion_id in ids:
        try:
            out[suggestion_id] = store.suggestion(suggestion_id).label
        except KeyError:
            continue
    return out


class SuggestionController:
    """The suggestion state of an ItemScreen's current item."""

    def __init__(self, screen: ItemScreen) -> None:
        self.screen = screen
        self.view: SuggestionView | None = None
        self._labels: dict[int, str] | None = None

    def _label(self, suggestion_id: int | None) -> str | None:
        """The suggestion's label, read on the app's store thread (once for the whole queue)."""
        if suggestion_id is None:
            return None
        app = self.screen.annotate_app
        if self._labels is None:
            ids = sorted({a.suggestion_id for a in app.queue.assignments if a.suggestion_id is not None})
            self._labels = app.runner.call(_labels, app.store, ids).result()
        if suggestion_id not in self._labels:
            self._labels.update(app.runner.call(_labels, app.store, [suggestion_id]).result())
        return self._labels.get(suggestion_id)

    def start(self, assignment: Assignment, stored: Judgment | None) -> None:
        """A new item is on screen; `stored` is its answer when the annotator is revising."""
        app = self.screen.annotate_app
        revisiting = stored is not None and not stored.skipped
        self.view = SuggestionView.start(
            assignment.condition, self._label(assignment.suggestion_id), app.spec.kind, assignment.swapped,
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
