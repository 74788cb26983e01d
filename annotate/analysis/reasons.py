"""The wording of a figure the data cannot support, shared by the statistics of this package.

Every result that can be undefined carries a reason instead of a NaN in text: ``not enough data
(n = 3 items: why)``, the same sentence the report prints in its cells.
"""

from __future__ import annotations

__all__ = ["not_enough"]


def not_enough(n: int, unit: str, why: str) -> str:
    """``not enough data (n = N unit: why)``, the unit singular when n is 1.

    >>> not_enough(1, "items", "nothing to resample")
    'not enough data (n = 1 item: nothing to resample)'
    """
    unit = unit[:-1] if n == 1 and unit.endswith("s") else unit
    return f"not enough data (n = {int(n)} {unit}: {why})"
