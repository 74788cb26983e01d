"""A ranking of k responses (3 to 6, slots A, B, C, ...), ties allowed: the k-way question.

Stored in slot space as text, best first: `>` separates places and `=` joins a tie, the slots of a
tie in letter order, every slot once: `C>A=B>D` is C best, A and B level second, D last. The screen
shows the responses at display positions 1..k in the assignment's display order (`Order`: the slots
at positions 1, 2, ...; the planner counterbalances it) and the annotator ranks positions, so a
side-space answer is the same text over positions: `3>1=2>4` (positions of a tie in number order).
`to_slot` and `to_side` map one to the other through the order, as the pairwise questions map
Left/Right.

A ranking is ordinal: `ranks` gives each slot its mid-rank (a tie of places 2 and 3 is 2.5 each,
Kendall's convention), which agreement (Kendall's W, alpha on ranks) and the position bias read;
`pairs` gives the k (k - 1) / 2 preferences it implies (A / B / tie, slot space), which the model
ranking (Bradley-Terry, ties as half) and the preference export read. It does not collapse to one
preference (`preference` is None): a ranking is many pairs, not one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

from annotate.design.questions import Choice, Order, Question

RANK_SLOTS: tuple[str, ...] = ("A", "B", "C", "D", "E", "F")
"""The response slots of ranking items, in order; a session of k uses the first k."""
MIN_K, MAX_K = 3, 6
"""How many responses a ranking session ranks per item (two is a pairwise session)."""

PLACE = ">"
TIE = "="


def ordinal(n: int) -> str:
    """`1st`, `2nd`, `3rd`, `4th`, ... (places on screen)."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def ranking_text(groups: Sequence[Sequence[str]]) -> str:
    """Places (each a group of tied names) as text: [["C"], ["A", "B"], ["D"]] -> `C>A=B>D`."""
    return PLACE.join(TIE.join(group) for group in groups)


def split_ranking(text: str) -> list[list[str]]:
    """`C>A=B>D` -> [["C"], ["A", "B"], ["D"]] as written (no check); spaces are ignored."""
    cleaned = "".join(str(text).split())
    return [group.split(TIE) for group in cleaned.split(PLACE)] if cleaned else []


