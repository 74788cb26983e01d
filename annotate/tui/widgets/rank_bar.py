"""The ranking screen's answer widgets: the strip of responses with their places, and the answer bar.

Everything is marked in text as well as colour: the responses in view are in brackets (`[2]`), a
response's place reads `1st`, `=2nd` (a tie), or `·` (not placed yet), and the order built so far
reads `3 > 1 = 4 > …`. The words are fixed strings and display positions; never item text, a
model or a slot.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from annotate.design import ordinal
from annotate.tui.widgets.label_bar import LabelBar


def place_of(places: Sequence[Sequence[int]], position: int) -> str:
    """A position's place in the order built so far: `1st`, `=2nd` (tied), or `·` (not placed)."""
    done = 0
    for group in places:
        if position in group:
            return ("=" if len(group) > 1 else "") + ordinal(done + 1)
        done += len(group)
    return "·"


def order_text(places: Sequence[Sequence[int]], k: int, tie_next: bool) -> str:
    """`3 > 1 = 4 > …`: the places so far, best first, `= _` when the next one ties, `…` for the rest."""
    text = " > ".join(" = ".join(str(p) for p in group) for group in places)
    placed = sum(len(g) for g in places)
    if tie_next:
        text += " = _"
    elif placed < k:
        text += (" > " if text else "") + "…"
    return text


class RankStrip(Widget):
    """One line: every response by its display position with its place, the ones in view in brackets."""

    DEFAULT_CSS = """
    RankStrip { height: 1; background: $boost; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    k: reactive[int] = reactive(0)
    places: reactive[tuple[tuple[int, ...], ...]] = reactive(())
    in_view: reactive[tuple[int, ...]] = reactive(())
    """Positions shown in the panes now, in pane order."""

    def render(self) -> Text:
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(" Responses ", style="bold")
        for position in range(1, self.k + 1):
            shown = position in self.in_view
            place = place_of(self.places, position)
            label = f"[{position}]" if shown else f" {position} "
            line.append(f" {label}", style="bold reverse" if shown else "bold")
            line.append(f" {place:<4}", style="bold green" if place != "·" else "dim")
        wide = len(self.in_view) > 1
        keys = "  [ ] other response · Tab other pane · v+digit view" if wide else "  [ ] other · v+digit view"
        line.append(keys, style="dim")
        return line


class RankBar(LabelBar):
    """The answer bar of the ranking screen: the order built so far on top, the usual extras below."""

    DEFAULT_CSS = """
    RankBar { height: 2; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    order: reactive[str] = reactive("")
    """`3 > 1 = 4 > …`, from `order_text`."""
    hint: reactive[str] = reactive("")
    """What the keys do now (`digit: place next · = tie · u undo · x clear`)."""

    def render(self) -> Text:
        top = Text(no_wrap=True, overflow="ellipsis")
        top.append(" Order, best first: ", style="bold")
        top.append(f"▶ {self.order} ◀" if self.order else "–", style="bold green" if self.order else "dim")
        if self.hint:
            top.append(f"   {self.hint}", style="dim")
        return Text("\n", no_wrap=True, overflow="ellipsis").join([top, self._extras()])
