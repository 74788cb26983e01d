"""Flagging: `f` on an item screen tells the lead the item has a problem, apart from the answer.

A mixin of ItemScreen. The flag is written at once (on the store thread, with its event), on the
assignment as shown; answering or skipping the item is a separate matter. The progress line says
the item is flagged, and the annotator can withdraw their flags from the same dialog.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from annotate.flags import Flag
from annotate.model import Event
from annotate.store.store import utc_now

if TYPE_CHECKING:
    from annotate.tui.screens.flag import FlagChoice
    from annotate.tui.screens.item import ItemScreen

    _Base = ItemScreen
else:
    _Base = object


class Flagging(_Base):
    """The flag key and dialog of an ItemScreen."""

    def open_flags(self) -> tuple[Flag, ...]:
        """The open flags on the assignment on screen (as read with its page, or as this sitting left them)."""
        if self.assignment is None:
            return ()
        return self.annotate_app.queue.flags(self.assignment.id)

    def action_flag(self) -> None:
        from annotate.tui.screens.flag import FlagDialog

        if self.assignment is None:
            return
        self.record("flag.open")
        assignment = self.assignment

        def done(choice: FlagChoice | None) -> None:
            if choice is None:
                self.record("flag.cancel")
            elif self.assignment is assignment:  # still the item the dialog was about
                self._flagged(choice)

        self.app.push_screen(FlagDialog(self.open_flags()), done)

    def _flagged(self, choice: FlagChoice) -> None:
        app = self.annotate_app
        assert self.assignment is not None
        assignment = self.assignment
        now = app.clock()
        if self.clock is not None:
            self.clock.input(now)
        payload = {"withdrawn": len(self.open_flags())} if choice.withdraw else {"kind": choice.kind}
        kind = "flag.withdraw" if choice.withdraw else "flag.add"
        event = Event(kind=kind, mono_ns=now, wall_time=utc_now(), payload=payload,
                      assignment_id=assignment.id, annotator=app.annotator)
        if choice.withdraw:
            app.queue.set_flags(assignment.id, ())
            app.write_withdrawal(assignment, [event])
            self.show_notice("your flags on this item are withdrawn")
        else:
            flag = Flag(assignment_id=assignment.id, kind=choice.kind, note=choice.note,
                        item_id=assignment.item_id, annotator=app.annotator)
            app.queue.set_flags(assignment.id, (*self.open_flags(), flag))
            app.write_flag(flag, [event], assignment)
            self.show_notice(f"flagged for the lead: {flag.text[:40]}")
        self.refresh_progress()


def flag_state(flags: tuple[Flag, ...]) -> str:
    """`flagged: identity leak` / `flagged: broken item, other` (kinds only: notes are long)."""
    from annotate.flags import KIND_TEXT

    kinds = dict.fromkeys(KIND_TEXT.get(f.kind, f.kind) for f in flags)
    return "flagged: " + ", ".join(kinds)
