"""The annotation app, built by `make_app` from a spec, an open store and an annotator's name.

The app owns the queue, the store thread (every Store call runs there, in order) and the
prefetcher (with its render thread); screens own the keys. A submit is queued on the store thread
and the next item is shown at once from what was read and rendered ahead (or, when keys come
faster than that, with only its first screenful rendered on the spot and the rest rendered
after); the progress line says `Saving…` until the write is durable and `Saved` after. Quitting
waits for every queued write.

Its parts: launch.py builds and runs it (make_app, run_app, re-exported here); pacing.py holds
when it collects garbage and the sitting timer (mixins); this module keeps the app's state, its
messages and handlers, the writing path and the watch for a new plan.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial

from textual import on, work
from textual.app import App
from textual.message import Message

from annotate.flags import Flag
from annotate.guidelines import Guideline
from annotate.model import Assignment, Event, Judgment
from annotate.refs import ref_maker
from annotate.spec import SessionSpec
from annotate.store import StaleAssignment, Store
from annotate.store.health import error_text
from annotate.store.refs import ref_key
from annotate.store.sittings import HEARTBEAT_S, Sitting, heartbeat
from annotate.training import TrainingState
from annotate.tui.growing_queue import GrowingQueueMixin
from annotate.tui.launch import make_app, no_queue, no_queue_message, run_app, run_in_sitting, session_guideline
from annotate.tui.pacing import (
    BREAK_RESET_NS,
    FULL_GC_EVERY_NS,
    FULL_GC_IDLE_NS,
    IdleCollectionMixin,
    SittingPaceMixin,
)
from annotate.tui.patient import patiently
from annotate.tui.prefetch import Prefetcher
from annotate.tui.queue import Queue, StoreRunner
from annotate.tui.queue_fill import QueueFill
from annotate.tui.render import Doc, DocLines, LineCache
from annotate.tui.screens.item import ItemScreen
from annotate.tui.terminal_driver import TerminalDriverChoice

__all__ = [
    "BREAK_RESET_NS", "DESIGN_CHECK_S", "DESIGN_KEYS", "FULL_GC_EVERY_NS", "FULL_GC_IDLE_NS", "WRITE_HOLD_S",
    "AnnotateApp", "make_app", "no_queue", "no_queue_message", "run_app", "run_in_sitting", "session_guideline",
]

WRITE_HOLD_S = 0.2
"""A submit's write starts once the next item is painted, or at the latest this long after the key."""
DESIGN_CHECK_S = 5.0
"""How often the app looks whether the lead planned the session again (the queue then reloads)."""
WAITING_STATUS = "Saving… (waiting: another program is writing to the session)"
"""The progress line while a write waits past the busy timeout (a large import's swap)."""
DESIGN_KEYS = ("plan_hash", "experiment_hash")
"""Meta keys whose change means the queue may have changed under the open app."""


