"""The ranking screen's answer widgets: the strip of responses with their places, and the answer bar.

Everything is marked in text as well as colour: the responses in view are in brackets (`[2]`), a
response's place reads `1st`, `=2nd` (a tie), or `·` (not placed yet), and the order built so far
reads `3 > 1 = 4 > …`. The words are fixed strings and display positions; never item text, a
model or a slot. A click on a response in the strip, or on a key the hints name, does what that
key does.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
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


Hint = tuple[tuple[str, str], ...]
"""Words of a hint line and the screen action a click on each runs (`` for none), e.g.
`(("digit: place next", ""), ("u undo", "undo_place"))`; shown joined by ` · `."""


def _clickable(text: Text, words: str, action: str, style: str = "dim") -> None:
    """Append `words` to `text`; a click on them runs the screen's `action` (none when empty)."""
    text.append(words, style=Style.parse(style) + Style(meta={"@click": f"screen.{action}"}) if action else style)


class RankStrip(Widget):
    """One line: every response by its display position with its place, the ones in view in brackets."""

    DEFAULT_CSS = """
    RankStrip { height: 1; background: $boost; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    auto_links = False  # the responses are clickable but keep their look (no link colour over the places)

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
            _clickable(line, f" {label}", f"pick('{position}')", "bold reverse" if shown else "bold")  # as its digit
            _clickable(line, f" {place:<4}", f"pick('{position}')", "bold green" if place != "·" else "dim")
        line.append("  ", style="dim")
        _clickable(line, "[", "view_step(-1)")
        line.append(" ", style="dim")
        _clickable(line, "]", "view_step(1)")
        line.append(" other response · Tab other pane · " if len(self.in_view) > 1 else " other · ", style="dim")
        _clickable(line, "v+digit view", "view_pick")
        return line


class RankBar(LabelBar):
    """The answer bar of the ranking screen: the order built so far on top, the usual extras below."""

    DEFAULT_CSS = """
    RankBar { height: 2; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    order: reactive[str] = reactive("")
    """`3 > 1 = 4 > …`, from `order_text`."""
    hint: reactive[Hint] = reactive(())
    """What the keys do now (`digit: place next · = tie · u undo · x clear`), each part clickable."""

    def render(self) -> Text:
        top = Text(no_wrap=True, overflow="ellipsis")
        top.append(" Order, best first: ", style="bold")
        top.append(f"▶ {self.order} ◀" if self.order else "–", style="bold green" if self.order else "dim")
        for n, (words, action) in enumerate(self.hint):
            top.append("   " if n == 0 else " · ", style="dim")
            _clickable(top, words, action)
        return Text("\n", no_wrap=True, overflow="ellipsis").join([top, self._extras()])
