"""The questions an answer is made of: four outcomes, a graded preference, a grade.

Each question knows, in one place, everything the rest of annotate needs about it:

- its stored values in *slot space* (`values`), in the declared order, and how to read a raw value
  from a file into one (`parse`);
- its keys and screen texts in *side space* (`choices`), and how a side-space answer becomes a
  stored value and back (`to_slot`, `to_side`) given the display order of the slots;
- its level of measurement (`level`) and where a stored value sits on its scale (`number`);
- how a stored value collapses to a preference A / B / tie / both_bad for Bradley-Terry and the
  MT-Bench agreement (`preference`), and that rule in words (`collapse_rule`).

The display order (`Order`) is the slots left to right on screen: `("A", "B")`, or `("B", "A")` for
a swapped assignment. A ranking of k responses (slots A, B, C, ...) is an order of k slots, so a
question over k responses maps through the same argument; a question about one response (a grade)
ignores it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

Order = tuple[str, ...]
"""Slots in the order the screen shows them, left to right."""

PREFERENCES: tuple[str, ...] = ("A", "B", "tie", "both_bad")
"""What every pairwise question collapses to, in slot space."""

GRADED_POINTS = (5, 7)
"""The graded scales offered: 5 or 7 points, symmetric around "about the same"."""


def order_of(swapped: bool, order: Sequence[str] = ()) -> Order:
    """The display order of an assignment: its stored order of k slots when it has one (a ranking
    item), else slot A on the left unless swapped (a pair)."""
    if order:
        return tuple(order)
    return ("B", "A") if swapped else ("A", "B")


@dataclass(frozen=True)
class Choice:
    """One answer the screen offers: its key, its value in side space and how it reads."""

    key: str
    """The key that gives it (a digit; empty when the scale is too wide for digits)."""
    value: str
    """The answer in side space (`left`, `+2` seen from the left, a grade...)."""
    text: str
    """How it reads in an answer bar: `Left much better`."""
    short: str
    """How it reads in a row of a form or a narrow bar: `Left ++`."""


class Question:
    """What one question of a label schema is; subclasses are frozen dataclasses."""

    shape: ClassVar[str]
    """`outcomes`, `graded` or `grade`."""
    sided: ClassVar[bool]
    """Whether a stored value depends on which slot was shown where (and so is counterbalanced)."""
    name: str
    description: str

    @property
    def values(self) -> tuple[str, ...]:
        """Every valid stored value, slot space, in the declared order."""
        raise NotImplementedError

    @property
    def level(self) -> str:
        """Krippendorff's level of measurement of the stored values (`number` gives the scale)."""
        raise NotImplementedError

    def choices(self) -> tuple[Choice, ...]:
        """The answers in key order, in side space."""
        raise NotImplementedError

    def to_slot(self, value: str, order: Order) -> str:
        """The stored value of a side-space answer given on a screen that showed `order`."""
        return value

    def to_side(self, stored: str, order: Order) -> str:
        """The side-space answer a stored value was (or would be) on a screen that showed `order`."""
        return stored

    def parse(self, raw: Any) -> str | None:
        """A raw value from a file (text or number) as a stored value; None when it is not one."""
        text = str(raw).strip() if raw is not None else ""
        return text if text in self.values else None

    def preference(self, stored: str) -> str | None:
        """The stored value as A / B / tie / both_bad; None for questions about one response."""
        return None

    def number(self, stored: str) -> float | None:
        """Where a stored value sits on the question's scale; None when it has no place on it."""
        return None

    @property
    def scale(self) -> tuple[Any, ...]:
        """The categories agreement is computed on, in order (numbers for ordinal scales)."""
        return self.values

    @property
    def collapse_rule(self) -> str:
        """How `preference` collapses a stored value, in words (empty when nothing is collapsed)."""
        return ""

    def text_of(self, stored: str, order: Order) -> str:
        """A stored value as the screen with `order` would say it (`Left much better`)."""
        side = self.to_side(stored, order)
        return next((c.text for c in self.choices() if c.value == side), stored)

    def summary(self) -> str:
        """The question in a few words, for reports and errors."""
        raise NotImplementedError

    def identity(self) -> dict[str, Any]:
        """Plain JSON that says what the stored values mean (the session file records it)."""
        raise NotImplementedError


