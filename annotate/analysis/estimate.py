"""The `Estimate` every statistic in `annotate.analysis` returns: a number, its interval and its n."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Estimate", "json_number"]


def json_number(value: float | int | None) -> float | int | None:
    """A plain Python number for JSON: NaN and infinities become ``None``, numpy scalars become Python ones."""
    if value is None:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95 % interval and the counts behind it.

    Attributes:
        estimate: the statistic on the full data; NaN when undefined (for example, no unit with two
            ratings, or no variation to correct for chance).
        ci_low, ci_high: the 2.5th and 97.5th percentiles of the bootstrap distribution (NaN when no
            bootstrap was run or too few resamples gave a defined value).
        n_units: units (items) that entered the statistic; for agreement, units with >= 2 ratings.
        n_raters: distinct raters with at least one rating in those units.
        n_pairable: pairable values as Krippendorff (2011) counts them, i.e. the ratings in units
            with >= 2 ratings; statistics over pairs of votes (`pairwise.py`) put the number of
            vote pairs here and say so.
    """

    estimate: float
    ci_low: float
    ci_high: float
    n_units: int
    n_raters: int
    n_pairable: int

    @property
    def ci(self) -> tuple[float, float]:
        """The interval as a ``(low, high)`` tuple."""
        return (self.ci_low, self.ci_high)

    @property
    def defined(self) -> bool:
        """Whether the point estimate is a finite number."""
        return math.isfinite(self.estimate)

    def to_json(self) -> dict[str, Any]:
        """``{"estimate", "ci": [lo, hi], "n_units", "n_raters", "n_pairable"}`` with NaN as ``None``."""
        return {
            "estimate": json_number(self.estimate),
            "ci": [json_number(self.ci_low), json_number(self.ci_high)],
            "n_units": int(self.n_units),
            "n_raters": int(self.n_raters),
            "n_pairable": int(self.n_pairable),
        }

    @classmethod
    def undefined(cls, n_units: int = 0, n_raters: int = 0, n_pairable: int = 0) -> Estimate:
        """An estimate that cannot be computed (all NaN) but still carries its counts."""
        nan = float("nan")
        return cls(nan, nan, nan, n_units, n_raters, n_pairable)