class AnnotateApp(TerminalDriverChoice, IdleCollectionMixin, SittingPaceMixin, GrowingQueueMixin, App[None]):
    """One annotator working through their queue in one session."""

    CSS_PATH = "app.tcss"
    TITLE = "annotate"
    ENABLE_COMMAND_PALETTE = False

    @dataclass
    class Saved(Message):
        """A queued write finished (sent from the store thread)."""

        position: int
        """Queue position of the judgment, or -1 for events."""
        judgment: Judgment | None = None
        """The judgment written, for a submit."""
        error: str = ""
        """Empty when the write landed."""
        stale: bool = False
        """The write was refused because its assignment is gone or changed (a new plan)."""

    class Waiting(Message):
        """A write is waiting past the busy timeout for another program's hold on the write lock
        (sent from the store thread); it is tried again until it lands."""

    @dataclass
    class QueueLoaded(Message):
        """The queue was read again (sent from the store thread)."""

        future: Future
        """Holds the new Queue, or the exception that stopped reading it."""
        lost_position: int | None
        """Queue position of an answer refused as stale, if that is why the queue was read."""

    @dataclass
    class DesignRead(Message):
        """The plan and experiment hashes, read on the store thread."""

        hashes: tuple[str | None, ...]

    def __init__(
        self, spec: SessionSpec, store: Store, annotator: str, queue: Queue, guideline: Guideline | None,
        *, guideline_error: str = "", clock: Callable[[], int] = time.monotonic_ns,
        sitting_clock: Callable[[], float] = time.monotonic, open_guideline: bool | None = None,
        load_queue: Callable[[], Queue] | None = None, sitting: Sitting | None = None,
        design_hashes: tuple[str | None, ...] | None = None, queue_fill: QueueFill | None = None,
    ) -> None:
        super().__init__()
        self.spec = spec
        self.store = store
        self.annotator = annotator
        """The annotator's name."""
        self.queue = queue
        self.item_ref = ref_maker(ref_key(store))
        """Item id -> its short reference (annotate.refs), shown on the progress line."""
        self.guideline = guideline
        """The session's guideline, stamped on every judgment; None when it failed to load."""
        self.guideline_error = guideline_error
        from annotate.session import session_taxonomy

        self.taxonomy = session_taxonomy(spec, guideline)
        """The error taxonomy when the session's answers include error spans, else None."""
        self.clock = clock
        """Monotonic nanoseconds; tests pass a fake."""
        self.sitting_clock = sitting_clock
        """Seconds for the sitting timer; snapshot tests freeze it."""
        self.open_guideline = queue.done == 0 if open_guideline is None else open_guideline
        """Open the guideline panel on the first item (an annotator's very first item)."""
        self.runner = StoreRunner(store)
        """Every write (and what must see the writes) runs here, in order."""
        self.reader = StoreRunner(Store.open(store.path))
        """Reads that need not wait for writes (items, queue pages, suggestion labels) run here, on a
        connection of their own: WAL lets them go on while a write waits for the lock."""
        queue.attach(self.reader)
        self.cache = LineCache()
        self.prefetcher = Prefetcher(self.reader, self.cache)
        self.save_status = ""
        """`Saving…`, `Saved` or an error, shown on the progress line."""
        self.write_errors: list[str] = []
        self._writes_in_flight = 0
        """Writes queued and not yet reported by a `Saved` message (reads on the store thread, such
        as read-ahead, are not counted: they must not hold the status at `Saving…`)."""
        self.painted_hooks: list[Callable[[int], None]] = []
        """Called with the monotonic ns each time an item has been painted (benchmarks, tests)."""
        self._sitting_start = sitting_clock()
        self._stretch_start = clock()
        self._last_activity = self._stretch_start
        self._quitting = False
        self._gc_due = False
        self._gc_was_enabled = gc.isenabled()
        self._last_full_gc = clock()
        self.load_queue = load_queue
        """Reads the queue again from the store (on the store thread) when the plan changed."""
        self.sitting = sitting
        """The sitting this app holds (`annotate start`), kept alive by heartbeats; None in tests."""
        self.design_hashes = design_hashes
        """The plan and experiment hashes the queue was read under; None: not watched."""
        self._reloading = False
        self.stale_answers = 0
        """Answers refused because their item had left the queue (a new plan); never saved."""
        self.training: TrainingState | None = None
        """The annotator's training round (annotate.training) when the session has one; set by make_app."""
        self._writes_prepared = False
        self.queue_fill = queue_fill
        """The rest of a newcomer's queue, written a chunk at a time while they work (growing_queue.py)."""

    # -- start -------------------------------------------------------------------------------

    def on_mount(self) -> None:
        # Python's cyclic GC pauses every thread for up to hundreds of ms once the rendered
        # lines of a few long responses are alive: that, not rendering, made p95 key-to-paint
        # miss 50 ms. So collect when it cannot be felt: young objects right after read-ahead
        # finishes, everything only after a pause. Objects from start-up are frozen out of it.
        gc.freeze()
        gc.disable()
        self.set_interval(0.1, self._collect_when_idle)
        if self.design_hashes is not None and self.load_queue is not None:
            self.set_interval(DESIGN_CHECK_S, self._check_design)
        if self.sitting is not None:
            self.set_interval(HEARTBEAT_S, self._beat)
        if not len(self.queue):
            self.exit(message="No items to judge in this session yet: import some first.")
            return
        self.fill_queue()
        if self.training is not None and not self.training.opens:
            from annotate.tui.screens.training import TrainingScreen

            self.push_screen(TrainingScreen(self.training),
                             lambda opened: self.open_queue() if opened else self.quit_after_writes())
            return
        self.open_queue()

    def open_queue(self) -> None:
        """Show the first unfinished item of the queue (the last one, and the done dialog, when none is)."""
        start = self.queue.first_unfinished(0)
        self.push_screen(self._item_screen(start if start is not None else len(self.queue) - 1))
        if start is None:
            self.call_after_refresh(self.all_done)

    def _item_screen(self, index: int) -> ItemScreen:
        if self.spec.kind == "single":
            from annotate.tui.screens.grade import GradeScreen

            return GradeScreen(index, self.open_guideline)
        if self.spec.kind == "rubric":
            from annotate.tui.screens.rubric import RubricScreen

            return RubricScreen(index, self.open_guideline)
        if self.spec.kind == "ranking":
            from annotate.tui.screens.ranking import RankingScreen

            return RankingScreen(index, self.open_guideline)
        from annotate.tui.screens.annotate import PairwiseScreen

        return PairwiseScreen(index, self.open_guideline)

    def item_painted(self, now_ns: int) -> None:
        super().item_painted(now_ns)
        if not self._writes_prepared:
            # The way to the first item never imports sqlite-utils (store/database.py); a write needs it:
            # import it on the store thread now, while the annotator reads, not on the first submit.
            self._writes_prepared = True
            self.runner.call(self.store.db.load)

    # -- rendering ---------------------------------------------------------------------------

    def lines_for(self, doc: Doc, width: int) -> DocLines:
        """A pane's document lines: as far as rendered ahead; the render thread finishes them."""
        return self.prefetcher.lines(doc, width)

    def whole_lines_for(self, doc: Doc, width: int) -> DocLines:
        """A document's lines, all rendered now (the guideline: once per width, never on the way
        from a key to the next item; its scrollbar is exact from the start)."""
        lines = self.cache.get(doc, width)
        lines.finish()
        return lines

    # -- writing -----------------------------------------------------------------------------

    def write_judgment(self, judgment: Judgment, events: Sequence[Event], assignment: Assignment) -> None:
        """Queue a submit (judgment + its events in one transaction) and count it as answered.

        The store files it only on `assignment` exactly as it was shown; if a new plan removed or
        changed it meanwhile, the write is refused and the queue is read again (`_saved`).
        """
        self.queue.set_answer(judgment)
        sitting_id = self.sitting.id if self.sitting is not None else None
        self.runner.hold(WRITE_HOLD_S)  # until the next item is painted (item_painted releases it)
        self._track(partial(self.store.submit, judgment, list(events), shown=assignment, sitting_id=sitting_id,
                            taxonomy=self.taxonomy), assignment.position, judgment)

    def write_flag(self, flag: Flag, events: Sequence[Event], assignment: Assignment) -> None:
        """Queue a flag (with its events) on `assignment` as shown."""
        from annotate.store.flags import add_flag

        self._track(partial(add_flag, self.store, flag, list(events), shown=assignment), -1, None)

    def write_withdrawal(self, assignment: Assignment, events: Sequence[Event]) -> None:
        """Queue the withdrawal of the annotator's open flags on `assignment`."""
        from annotate.store.flags import withdraw_flags

        self._track(partial(withdraw_flags, self.store, assignment, list(events)), -1, None)

    def write_events(self, events: Sequence[Event], assignment: Assignment | None = None) -> None:
        """Queue events that belong to no submit (about `assignment`, when they are)."""
        self._track(partial(self.store.log_events, list(events), shown=assignment), -1, None)

    def _track(self, write: Callable[[], object], position: int, judgment: Judgment | None) -> None:
        """Queue `write` on the store thread (waiting out another program's long hold on the lock,
        patient.py) and say `Saving…` until it lands."""
        self._writes_in_flight += 1
        self.save_status = "Saving…"
        self._refresh_progress()
        future = self.runner.call(patiently(write, lambda: self.post_message(self.Waiting())))

        def done(f: Future) -> None:
            error = f.exception()
            stale = isinstance(error, StaleAssignment)
            text = "" if error is None else error_text(error, self.store.path)
            self.post_message(self.Saved(position, judgment, text, stale=stale))

        future.add_done_callback(done)

    @on(Waiting)
    def _waiting(self, _message: Waiting) -> None:
        if self._writes_in_flight and not self.write_errors:
            self.save_status = WAITING_STATUS
            self._refresh_progress()

    @on(Saved)
    def _saved(self, message: Saved) -> None:
        self._writes_in_flight -= 1
        if message.judgment is not None and (message.error or message.stale):
            self.queue.drop_answer(message.judgment)
        if message.stale:
            if message.position >= 0:
                self.stale_answers += 1
            self.reload_queue(message.position if message.position >= 0 else None)
            if self._writes_in_flight == 0 and not self.write_errors:
                self.save_status = ""
            self._refresh_progress()
        elif message.error:
            what = f"item {message.position + 1}" if message.position >= 0 else "the event log"
            self.write_errors.append(message.error)
            self.save_status = f"NOT SAVED: {what}"
            self.notify(f"Could not save {what}: {message.error}", severity="error", timeout=30)
        elif self._writes_in_flight == 0 and not self.write_errors:
            self.save_status = "Saved"
        self._refresh_progress()

    # -- the queue changing under the app (a new plan) ---------------------------------------

    def _check_design(self) -> None:
        if self._reloading or self._quitting:
            return
        future = self.runner.call(lambda: tuple(self.store.get_meta(k) for k in DESIGN_KEYS))

        def done(f: Future) -> None:
            if f.exception() is None:
                self.post_message(self.DesignRead(f.result()))

        future.add_done_callback(done)

    @on(DesignRead)
    def _design_read(self, message: DesignRead) -> None:
        if message.hashes != self.design_hashes:
            self.reload_queue(None)

    def reload_queue(self, lost_position: int | None) -> None:
        """Read the queue again on the store thread; the screen then goes on in the new one."""
        if self.load_queue is None:
            return
        self._reloading = True
        load = self.load_queue

        def read() -> tuple[Queue, tuple[str | None, ...]]:
            hashes = tuple(self.store.get_meta(k) for k in DESIGN_KEYS)
            return load(), hashes

        future = self.runner.call(read)
        future.add_done_callback(lambda f: self.post_message(self.QueueLoaded(f, lost_position)))

    @on(QueueLoaded)
    def _queue_loaded(self, message: QueueLoaded) -> None:
        self._reloading = False
        error = message.future.exception()
        if error is not None:
            self.notify(f"Could not read your queue again: {error}", severity="error", timeout=30)
            return
        queue, hashes = message.future.result()
        self.design_hashes = hashes
        queue.attach(self.reader)
        self.queue = queue
        screen = self.item_screen_shown()
        if screen is not None:
            screen.queue_replaced(message.lost_position)
        self.fill_queue()  # reading it again may have begun writing more of it (items imported since)

    def _beat(self) -> None:
        if self.sitting is not None and not self._quitting:
            self.runner.call(heartbeat, self.store, self.sitting).add_done_callback(lambda f: f.exception())

    def _refresh_progress(self) -> None:
        """Update the progress line of the item screen, also when a dialog (finished, help, skip) is
        on top of it: `Saving…` must turn into `Saved` behind the dialog too."""
        for screen in self.screen_stack:
            refresh = getattr(screen, "refresh_progress", None)
            if refresh is not None:
                refresh()

    # -- the end -----------------------------------------------------------------------------

    def all_done(self) -> None:
        """Every assignment has an answer: say so; back goes to the last item."""
        from annotate.tui.screens.finished import FinishedDialog

        if isinstance(self.screen, FinishedDialog) or self.holds_back_end():
            return

        def chosen(what: str | None) -> None:
            if what == "back":
                screen = self.screen
                go_to = getattr(screen, "go_to", None)
                if go_to is not None:
                    go_to(len(self.queue) - 1)
            else:
                self.quit_after_writes()

        unwritten = self.queue_fill.remaining if self.queue_fill is not None else 0
        self.push_screen(FinishedDialog(len(self.queue), self.queue.skipped, unwritten=unwritten), chosen)

    def quit_after_writes(self) -> None:
        """Exit once every queued write has landed."""
        if self._quitting:
            return
        self._quitting = True
        if self.runner.pending:
            self.save_status = "Saving before quitting…"
            self._refresh_progress()
        self._drain_then_exit()

    @work(thread=True, exclusive=True, group="quit", description="Waiting for pending writes")
    def _drain_then_exit(self) -> None:
        self.runner.drain()
        self.call_from_thread(self.exit)

    async def action_quit(self) -> None:
        self.quit_after_writes()

    def on_unmount(self) -> None:
        self.prefetcher.close()
        self.runner.close()
        self.reader.close()
        self.reader.store.close()
        gc.unfreeze()
        if self._gc_was_enabled:
            gc.enable()