_OUTCOME_TEXT = {
    "A": ("left", "Left better", "Left"),
    "B": ("right", "Right better", "Right"),
    "tie": ("tie", "Tie", "Tie"),
    "both_bad": ("both_bad", "Both bad", "Both bad"),
}
"""Slot-space outcome -> (side-space value, bar text, short text) when slot A is on the left."""


@dataclass(frozen=True)
class Outcomes(Question):
    """Which response is better: A, B, tie, both_bad (or a subset holding A and B), nominal.

    Stored as the slot (`A`, `B`), never the side; the screen shows Left/Right through the order.
    """

    name: str = "preference"
    outcomes: tuple[str, ...] = PREFERENCES
    description: str = ""

    shape: ClassVar[str] = "outcomes"
    sided: ClassVar[bool] = True

    @property
    def values(self) -> tuple[str, ...]:
        return self.outcomes

    @property
    def level(self) -> str:
        return "nominal"

    def choices(self) -> tuple[Choice, ...]:
        return tuple(
            Choice(str(i), _OUTCOME_TEXT[o][0], _OUTCOME_TEXT[o][1], _OUTCOME_TEXT[o][2])
            for i, o in enumerate(self.outcomes, start=1)
        )

    def to_slot(self, value: str, order: Order) -> str:
        if value == "left":
            return order[0]
        if value == "right":
            return order[1]
        if value in ("tie", "both_bad") and value in self.outcomes:
            return value
        raise ValueError(f"{self.name}: unknown answer {value!r}: expected left, right"
                         + "".join(f", {o}" for o in self.outcomes if o in ("tie", "both_bad")))

    def to_side(self, stored: str, order: Order) -> str:
        if stored in ("tie", "both_bad"):
            return stored
        if stored not in order:
            raise ValueError(f"{self.name}: unknown stored value {stored!r}: expected one of {', '.join(self.values)}")
        return "left" if order[0] == stored else "right"

    def preference(self, stored: str) -> str | None:
        return stored if stored in PREFERENCES else None

    def summary(self) -> str:
        if self.outcomes == PREFERENCES:
            return "four outcomes (A better, B better, tie, both bad)"
        return "outcomes " + ", ".join(o.replace("_", " ") for o in self.outcomes)

    def identity(self) -> dict[str, Any]:
        return {"name": self.name, "shape": self.shape, "outcomes": list(self.outcomes),
                "description": self.description}


_GRADED_TEXT = {
    5: (("much better", "++"), ("better", "+")),
    7: (("much better", "+++"), ("better", "++"), ("slightly better", "+")),
}
"""Points -> per strength from the strongest down: (words, marks); short texts read `L++`, `R+`."""


def signed(n: int) -> str:
    """A strength as stored: `+2`, `+1`, `0`, `-1`, `-2`."""
    return f"+{n}" if n > 0 else str(n)


