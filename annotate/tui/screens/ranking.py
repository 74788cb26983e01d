"""RankingScreen: put an item's k responses (3 to 6) in order, best first, ties allowed.

Layout: the prompt on top; two responses side by side from 120 columns (one below that), each pane
titled only by its display position (`Response 3 · 1st`); a strip naming every response with its
place so far, the ones in view in brackets; the order built so far; the key bar. `[` and `]` (or
`,` `.`) show the previous / next response in the active pane, `v` then a digit a given one, Tab
moves between the panes; every response stays one key away, at any size.

Ranking: a digit places the response at that position next (below those placed so far); `=` then a
digit places it level with the last place (a tie); `u` takes the last one back, `x` clears; placing
a response again moves it to the end. Enter submits once every response has a place.

Blind: positions are numbers 1..k in the assignment's display order (planned per annotator and item,
annotate.plan.orders); slots and models never reach the screen. The answer is built over positions
(side space) and stored in slot space through the display order (annotate.design.ranking); an event
records which slot was at which position, and each key what it placed.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.events import Resize

from annotate.design import Order, Ranking, order_of, ordinal
from annotate.design.ranking import ranking_text, split_ranking
from annotate.model import Assignment, Item, Judgment
from annotate.tui.content import response_doc
from annotate.tui.render import Doc
from annotate.tui.screens.item import NARROW_BELOW, ItemScreen, digit_bindings
from annotate.tui.widgets.rank_bar import RankBar, RankStrip, order_text, place_of
from annotate.tui.widgets.response_pane import ResponsePane

PANES = ("view-1", "view-2")
"""The two response panes; the second is hidden on narrow terminals."""

HINT = (("digit: place next", ""), ("= tie", "tie"), ("u undo", "undo_place"), ("x clear", "clear_order"))
"""The rank bar's hint while building the order; a click on a key's words does what the key does."""
CANCEL = ("Esc cancels", "escape")


class RankingScreen(ItemScreen):
    """Rank the k responses of an item (module docstring)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *digit_bindings({str(p): (f"Place response {p} next", f"rank-{p}") for p in range(1, 7)}),
        Binding("equals_sign", "tie", "Tie", id="rank-tie", show=False,
                tooltip="Then a digit: that response shares the last place"),
        Binding("u", "undo_place", "Undo place", id="rank-undo", show=False, tooltip="Take the last placed back"),
        Binding("x", "clear_order", "Clear order", id="rank-clear", show=False, tooltip="Start the order again"),
        Binding("right_square_bracket,full_stop", "view_step(1)", "Next response", id="view-next", show=False,
                tooltip="Show the next response in the active pane"),
        Binding("left_square_bracket,comma", "view_step(-1)", "Previous response", id="view-previous", show=False,
                tooltip="Show the previous response in the active pane"),
        Binding("v", "view_pick", "View response", id="view-pick", show=False,
                tooltip="Then a digit: show that response in the active pane"),
        Binding("l", "link", "Link scrolling", id="link", show=False,
                tooltip="Scroll the two panes together, or each on its own"),
    ]

    HELP_NOTES: ClassVar[tuple[str, ...]] = (
        "Press the responses' numbers from best to worst; = then a number ties it with the one before.",
        "Placing a response again moves it to the end; u takes the last one back, x starts again.",
        "[ and ] (or , and .) show another response in the active pane; Tab moves between panes.",
        *ItemScreen.HELP_NOTES,
    )
    HELP_GROUPS = (("Rank", ("rank-tie", "rank-undo", "rank-clear")),
                   ("View", ("view-next", "view-previous", "view-pick")))

    def __init__(self, start_index: int, open_guideline: bool = False) -> None:
        super().__init__(start_index, open_guideline)
        self.places: list[list[int]] = []
        """The order built so far: places best first, each a group of tied display positions (1..k)."""
        self.view = [1, 2]
        """The display position shown in each pane."""
        self.rank_mode = ""
        """`tie` after `=`, `view` after `v`, until the digit that completes it (or Esc)."""
        self._depths: dict[int, float] = {}
        """How far each response was scrolled, to come back to it there."""

    # -- the schema --------------------------------------------------------------------------

    @property
    def question(self) -> Ranking:
        ranked = self.annotate_app.spec.schema.ranked
        assert ranked is not None, "the ranking screen needs a ranking schema"
        return ranked

    @property
    def k(self) -> int:
        return self.question.k

    @property
    def order(self) -> Order:
        """The slots at display positions 1..k for the assignment on screen."""
        a = self.assignment
        return order_of(a.swapped, a.order) if a is not None else self.question.slots

    def help_answers(self) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
        return (("Rank (best first)", (
            (f"1-{self.k}", "place the response at that position next"),
            ("= then 1-" + str(self.k), "place it level with the last place (a tie)"
             if self.question.ties else "ties are not allowed in this session"),
            ("Enter", "submit, once every response has a place"),
        )),)

    # -- layout ------------------------------------------------------------------------------

    def compose_panes(self) -> ComposeResult:
        lines_for = self.annotate_app.lines_for
        for pane_id in PANES:
            yield ResponsePane("Response", lines_for, id=pane_id, classes="response")

    def compose_answer(self) -> ComposeResult:
        yield RankStrip(id="rank-strip")
        yield RankBar(id="labels")

    def _wide(self) -> bool:
        return self.app.size.width >= NARROW_BELOW

    def _apply_width(self, width: int) -> None:
        super()._apply_width(width)
        self.query_one("#view-2", ResponsePane).display = width >= NARROW_BELOW

    def on_resize(self, event: Resize) -> None:
        super().on_resize(event)
        self._mark_active()

    def response_panes(self) -> list[ResponsePane]:
        """The panes on screen (the second only from 120 columns)."""
        return [p for p in super().response_panes() if p.display]

    def docs_for(self, item: Item, assignment: Assignment) -> list[tuple[str, Doc]]:
        """The two responses first in view (positions 1 and 2); the others are rendered when shown."""
        order = order_of(assignment.swapped, assignment.order)
        return [(pane_id, response_doc(item, order[i], self.show_earlier)) for i, pane_id in enumerate(PANES)]

    def show_item(self, item: Item, assignment: Assignment) -> None:
        self.view = [1, 2]
        self._depths = {}
        super().show_item(item, assignment)
        self._titles()
        self.record("ranking.shown", by_annotator=False,
                    positions={str(p): slot for p, slot in enumerate(self.order, start=1)})

    def prefetch_around(self, index: int) -> None:
        """Render this item's other responses first (likely the next thing shown), then the neighbours'."""
        item, width = self.item, self.query_one("#view-1", ResponsePane).render_width
        if item is not None and width > 0 and index == self.index:
            wanted = [(response_doc(item, slot, self.show_earlier), width) for slot in self.order[2:]]
            self.annotate_app.prefetcher.prefetch(item.id, lambda _item, w=wanted: w)
        super().prefetch_around(index)

    def _titles(self) -> None:
        """Pane titles: the display position and its place so far (fixed strings only)."""
        for pane_id, position in zip(PANES, self.view, strict=True):
            pane = self.query_one(f"#{pane_id}", ResponsePane)
            place = place_of(self.places, position)
            pane.border_title = f"Response {position}" + ("" if place == "·" else f" · {place}")

    # -- showing another response ------------------------------------------------------------

    def _active_pane(self) -> int:
        """Index into PANES of the pane `[`, `]` and `v` act on: the active one, else the first."""
        targets = self.scroll_targets()
        view = targets[min(self.active, len(targets) - 1)] if targets else None
        return PANES.index(view.id) if isinstance(view, ResponsePane) and view.id in PANES else 0

    def _show_position(self, pane_index: int, position: int) -> None:
        """Show the response at `position` in a pane; the pane it was in (if any) takes this one's."""
        if self.item is None or position == self.view[pane_index]:
            return
        other = 1 - pane_index
        if self.view[other] == position:
            self.view[other] = self.view[pane_index]
            self._put(other)
        self.view[pane_index] = position
        self._put(pane_index)
        self._titles()
        self.record("ranking.view", pane=pane_index + 1, position=position, slot=self.order[position - 1])
        self.call_after_refresh(self._update_visibility)

    def _put(self, pane_index: int) -> None:
        """Load the pane's position, remembering how far the response it had was scrolled."""
        pane = self.query_one(f"#{PANES[pane_index]}", ResponsePane)
        assert self.item is not None
        old = pane.slot
        if old is not None:
            self._depths[self.order.index(old) + 1] = pane.depth if pane.max_scroll_y > 0 else 0.0
            shown = {p.slot for p in self.response_panes() if p is not pane}
            if self.clock is not None and old not in shown:
                self.clock.pane_visible(old, False, self.annotate_app.clock())
        position = self.view[pane_index]
        slot = self.order[position - 1]
        pane.slot = slot
        pane.show(response_doc(self.item, slot, self.show_earlier))
        depth = self._depths.get(position, 0.0)
        if depth > 0:
            def restore() -> None:
                self._sync_expect[pane] = round(depth * pane.max_scroll_y)
                pane.set_depth(depth)
            self.call_after_refresh(restore)

    def action_view_step(self, step: int) -> None:
        """The next (or previous) response not in view in the other pane."""
        pane = self._active_pane()
        others = {self.view[1 - pane]} if len(self.response_panes()) > 1 else set()
        position = self.view[pane]
        for _ in range(self.k):
            position = (position - 1 + int(step)) % self.k + 1
            if position not in others:
                break
        self._show_position(pane, position)

    def action_view_pick(self) -> None:
        self.rank_mode = "" if self.rank_mode == "view" else "view"
        self.refresh_answer()

    # -- the answer --------------------------------------------------------------------------

    def has_answer(self) -> bool:
        return sum(len(g) for g in self.places) == self.k

    def clear_answer(self) -> None:
        self.places = []
        self.rank_mode = ""

    def load_answer(self, judgment: Judgment) -> None:
        value = self.question.parse(judgment.label)
        if value is None:
            self.places = []
            return
        side = self.question.to_side(value, self.order)
        self.places = [[int(p) for p in group] for group in split_ranking(side)]

    def _side_text(self) -> str:
        return ranking_text([[str(p) for p in group] for group in self.places])

    def answer_fields(self) -> dict[str, Any]:
        schema = self.annotate_app.spec.schema
        label, scores = schema.encode({self.question.name: self.question.to_slot(self._side_text(), self.order)})
        return {"label": label, "scores": scores}

    def on_digit(self, digit: str) -> None:
        position = int(digit) if digit.isdigit() else 0
        if not 1 <= position <= self.k:
            self.rank_mode = ""
            self.app.bell()
            return
        if self.rank_mode == "view":
            self.rank_mode = ""
            self._show_position(self._active_pane(), position)
            return
        tie = self.rank_mode == "tie"
        self.rank_mode = ""
        self._place(position, tie)

    def _place(self, position: int, tie: bool) -> None:
        """Put `position` at the end of the order (level with the last place when `tie`)."""
        moved = any(position in g for g in self.places)
        for group in self.places:
            if position in group:
                group.remove(position)
        self.places = [g for g in self.places if g]
        if tie and self.places:
            self.places[-1] = sorted([*self.places[-1], position])
        else:
            self.places.append([position])
        self._titles()
        self.record("key.rank", position=position, slot=self.order[position - 1], tie=tie and len(self.places[-1]) > 1,
                    moved=moved, order_side=self._side_text(), place=ordinal(self._place_number(position)))

    def _place_number(self, position: int) -> int:
        done = 0
        for group in self.places:
            if position in group:
                return done + 1
            done += len(group)
        return 0

    def action_tie(self) -> None:
        if self.answer_blocked("="):
            return
        if not self.question.ties:
            self.show_notice("ties are not allowed in this session")
            self.app.bell()
            return
        if not self.places:
            self.show_notice("place a response first; = ties the next one with it")
            self.app.bell()
            return
        self.rank_mode = "" if self.rank_mode == "tie" else "tie"
        self.refresh_answer()

    def action_undo_place(self) -> None:
        if self.answer_blocked("u") or not self.places:
            return
        last = self.places[-1].pop()
        self.places = [g for g in self.places if g]
        self.rank_mode = ""
        self._titles()
        self.record("key.rank_undo", position=last, slot=self.order[last - 1], order_side=self._side_text())
        self.refresh_answer()

    def action_clear_order(self) -> None:
        if self.answer_blocked("x") or not self.places:
            return
        self.places = []
        self.rank_mode = ""
        self._titles()
        self.record("key.rank_clear")
        self.refresh_answer()

    def action_escape(self) -> None:
        if self.rank_mode:
            self.rank_mode = ""
            self.record("key.cancel")
            self.refresh_answer()
            return
        super().action_escape()

    def refresh_answer(self) -> None:
        bar = self.query_one(RankBar)
        bar.order = order_text(self.places, self.k, self.rank_mode == "tie")
        left = self.k - sum(len(g) for g in self.places)
        if self.rank_mode == "view":
            bar.hint = ((f"view: press 1-{self.k}", ""), CANCEL)
        elif self.rank_mode == "tie":
            bar.hint = ((f"tie: press 1-{self.k} for the one level with the last", ""), CANCEL)
        else:
            bar.hint = HINT if left else (("every response placed: Enter submits", "submit"),)
        strip = self.query_one(RankStrip)
        strip.k = self.k
        strip.places = tuple(tuple(g) for g in self.places)
        strip.in_view = tuple(self.view[: len(self.response_panes())])
        super().refresh_answer()

    def action_link(self) -> None:
        self.linked = not self.linked
        self.record("scroll.link", linked=self.linked)
        self.show_notice("the two panes scroll together" if self.linked else "the two panes scroll separately")
