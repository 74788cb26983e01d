"""ProgressNotices: an item screen's progress line (queue position, counts, save status) and the
short notices shown on it.

A mixin of ItemScreen (it uses the screen's queue position, assignment and flags).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.css.query import NoMatches

from annotate.tui.screens.item_flag import flag_state
from annotate.tui.widgets.progress_line import ProgressLine, skip_state

if TYPE_CHECKING:
    from annotate.tui.screens.item import ItemScreen

    _Base = ItemScreen
else:
    _Base = object

NOTICE_S = 4.0
"""How long a notice stays on the progress line."""


class ProgressNotices(_Base):
    """The progress line of an ItemScreen and its notices."""

    def show_notice(self, text: str, seconds: float = NOTICE_S) -> None:
        """Show a short fixed message on the progress line for `seconds` (never over the panes or
        the answer bar)."""
        line = self.query_one(ProgressLine)
        line.notice = text
        if self._notice_timer is not None:
            self._notice_timer.stop()

        def clear() -> None:
            if line.notice == text:
                line.notice = ""

        self._notice_timer = self.set_timer(seconds, clear)

    def clear_notice(self, text: str) -> None:
        """Take `text` off the progress line if it is the notice shown."""
        line = self.query_one(ProgressLine)
        if line.notice == text:
            line.notice = ""

    def refresh_progress(self) -> None:
        """Show the queue position, the counts, the save status and the item's state on the progress line."""
        app = self.annotate_app
        try:
            line = self.query_one(ProgressLine)
        except NoMatches:  # the screen is being taken down (a write landed after q): nothing to show
            return
        line.position = self.index
        queue = app.queue
        line.total = len(queue)
        line.skipped = queue.skipped
        line.done = queue.done - line.skipped
        line.sitting_s = app.sitting_seconds()
        line.take_break = app.break_due()
        line.status = app.save_status
        line.writing = app.writing_note()
        stored = queue.answers.get(self.assignment.id) if self.assignment is not None else None
        line.state = "" if stored is None else skip_state(stored.skip_reason) if stored.skipped else "answered"
        line.ref = app.item_ref(self.assignment.item_id) if self.assignment is not None else ""
        flags = self.open_flags()
        line.flagged = f"⚑ {flag_state(flags)}" if flags else ""
