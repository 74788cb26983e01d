"""PaneScrolling: how an item screen's panes scroll, zoom and report what was in view.

A mixin of ItemScreen (it uses the screen's panes, clock and event log): the scroll keys act on
the active pane, Left and Right may scroll together, and the clock learns which response was in
view and how deep it was read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.events import MouseScrollDown, MouseScrollUp

from annotate.tui.widgets.doc_view import DocView
from annotate.tui.widgets.guideline_panel import GuidelinePanel
from annotate.tui.widgets.response_pane import ResponsePane

if TYPE_CHECKING:
    from annotate.tui.screens.item import ItemScreen

    _Base = ItemScreen
else:
    _Base = object


class PaneScrolling(_Base):
    """Scrolling, zoom and visibility of the panes of an ItemScreen. (Message handlers here go by
    Textual's naming convention: `@on` registers only on classes built by Textual's metaclass.)"""

    def _update_visibility(self) -> None:
        if self.clock is None:
            return
        now = self.annotate_app.clock()
        guideline = self.query_one(GuidelinePanel)
        for pane in self.response_panes():
            if pane.slot is None:
                continue
            visible = pane.display and pane.region.area > 0
            if self.maximized is not None and self.maximized is not pane:
                visible = False
            if visible and guideline.display:
                overlap = pane.region.intersection(guideline.region).area
                visible = overlap < pane.region.area / 2
            self.clock.pane_visible(pane.slot, visible, now)
            if visible and pane.complete:
                self.clock.scrolled(pane.slot, pane.depth if pane.max_scroll_y > 0 else 1.0)
            elif visible and pane.deepest == 0:  # at the top of a document not yet all rendered
                self.clock.scrolled(pane.slot, 0.0)

    def action_zoom(self) -> None:
        targets = self.scroll_targets()
        view = targets[min(self.active, len(targets) - 1)]
        if self.maximized is not None:
            self.minimize()
            self.record("pane.zoom", zoomed=False)
        elif isinstance(view, ResponsePane):
            self.maximize(view, container=False)
            self.record("pane.zoom", zoomed=True, pane=self._pane_name(view))
        self.call_after_refresh(self._update_visibility)

    def action_switch_pane(self, step: int) -> None:
        targets = self.scroll_targets()
        self.active = (self.active + int(step)) % len(targets)
        self.record("key.switch_pane", pane=self._pane_name(targets[self.active]))
        self._mark_active()

    def _mark_active(self) -> None:
        targets = self.scroll_targets()
        self.active = min(self.active, len(targets) - 1)
        for i, view in enumerate(targets):
            view.set_class(i == self.active, "-active")

    def _pane_name(self, view: DocView) -> str:
        if isinstance(view, ResponsePane) and view.slot is not None:
            return view.slot
        return view.id or ""

    def action_scroll(self, how: str) -> None:
        targets = self.scroll_targets()
        view = targets[min(self.active, len(targets) - 1)]
        if how == "down":
            view.scroll_relative(y=1, animate=False, immediate=True)
        elif how == "up":
            view.scroll_relative(y=-1, animate=False, immediate=True)
        elif how == "page_down":
            view.scroll_relative(y=max(1, view.scrollable_content_region.height - 1), animate=False, immediate=True)
        elif how == "page_up":
            view.scroll_relative(y=-max(1, view.scrollable_content_region.height - 1), animate=False, immediate=True)
        elif how == "home":
            view.scroll_to(y=0, animate=False, immediate=True)
        elif how == "end":
            view.scroll_to(y=view.max_scroll_y, animate=False, immediate=True)
        self.record("key.scroll", pane=self._pane_name(view), how=how, depth=round(view.depth, 3))

    def on_doc_view_scrolled(self, message: DocView.Scrolled) -> None:
        view = message.view
        expected = self._sync_expect.pop(view, None)
        if isinstance(view, ResponsePane) and view.slot is not None and self.clock is not None and message.measured:
            self.clock.scrolled(view.slot, message.depth)  # else reported once measured
        if expected is not None and expected == round(view.scroll_y):
            return
        if self.linked and isinstance(view, ResponsePane) and view.slot is not None:
            for other in self.response_panes():
                if other is not view and other.slot is not None:
                    target = round(message.depth * other.max_scroll_y)
                    if target != round(other.scroll_y):
                        self._sync_expect[other] = target
                        other.set_depth(message.depth)

    def on_doc_view_measured(self, message: DocView.Measured) -> None:
        """A pane's document is all rendered: how deep it was scrolled is known now."""
        view = message.view
        if isinstance(view, ResponsePane) and view.slot is not None and self.clock is not None and view.deepest:
            self.clock.scrolled(view.slot, view.deepest_depth)
        self._update_visibility()

    def _measure_scrolled_panes(self) -> None:
        """Render the rest of any pane scrolled before it was all rendered, for the true depth."""
        for pane in self.response_panes():
            if pane.slot is not None and self.clock is not None and not pane.complete and pane.deepest:
                pane.finish()
                self.clock.scrolled(pane.slot, pane.deepest_depth)

    def on_mouse_scroll_down(self, event: MouseScrollDown) -> None:
        self._wheel()

    def on_mouse_scroll_up(self, event: MouseScrollUp) -> None:
        self._wheel()

    def _wheel(self) -> None:
        """Wheel scrolling is activity; logged at most once a second."""
        now = self.annotate_app.clock()
        if self.clock is not None:
            self.clock.input(now)
        if now - self._last_wheel_event.get("any", 0) > 1_000_000_000:
            self._last_wheel_event["any"] = now
            self.record("mouse.scroll")
