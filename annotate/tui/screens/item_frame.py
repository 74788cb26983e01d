"""FrameAtOnce: the frame that shows a new item is drawn as soon as the screen is idle.

Textual draws a screen's changes from a timer that ticks at most 60 times a second: after a frame
it waits out the rest of 1/60 s before the next. The answer key (`1`) draws a frame, so the Enter
that follows it within a few milliseconds found the timer waiting, and the next item reached the
terminal 10-25 ms after it was ready (measured in tmux: the frame started 15-30 ms after the key's
handler had ended, on a key path of 11 ms of CPU). The wait is there to merge many small updates
(scrolling with a held key) into one frame; a new item is one large update made all at once, so
its frame goes out at once, drawn exactly as the timer would draw it (`Screen._on_timer_update`).

A mixin of ItemScreen: `draw_next_frame_at_once` is called by `show_index`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.widget import Widget

if TYPE_CHECKING:
    from annotate.tui.screens.item import ItemScreen

    _Base = ItemScreen
else:
    _Base = object


class FrameAtOnce(_Base):
    """Draws an ItemScreen's next frame without waiting for Textual's frame timer."""

    _frame_at_once = False

    def draw_next_frame_at_once(self) -> None:
        """Draw the changes made so far as soon as the screen is next idle (not at the timer's tick)."""
        self._frame_at_once = True
        self._frame_asked: set[Widget] = set()
        """Widgets asked to tell the screen of their changes for this frame."""

    async def _on_idle(self, event: events.Idle) -> None:
        """Screen's idle handler draws through its frame timer; the frame asked for is drawn here
        instead (the timer, if it ticks later, finds nothing left to draw).

        The screen can be idle before every widget changed has told it so (each does from its own
        idle handler): those widgets are asked to tell it now, and the frame is drawn at the next
        idle, once the screen has taken their messages; else they would come in a frame of their
        own, at the timer's tick (the prompt pane did, 10-30 ms after the panes).

        This reads Textual's private refresh state (`_repaint_required`, `_dirty_widgets`, ...): should a
        Textual release rename it, the frame is left to the timer, as before, and the app goes on."""
        if not self._frame_at_once or _frame_state_unknown:
            return  # Screen._on_idle runs next
        try:
            if self.app._batch_count or not self.is_current:
                return
            waiting = [widget for widget in self.walk_children(Widget)
                       if (widget._repaint_required or widget._layout_required or widget._scroll_required)
                       and widget not in self._frame_asked]
            if waiting:
                self._frame_asked.update(waiting)  # once each: a widget that keeps its flags never holds the frame
                for widget in waiting:
                    widget._check_refresh()  # posts Update / Layout / UpdateScroll to this screen
                event.prevent_default()
                return
            if not (self._layout_required or self._scroll_required or self._repaint_required or self._dirty_widgets):
                return
            draw = self._on_timer_update
        except AttributeError:
            _give_up_frames_at_once()
            return
        self._frame_at_once = False
        self._frame_asked.clear()
        event.prevent_default()
        draw()


_frame_state_unknown = False
"""Set when this Textual lacks the refresh state `FrameAtOnce` reads: frames are then the timer's."""


def _give_up_frames_at_once() -> None:
    global _frame_state_unknown
    _frame_state_unknown = True
