"""TrainingScreen: the training round, answered before the main queue (annotate.training).

One training item at a time, Left and Right as in the pairwise screen (the sides of the round's
entry). After an answer the screen shows the expected outcome on the sides the annotator saw, their
own answer and the item's explanation (untrusted text: sanitised, never markup) until Enter
dismisses it. After the last item a dialog says passed (the main queue opens) or not passed (the
score, the threshold and the command with which the lead lets them through; a new round when the
spec allows retries). The screen dismisses with True when the main queue opens, False to quit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from annotate.model import SIDE_TEXT, side_to_slot
from annotate.safe_text import sanitize
from annotate.training import TrainingEntry, TrainingItem, TrainingState, needed, outcome_text
from annotate.tui.content import prompt_doc, response_doc
from annotate.tui.widgets.prompt_pane import PromptPane
from annotate.tui.widgets.response_pane import ResponsePane

if TYPE_CHECKING:
    from annotate.tui.app import AnnotateApp

ANSWER_KEYS = {"1": "left", "2": "right", "3": "tie", "4": "both_bad"}
"""Digit -> side-space answer, as on the pairwise screen."""


class TrainingScreen(Screen[bool]):
    """The training round of one annotator; its entries are read and written on the app's store thread."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *[Binding(key, f"answer('{side}')", SIDE_TEXT[side], id=f"training-{side.replace('_', '-')}", show=False)
          for key, side in ANSWER_KEYS.items()],
        Binding("enter", "continue", "Next", id="training-next", tooltip="Dismiss the feedback and go on"),
        Binding("i,colon", "items", "Items", id="training-items", tooltip="The training items and their state"),
        Binding("tab", "switch_pane(1)", "Switch pane", id="training-switch", show=False),
        Binding("j,down", "scroll(1)", "Scroll down", id="training-down", show=False),
        Binding("k,up", "scroll(-1)", "Scroll up", id="training-up", show=False),
        Binding("space,pagedown", "scroll(10)", "Page down", id="training-page-down", show=False),
        Binding("pageup", "scroll(-10)", "Page up", id="training-page-up", show=False),
        Binding("q", "quit", "Quit", id="training-quit", tooltip="Save and quit; starting again resumes here"),
    ]

    def __init__(self, state: TrainingState) -> None:
        super().__init__()
        self.state = state
        self.entries: list[TrainingEntry] = []
        """The round's entries in display order (read on mount)."""
        self.items: dict[str, TrainingItem] = {}
        self.index = 0
        """The entry on screen."""
        self.active = 1
        """The pane the scroll keys act on (0 prompt, 1 left, 2 right)."""

    @property
    def annotate_app(self) -> AnnotateApp:
        return self.app  # type: ignore[return-value]

    # -- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        lines_for = self.annotate_app.lines_for
        yield Static(id="progress")
        yield PromptPane(lines_for, id="prompt")
        with Container(id="panes"):
            yield ResponsePane("Left", lines_for, id="left", classes="response")
            yield ResponsePane("Right", lines_for, id="right", classes="response")
        with VerticalScroll(id="training-feedback") as feedback:
            feedback.border_title = "Expected outcome"
            yield Static(id="training-feedback-text")
        yield Static(id="keys")

    def on_mount(self) -> None:
        self.set_class(self.app.size.width < 120, "-narrow")
        self._read()
        self.index = self._next_unfinished()
        self._show()

    def on_resize(self) -> None:
        self.set_class(self.app.size.width < 120, "-narrow")

    def _call(self, fn, *args):  # type: ignore[no-untyped-def]
        """Run a Store call on the app's store thread (in order with every other write) and wait."""
        app = self.annotate_app
        return app.runner.call(fn, app.store, *args).result()

    def _read(self) -> None:
        from annotate.store.training import start_round, training_items

        app = self.annotate_app
        self.items = {t.item.id: t for t in self._call(training_items)}
        self.entries = self._call(start_round, app.spec, app.annotator)

    def _next_unfinished(self) -> int:
        """The first entry not answered or whose feedback is still to be seen; len(entries) when none."""
        return next((i for i, e in enumerate(self.entries) if e.state != "answered"), len(self.entries))

    # -- showing an entry -----------------------------------------------------------------------

    @property
    def entry(self) -> TrainingEntry | None:
        return self.entries[self.index] if self.index < len(self.entries) else None

    def _show(self) -> None:
        entry = self.entry
        if entry is None:
            self.call_after_refresh(self._round_over)
            return
        item = self.items[entry.item_id].item
        self.query_one("#prompt", PromptPane).show(prompt_doc(item))
        for side in ("left", "right"):
            pane = self.query_one(f"#{side}", ResponsePane)
            pane.slot = side_to_slot(side, entry.swapped)
            pane.show(response_doc(item, pane.slot))
        self._mark_active()
        self._refresh()

    def _refresh(self) -> None:
        entry = self.entry
        total = len(self.entries)
        if entry is None:
            return
        round_ = f" · round {entry.attempt}" if entry.attempt > 1 else ""
        self.query_one("#progress", Static).update(Text(
            f" Training {self.index + 1} of {total}{round_} · {needed(total, self.state.threshold)} of {total}"
            " right to pass"))
        feedback = self.query_one("#training-feedback", VerticalScroll)
        feedback.display = entry.label is not None
        keys = self.query_one("#keys", Static)
        if entry.label is None:
            keys.update(Text(" 1 Left better · 2 Right better · 3 Tie · 4 Both bad · Tab pane · i Items · q Quit",
                             style="bold"))
            return
        self.query_one("#training-feedback-text", Static).update(feedback_text(entry, self.items[entry.item_id]))
        last = self.index == total - 1
        keys.update(Text(f" Enter {'see your result' if last else 'next training item'} · i Items · q Quit",
                         style="bold"))

    # -- keys -----------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        entry = self.entry
        if action == "answer":
            return entry is not None and entry.label is None
        if action == "continue":
            return entry is not None and entry.label is not None
        return True

    def action_answer(self, side: str) -> None:
        from annotate.store.training import answer

        entry = self.entry
        if entry is None or entry.label is not None:
            return
        self.entries[self.index] = self._call(answer, entry, side_to_slot(side, entry.swapped))
        self._refresh()
        self.refresh_bindings()

    def action_continue(self) -> None:
        from annotate.store.training import acknowledge

        entry = self.entry
        if entry is None or entry.label is None:
            return
        if entry.acknowledged_at is None:
            self.entries[self.index] = self._call(acknowledge, entry)
        self.index = self._next_unfinished()
        self._show()
        self.refresh_bindings()

    def action_items(self) -> None:
        from annotate.tui.screens.items import TrainingItemsDialog

        def chosen(index: int | None) -> None:
            if index is not None and (self.entries[index].label is not None or index == self._next_unfinished()):
                self.index = index
                self._show()
                self.refresh_bindings()

        self.app.push_screen(TrainingItemsDialog(self.entries, self.index), chosen)

    def action_switch_pane(self, step: int) -> None:
        self.active = (self.active + int(step)) % 3
        self._mark_active()

    def _mark_active(self) -> None:
        for i, pane in enumerate(self._panes()):
            pane.set_class(i == self.active, "-active")

    def _panes(self) -> list[ResponsePane]:
        return [self.query_one("#prompt", PromptPane), self.query_one("#left", ResponsePane),
                self.query_one("#right", ResponsePane)]

    def action_scroll(self, lines: int) -> None:
        self._panes()[self.active].scroll_relative(y=int(lines), animate=False, immediate=True)

    def action_quit(self) -> None:
        self.annotate_app.quit_after_writes()

    # -- the end of a round ---------------------------------------------------------------------

    def _round_over(self) -> None:
        from annotate.store.training import training_state

        app = self.annotate_app
        state = self._call(training_state, app.spec, app.annotator)
        self.state = state

        def chosen(what: str | None) -> None:
            if what == "open":
                self.dismiss(True)
            elif what == "retry":
                from annotate.store.training import new_round

                self.entries = self._call(new_round, app.spec, app.annotator)
                self.index = 0
                self._show()
                self.refresh_bindings()
            else:
                self.dismiss(False)

        self.app.push_screen(TrainingResultDialog(state, app.spec.name), chosen)


