"""Cells for figures that may be undefined: a number, or `NotEnough` with the n and the reason.

No table of the report shows NaN: an estimate the data cannot support says ``not enough data (n =
N unit: why)``.  The reasons are stated here once, so every section words them the same way.
"""

from __future__ import annotations

import math
from typing import Any

from annotate.analysis.estimate import Estimate, json_number
from annotate.report.model import NotEnough

__all__ = [
    "NO_PAIR",
    "NO_TWO_RATERS",
    "NO_VARIATION",
    "estimate_cell",
    "interval_cell",
    "number_cell",
    "share_cell",
]

NO_TWO_RATERS = "no item rated by two raters"
NO_VARIATION = "every rating is the same, so chance agreement is 1 and the coefficient is undefined"
NO_PAIR = "no pair of votes by two different raters on one item"
NO_PAIR_NT = "no pair of votes where both picked A or B"
NO_RESAMPLE = "nothing to resample"
FEW_DEFINED = "the statistic is undefined in most resamples"



def label_text(value: object) -> str:
    """A category as text: whole floats without the ``.0``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)

def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def estimate_cell(e: Estimate | None, unit: str = "items", why: str | None = None) -> float | NotEnough | None:
    """The estimate, or why there is none: ``why`` if given, else no unit with two ratings / no variation."""
    if e is None:
        return None
    if e.defined:
        return float(e.estimate)
    if why is None:
        why = NO_TWO_RATERS if e.n_units == 0 else NO_VARIATION
    return NotEnough(int(e.n_units), unit, why)


def interval_cell(e: Estimate | None, unit: str = "items") -> tuple[float, float] | NotEnough | None:
    """The interval; None (a dash) when the estimate itself is undefined or no bootstrap was run
    (the table's note says how many resamples); `NotEnough` when one unit cannot be resampled."""
    if e is None or not e.defined:
        return None
    if _finite(e.ci_low) and _finite(e.ci_high):
        return (float(e.ci_low), float(e.ci_high))
    if e.n_units < 2:
        return NotEnough(int(e.n_units), unit, NO_RESAMPLE)
    return None


def share_cell(share: float, n: int, unit: str, why: str) -> float | NotEnough:
    """A share k / n, or `NotEnough` when n is 0."""
    if n and _finite(share):
        return float(share)
    return NotEnough(int(n), unit, why)


def number_cell(value: float | None, n: int, unit: str, why: str) -> float | NotEnough:
    """Any figure, or `NotEnough` when it is undefined."""
    value = json_number(value)
    if value is not None and _finite(value):
        return float(value)
    return NotEnough(int(n), unit, why)