@dataclass(frozen=True)
class Ranking(Question):
    """Put k responses in order, best first, ties allowed unless `ties` is False (module docstring)."""

    name: str = "ranking"
    k: int = 4
    ties: bool = True
    description: str = ""

    shape: ClassVar[str] = "ranking"
    sided: ClassVar[bool] = True

    @property
    def slots(self) -> tuple[str, ...]:
        """The item's response slots, A, B, C, ... (k of them)."""
        return RANK_SLOTS[: self.k]

    @property
    def positions(self) -> tuple[str, ...]:
        """The display positions as side-space names: `1` .. `k`."""
        return tuple(str(p) for p in range(1, self.k + 1))

    @cached_property
    def values(self) -> tuple[str, ...]:  # type: ignore[override]
        """Every valid ranking (13 for k = 3 with ties .. 4,683 for k = 6): for membership tests; error
        messages say `expected` instead of listing them."""
        return tuple(ranking_text(g) for g in _weak_orders(self.slots, self.ties))

    @property
    def expected(self) -> str:
        """What a value must look like, for an error message."""
        a, b, c, *rest = self.slots
        middle = [[a, b]] if self.ties else [[a], [b]]
        example = ranking_text([[c], *middle, *([s] for s in rest)])
        tie = ", ties joined by =" if self.ties else " (no ties)"
        return (f"a ranking of the {self.k} slots {', '.join(self.slots)}, best first, places separated by >{tie}, "
                f"each slot once, such as {example}")

    @property
    def level(self) -> str:
        return "ordinal"

    @property
    def scale(self) -> tuple[Any, ...]:
        """The mid-ranks a slot can get: 1, 1.5, 2, ... k (whole places only without ties)."""
        step = 2 if not self.ties else 1
        return tuple(n / 2 for n in range(2, 2 * self.k + 1, step))

    def choices(self) -> tuple[Choice, ...]:
        """A ranking has no fixed set of answers: the screen builds one position at a time."""
        return ()

    # -- reading and writing ----------------------------------------------------------------

    def _groups(self, text: Any, names: Sequence[str]) -> list[list[str]] | None:
        """The places of a ranking over `names` (each exactly once), or None when it is not one."""
        if not isinstance(text, str):
            return None
        groups = split_ranking(text.upper())  # slots are upper-case letters; positions are digits
        flat = [n for g in groups for n in g]
        if sorted(flat) != sorted(names) or len(flat) != len(set(flat)) or any(not n for n in flat):
            return None
        if not self.ties and any(len(g) > 1 for g in groups):
            return None
        return groups

    def _canonical(self, groups: list[list[str]], names: Sequence[str]) -> str:
        index = {n: i for i, n in enumerate(names)}
        return ranking_text([sorted(g, key=index.__getitem__) for g in groups])

    def parse(self, raw: Any) -> str | None:
        """A ranking in slot space from text (any case, spaces ignored, ties in any order), canonical."""
        groups = self._groups(raw, self.slots)
        return None if groups is None else self._canonical(groups, self.slots)

    def parse_side(self, raw: Any) -> str | None:
        """A side-space ranking of positions (`3>1=2>4`), canonical; None when it is not one."""
        groups = self._groups(raw, self.positions)
        return None if groups is None else self._canonical(groups, self.positions)

    def _check_order(self, order: Order) -> None:
        if len(order) != self.k or sorted(order) != sorted(self.slots):
            raise ValueError(f"{self.name}: a display order of the slots {', '.join(self.slots)} is needed, "
                             f"not {''.join(order) or 'none'}")

    def to_slot(self, value: str, order: Order) -> str:
        self._check_order(order)
        groups = self._groups(value, self.positions)
        if groups is None:
            raise ValueError(f"{self.name}: unknown answer {value!r}: expected a ranking of the positions "
                             f"{', '.join(self.positions)} such as 3>1=2>4")
        return self._canonical([[order[int(p) - 1] for p in g] for g in groups], self.slots)

    def to_side(self, stored: str, order: Order) -> str:
        self._check_order(order)
        groups = self._groups(stored, self.slots)
        if groups is None:
            raise ValueError(f"{self.name}: unknown stored value {stored!r}: expected {self.expected}")
        return self._canonical([[str(order.index(s) + 1) for s in g] for g in groups], self.positions)

    # -- what a ranking says ------------------------------------------------------------------

    def ranks(self, stored: str) -> dict[str, float]:
        """Slot -> mid-rank (1 = best; a tie of places 2 and 3 is 2.5 each); {} when not a ranking."""
        groups = self._groups(stored, self.slots)
        if groups is None:
            return {}
        out: dict[str, float] = {}
        done = 0
        for group in groups:
            mid = done + (len(group) + 1) / 2
            out.update({s: mid for s in group})
            done += len(group)
        return out

    def pairs(self, stored: str) -> list[tuple[str, str, str]]:
        """The preferences a ranking implies: (slot x, slot y, outcome) for every x before y in letter
        order, outcome `A` (x ranked higher), `B` (y higher) or `tie`; [] when not a ranking."""
        ranks = self.ranks(stored)
        if not ranks:
            return []
        slots = self.slots
        return [(x, y, "A" if ranks[x] < ranks[y] else "B" if ranks[x] > ranks[y] else "tie")
                for i, x in enumerate(slots) for y in slots[i + 1:]]

    def number(self, stored: str) -> float | None:
        return None

    def text_of(self, stored: str, order: Order) -> str:
        """A stored ranking as the screen with `order` shows it: `3 > 1 = 2 > 4` (display positions)."""
        side = self.to_side(stored, order)
        return side.replace(PLACE, " > ").replace(TIE, " = ")

    def summary(self) -> str:
        return (f"a ranking of {self.k} responses, best first" + (", ties allowed" if self.ties else ", no ties"))

    def identity(self) -> dict[str, Any]:
        return {"name": self.name, "shape": self.shape, "k": self.k, "ties": self.ties,
                "description": self.description}


def _weak_orders(names: Sequence[str], ties: bool) -> list[list[list[str]]]:
    """Every ordered partition of `names` into places (every strict order when not `ties`)."""
    if not names:
        return [[]]
    out: list[list[list[str]]] = []
    n = len(names)
    for mask in range(1, 1 << n):
        first = [names[i] for i in range(n) if mask >> i & 1]
        if not ties and len(first) > 1:
            continue
        rest = [names[i] for i in range(n) if not mask >> i & 1]
        out += [[first, *tail] for tail in _weak_orders(rest, ties)]
    return out