def feedback_text(entry: TrainingEntry, training: TrainingItem) -> Text:
    """What the annotator sees after an answer: the expected outcome and theirs, on the sides they
    saw, and the explanation (sanitised; never read as markup)."""
    assert entry.label is not None
    expected = outcome_text(training.gold, entry.swapped)
    given = outcome_text(entry.label, entry.swapped)
    right = entry.label == training.gold
    text = Text()
    text.append("✓ Right." if right else "✗ Not the expected outcome.", style="bold green" if right else "bold red")
    text.append("\nExpected: ", style="bold")
    text.append(expected)
    text.append(" · Your answer: ", style="bold")
    text.append(given)
    text.append("\n")
    text.append("Why: ", style="bold")
    text.append(sanitize(training.explanation))
    return text


class TrainingResultDialog(ModalScreen[str]):
    """The round's result: passed (Enter opens the main queue) or not (the score, the threshold, who
    can let the annotator through; r for a new round when retries are left). Dismisses with
    `open`, `retry` or `quit`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "choose('open')", "Start", id="training-open"),
        Binding("r", "choose('retry')", "New round", id="training-retry"),
        Binding("q,escape", "choose('quit')", "Quit", id="training-result-quit"),
    ]

    def __init__(self, state: TrainingState, session: str) -> None:
        super().__init__()
        self.state = state
        self.session = session

    def compose(self) -> ComposeResult:
        state = self.state
        score = f"{state.correct} of {state.total} right ({state.correct / max(1, state.total):.0%})"
        threshold = f"the pass threshold is {state.threshold:.0%} ({needed(state.total, state.threshold)} of" \
                    f" {state.total})"
        with Container(id="training-result-box"):
            if state.opens:
                yield Static(Text("Training passed." if state.passed else "Training done.", style="bold"))
                lead = "" if state.passed else " The lead has let you through."
                yield Static(Text(f"{score}; {threshold}.{lead} Enter starts the main queue.",
                                  style="bold"))
            else:
                yield Static(Text("Training not passed.", style="bold red"))
                command = f"annotate training {self.session} --pass {self.state.annotator}"
                lines = [f"{score}; {threshold}.",
                         f"The lead can let you through with `{command}`; the main queue then opens when"
                         " you start again."]
                if state.may_retry:
                    left = state.retries - state.attempt + 1
                    lines.append(f"r starts a new round ({left} left); q quits.")
                else:
                    lines.append("q quits.")
                yield Static(Text(sanitize("\n".join(lines))))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "choose" and parameters:
            if parameters[0] == "open":
                return self.state.opens
            if parameters[0] == "retry":
                return self.state.may_retry
        return True

    def action_choose(self, what: str) -> None:
        self.dismiss(what)

