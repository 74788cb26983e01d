"""Navigation: an item screen's way through the queue (submit and move on, back, next unfinished,
go to, skip) and what it does when the lead's new plan replaces the queue under it.

A mixin of ItemScreen (it uses the screen's queue, clock and event log).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from annotate.model import Judgment
from annotate.store.spans import span_key

if TYPE_CHECKING:
    from annotate.tui.screens.item import ItemScreen

    _Base = ItemScreen
else:
    _Base = object


class Navigation(_Base):
    """Moving between the items of an ItemScreen's queue."""

    def commit(self, skip_reason: str | None) -> None:
        """Write the answer (or a skip) and move on; an unchanged revision writes nothing."""
        app = self.annotate_app
        assert self.assignment is not None and self.clock is not None
        assignment = self.assignment
        fields = {"label": None, "scores": {}} if skip_reason else self.answer_fields()
        prior = app.queue.answers.get(assignment.id)
        unchanged = (
            prior is not None and skip_reason is None and not prior.skipped
            and prior.label == fields["label"] and dict(prior.scores) == dict(fields["scores"])
            and prior.rationale == self.rationale and prior.confidence == self.confidence
            and span_key(prior.spans) == span_key(self.answer_spans())
        )
        if unchanged:
            self.record("nav.forward", unchanged=True)
            self.flush_events()
        else:
            self.record("skip" if skip_reason else "key.submit", **({"reason": skip_reason} if skip_reason else {}))
            self._measure_scrolled_panes()
            now = app.clock()
            guideline = app.guideline
            judgment = Judgment(
                assignment_id=assignment.id, label=fields["label"], scores=fields["scores"],
                timings=self.clock.finish(now), rationale="" if skip_reason else self.rationale,
                confidence=None if skip_reason else self.confidence,
                guideline_id=guideline.id if guideline else app.spec.guideline,
                guideline_version=guideline.version if guideline else None,
                skip_reason=skip_reason, spans=() if skip_reason else self.answer_spans(),
            )
            judgment = self.suggestion.complete(judgment, now)
            app.write_judgment(judgment, self.events, assignment)
            self.events = []
        revising = prior is not None
        queue = app.queue
        if revising and self.index + 1 < len(queue):
            nxt: int | None = self.index + 1
        else:
            nxt = queue.first_unfinished(self.index + 1)
        if nxt is None:
            self.clock = None
            self.refresh_progress()
            app.all_done()
            return
        self.show_index(nxt)

    def action_back(self) -> None:
        if self.index <= 0:
            return
        self.record("nav.back")
        self.flush_events()
        self.show_index(self.index - 1)

    def action_next_unfinished(self) -> None:
        nxt = self.annotate_app.queue.first_unfinished(self.index + 1)
        if nxt is None or nxt == self.index:
            return
        self.record("nav.next_unfinished", to=nxt)
        self.flush_events()
        self.show_index(nxt)

    def go_to(self, index: int) -> None:
        """Show another item (from a dialog), writing this one's events."""
        self.record("nav.go", to=index)
        self.flush_events()
        self.show_index(index)

    def action_items(self) -> None:
        from annotate.tui.screens.items import ItemsDialog

        self.record("items.open")

        def done(index: int | None) -> None:
            if index is None or index == self.index:
                self.record("items.close")
            else:
                self.go_to(index)

        self.app.push_screen(ItemsDialog(self.index), done)

    def action_skip(self) -> None:
        from annotate.tui.screens.skip import SkipDialog

        self.record("skip.open")

        def done(reason: str | None) -> None:
            if reason:
                self.commit(skip_reason=reason)
            else:
                self.record("skip.cancel")

        self.app.push_screen(SkipDialog(), done)

    def queue_replaced(self, lost_position: int | None) -> None:
        """The app read the queue again. Stay on the item on screen when it is still in the queue
        as shown; else go to the first item without an answer. Say what happened: a dialog when an
        answer was refused or the item on screen left the queue, a notice otherwise."""
        from annotate.tui.screens.queue_changed import QueueChangedDialog

        queue = self.annotate_app.queue
        here = queue.index_of(self.assignment)
        if here is not None and lost_position is None:
            self.index = here
            self.refresh_progress()
            self.show_notice(f"the lead updated the plan: your queue now has {len(queue)} items")
            return
        self.record("queue.replaced", by_annotator=False, lost_position=lost_position, kept_item=here is not None)
        self.events = []  # about an assignment that is gone: nothing to file them on
        if here is None:
            target = queue.first_unfinished(0)
            if target is None and len(queue):
                target = len(queue) - 1
            if target is not None:
                self.show_index(target)
        else:
            self.index = here
            self.refresh_progress()
        self.app.push_screen(QueueChangedDialog(
            len(queue), lost_position, on_screen_left=here is None, position=self.index + 1 if len(queue) else 0,
        ))
