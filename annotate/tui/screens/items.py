"""ItemsDialog: the items around the one on screen with their state, and going to item N.

Dismisses with the queue index to go to, or None. The list shows a window of the queue around the
item on screen (read through the queue's pages: never the whole queue) with each entry's number,
reference and state (answered, skipped and why, flagged, not yet answered). Typing a number or a
reference (as the lead quotes it) and Enter goes there; a reference is looked up on a worker
thread, since it means hashing the ids of the whole queue.

In a session with a training round the training items are listed first (`T1`, `T2`, ...), with
their state (answered, gold feedback pending, not answered); TrainingItemsDialog lists them alone
during the round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from annotate.refs import parse_ref
from annotate.text import plural
from annotate.training import TrainingEntry
from annotate.tui.screens.item_flag import flag_state
from annotate.tui.widgets.progress_line import skip_state

if TYPE_CHECKING:
    from annotate.tui.app import AnnotateApp

WINDOW = 50
"""Entries listed before and after the item on screen."""


def entry_state(app: AnnotateApp, index: int) -> str:
    """`answered`, `skipped: expertise`, `not answered`, with `⚑ flagged: ...` after."""
    assignment, judgment = app.queue.entry(index)
    state = "not answered" if judgment is None else skip_state(judgment.skip_reason) if judgment.skipped else "answered"
    flags = app.queue.flags(assignment.id)
    return f"{state} · ⚑ {flag_state(flags)}" if flags else state


def training_entry_state(entry: TrainingEntry) -> str:
    """`not answered`, `gold feedback pending` (answered, the expected outcome not yet seen) or `answered`."""
    return entry.state


def training_options(app: AnnotateApp, entries: list[TrainingEntry], current: int | None,
                     disabled: bool) -> list[Option]:
    """One line per training entry: `T2  #K7QM2X  gold feedback pending`."""
    options = []
    for index, entry in enumerate(entries):
        here = "▶" if index == current else " "
        line = Text(f"{here} {'T' + str(index + 1):>6}  #{app.item_ref(entry.item_id)}  {training_entry_state(entry)}")
        options.append(Option(line, id=f"t{index}", disabled=disabled))
    return options


class TrainingItemsDialog(ModalScreen[int | None]):
    """The training round's items and their state; Enter goes to one (answered ones show their
    feedback again), Esc goes back. Dismisses with the entry's index or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,i", "cancel", "Cancel", id="training-items-cancel", tooltip="Back to the training item"),
    ]

    def __init__(self, entries: list[TrainingEntry], current: int) -> None:
        super().__init__()
        self.entries = entries
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="items-box"):
            yield Static(Text(f"Training: {plural(len(self.entries), 'item')}", style="bold"))
            yield OptionList(*training_options(self.app, self.entries, self.current, False),  # type: ignore[arg-type]
                             id="items-list")
            yield Static(Text("↑↓ and Enter go to an answered item · Esc back", style="dim"), id="items-help")

    def on_mount(self) -> None:
        listing = self.query_one(OptionList)
        listing.highlighted = min(self.current, max(0, len(self.entries) - 1))
        listing.focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int((event.option.id or "t0")[1:]))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ItemsDialog(ModalScreen[int | None]):
    """The queue around the item on screen; a number or a reference goes to that item."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="items-cancel", tooltip="Back to the item"),
        Binding("down", "move(1)", show=False, id="items-down"),
        Binding("up", "move(-1)", show=False, id="items-up"),
        Binding("pagedown", "move(10)", show=False, id="items-page-down"),
        Binding("pageup", "move(-10)", show=False, id="items-page-up"),
    ]

    def __init__(self, current: int) -> None:
        super().__init__()
        self.current = current
        """Queue index of the item on screen."""
        self.first = 0
        """Queue index of the first entry listed."""
        self.training_rows = 0
        """Options listed before the queue's (training items, which cannot be gone to from here)."""

    @property
    def annotate_app(self) -> AnnotateApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        total = len(self.annotate_app.queue)
        with Vertical(id="items-box"):
            yield Static(Text(f"Your queue: {plural(total, 'item')}", style="bold"))
            yield Input(placeholder="Item number or reference (e.g. K7QM2X), then Enter", id="items-goto",
                        max_length=20)
            yield OptionList(id="items-list")
            yield Static(Text("↑↓ and Enter go to an item · Esc back", style="dim"), id="items-help")

    def on_mount(self) -> None:
        app = self.annotate_app
        total = len(app.queue)
        self.first = max(0, self.current - WINDOW)
        last = min(total, self.current + WINDOW + 1)
        options = []
        for index in range(self.first, last):
            ref = app.item_ref(app.queue.entry(index)[0].item_id)
            here = "▶" if index == self.current else " "
            options.append(Option(Text(f"{here} {index + 1:>6}  #{ref}  {entry_state(app, index)}"), id=str(index)))
        listing = self.query_one(OptionList)
        training = self._training_entries()
        listing.add_options([*training_options(app, training, None, True), *options])
        self.training_rows = len(training)
        listing.highlighted = self.current - self.first + self.training_rows
        self.query_one(Input).focus()

    def _training_entries(self) -> list[TrainingEntry]:
        """The annotator's latest training round, when the session has one (read on the reader thread)."""
        app = self.annotate_app
        if getattr(app, "training", None) is None:
            return []
        from annotate.store.training import round_entries

        return app.reader.call(round_entries, app.reader.store, app.annotator).result()

    def action_move(self, step: int) -> None:
        listing = self.query_one(OptionList)
        count = listing.option_count
        if count:
            listing.highlighted = max(0, min(count - 1, (listing.highlighted or 0) + int(step)))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if (event.option.id or "").startswith("t"):
            return
        self.dismiss(int(event.option.id or self.current))

    @on(Input.Submitted, "#items-goto")
    def _typed(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        total = len(self.annotate_app.queue)
        if not text:
            listing = self.query_one(OptionList)
            highlighted = (listing.highlighted or 0) - self.training_rows
            self.dismiss(self.first + highlighted if listing.option_count and highlighted >= 0 else None)
        elif text.isdigit():
            if 1 <= int(text) <= total:
                self.dismiss(int(text) - 1)
            else:
                self._say(f"item {text}: your queue has items 1 to {total}")
        elif (ref := parse_ref(text)) is not None:
            self._say(f"looking up #{ref}…")
            self._look_up(ref)
        else:
            self._say(f"{text[:20]!r} is neither an item number nor a reference (six letters and digits)")

    @work(thread=True, exclusive=True, group="items-ref", description="look up an item reference")
    def _look_up(self, ref: str) -> None:
        from annotate.store.refs import queue_positions_with_ref

        app = self.annotate_app
        reader = app.reader
        positions = reader.call(
            queue_positions_with_ref, reader.store, app.annotator, ref, app.queue.adjudication
        ).result()
        self.app.call_from_thread(self._found, ref, positions)

    def _found(self, ref: str, positions: list[int]) -> None:
        if not positions:
            self._say(f"#{ref} is not in your queue")
            return
        after = [p for p in positions if p > self.current]
        self.dismiss(after[0] if after else positions[0])

    def _say(self, text: str) -> None:
        self.query_one("#items-help", Static).update(Text(text, style="bold"))

    def action_cancel(self) -> None:
        self.dismiss(None)