@dataclass(frozen=True)
class Graded(Question):
    """A graded preference: a signed strength from slot A's view (+2 = A much better .. -2 = B much
    better on 5 points; +3 .. -3 on 7), ordinal; with `both_bad`, "both bad" as an answer apart from
    the scale (it has no strength). The screen shows the strength from the Left's view and flips it
    when B is on the left."""

    name: str = "preference"
    points: int = 5
    both_bad: bool = False
    description: str = ""

    shape: ClassVar[str] = "graded"
    sided: ClassVar[bool] = True

    @property
    def top(self) -> int:
        """The strongest strength: 2 on 5 points, 3 on 7."""
        return self.points // 2

    @property
    def values(self) -> tuple[str, ...]:
        strengths = tuple(signed(n) for n in range(self.top, -self.top - 1, -1))
        return strengths + (("both_bad",) if self.both_bad else ())

    @property
    def level(self) -> str:
        return "ordinal"

    @property
    def scale(self) -> tuple[Any, ...]:
        return tuple(range(-self.top, self.top + 1))

    def choices(self) -> tuple[Choice, ...]:
        words = _GRADED_TEXT[self.points]
        out = []
        for i, n in enumerate(range(self.top, -self.top - 1, -1), start=1):
            if n == 0:
                text, short = "About the same", "Same"
            else:
                phrase, marks = words[self.top - abs(n)]
                side = "Left" if n > 0 else "Right"
                text, short = f"{side} {phrase}", f"{side[0]}{marks}"
            out.append(Choice(str(i), signed(n), text, short))
        if self.both_bad:
            out.append(Choice(str(self.points + 1), "both_bad", "Both bad", "Both bad"))
        return tuple(out)

    def to_slot(self, value: str, order: Order) -> str:
        if value == "both_bad" and self.both_bad:
            return value
        n = self._strength(value)
        if n is None:
            raise ValueError(f"{self.name}: unknown answer {value!r}: expected a strength from -{self.top} to "
                             f"+{self.top}" + (" or both_bad" if self.both_bad else ""))
        return signed(n if order[0] == "A" else -n)

    def to_side(self, stored: str, order: Order) -> str:
        return self.to_slot(stored, order)  # flipping the sign is its own inverse

    def _strength(self, value: Any) -> int | None:
        n = _integral(value)
        return n if n is not None and -self.top <= n <= self.top else None

    def parse(self, raw: Any) -> str | None:
        if isinstance(raw, str) and raw.strip() == "both_bad":
            return "both_bad" if self.both_bad else None
        n = self._strength(raw)
        return None if n is None else signed(n)

    def preference(self, stored: str) -> str | None:
        if stored == "both_bad":
            return "both_bad" if self.both_bad else None
        n = self._strength(stored)
        if n is None:
            return None
        return "A" if n > 0 else "B" if n < 0 else "tie"

    def number(self, stored: str) -> float | None:
        n = self._strength(stored) if stored != "both_bad" else None
        return None if n is None else float(n)

    @property
    def collapse_rule(self) -> str:
        rule = f"+1 to +{self.top} (A better) -> A; -1 to -{self.top} (B better) -> B; 0 (about the same) -> tie"
        return rule + ("; both bad stays both bad" if self.both_bad else "")

    def summary(self) -> str:
        return (f"{self.points}-point graded preference (+{self.top} A much better .. -{self.top} B much better)"
                + (" with both bad apart" if self.both_bad else ""))

    def identity(self) -> dict[str, Any]:
        return {"name": self.name, "shape": self.shape, "points": self.points, "both_bad": self.both_bad,
                "description": self.description}


def grade_keys(low: int, high: int) -> dict[str, int]:
    """Digit key -> grade for a scale. 0..9 scales use the digit itself; other scales of at most
    ten points use 1, 2, ... 9, 0 in order (so 1..10 maps 0 to 10); wider scales get no digit
    keys (the screen sets them with - and +)."""
    if low >= 0 and high <= 9:
        return {str(g): g for g in range(low, high + 1)}
    if high - low + 1 <= 10:
        return {"1234567890"[i]: low + i for i in range(high - low + 1)}
    return {}


@dataclass(frozen=True)
class Grade(Question):
    """A grade of one response on an integer scale `low`..`high` (a single grade, or one rubric
    criterion), ordinal; stored as the grade's text (`7`). Grades have no sides."""

    name: str = "grade"
    low: int = 1
    high: int = 10
    description: str = ""

    shape: ClassVar[str] = "grade"
    sided: ClassVar[bool] = False

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(str(g) for g in range(self.low, self.high + 1))

    @property
    def level(self) -> str:
        return "ordinal"

    @property
    def scale(self) -> tuple[Any, ...]:
        return tuple(range(self.low, self.high + 1))

    def choices(self) -> tuple[Choice, ...]:
        keys = {g: k for k, g in grade_keys(self.low, self.high).items()}
        return tuple(Choice(keys.get(g, ""), str(g), str(g), str(g)) for g in range(self.low, self.high + 1))

    def parse(self, raw: Any) -> str | None:
        n = _integral(raw)
        return None if n is None or not self.low <= n <= self.high else str(n)

    def number(self, stored: str) -> float | None:
        n = _integral(stored)
        return None if n is None or not self.low <= n <= self.high else float(n)

    def text_of(self, stored: str, order: Order) -> str:
        return f"grade {stored}"

    def summary(self) -> str:
        return f"grades {self.low}-{self.high}"

    def identity(self) -> dict[str, Any]:
        return {"name": self.name, "low": self.low, "high": self.high, "description": self.description}


def _integral(raw: Any) -> int | None:
    """An integer from an int, an integral float or its text (`7`, `7.0`, `+2`); None otherwise."""
    if isinstance(raw, bool) or raw is None:
        return None
    if isinstance(raw, int):
        return raw
    try:
        number = float(str(raw).strip())
    except ValueError:
        return None
    return int(number) if number.is_integer() else None


def names_of(questions: Sequence[Question]) -> tuple[str, ...]:
    return tuple(q.name for q in questions)
