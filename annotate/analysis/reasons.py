"""The wording of a figure the data cannot support, shared by the statistics of this package.

Every result that can be undefined carries a reason instead of a NaN in text: ``not enough data
(n = 3 items: why)``, the same sentence the report prints in its cells.  The reason is a `Reason`:
a plain string (JSON writes it as one) that also keeps its n, unit and why, so the report can make
its `NotEnough` cell from it without parsing.
"""

from __future__ import annotations

__all__ = ["Reason", "not_enough"]


class Reason(str):
    """``not enough data (n = N unit: why)``, with ``n``, ``unit`` and ``why`` kept as attributes."""

    n: int
    unit: str
    why: str

    def __new__(cls, n: int, unit: str, why: str) -> Reason:
        shown = unit[:-1] if n == 1 and unit.endswith("s") else unit
        self = super().__new__(cls, f"not enough data (n = {int(n)} {shown}: {why})")
        self.n, self.unit, self.why = int(n), unit, why
        return self


def not_enough(n: int, unit: str, why: str) -> Reason:
    """``not enough data (n = N unit: why)``, the unit singular when n is 1.

    >>> not_enough(1, "items", "nothing to resample")
    'not enough data (n = 1 item: nothing to resample)'
    """
    return Reason(n, unit, why)
