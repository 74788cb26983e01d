"""Cells for the figures of the style-control, judge and competence sections: a number, or the
`NotEnough` the analysis gave as its reason (`annotate.analysis.reasons.Reason`)."""

from __future__ import annotations

import math
from typing import Any

from annotate.report.model import NotEnough

__all__ = ["interval", "reason_cell", "signed", "value"]


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def reason_cell(reason: Any) -> NotEnough | None:
    """The `NotEnough` of an analysis reason (None when there is none)."""
    if reason is None:
        return None
    if isinstance(reason, NotEnough):
        return reason
    n, unit, why = getattr(reason, "n", 0), getattr(reason, "unit", "items"), getattr(reason, "why", str(reason))
    return NotEnough(int(n), unit, why)


def value(x: Any, reason: Any) -> float | NotEnough | None:
    """The number, or why there is none (None, a dash, only when the analysis gave no reason)."""
    if _finite(x):
        return float(x)
    return reason_cell(reason)


def interval(low: Any, high: Any, reason: Any = None) -> tuple[float, float] | NotEnough | None:
    """The ``(low, high)`` pair; else the reason; else None (no resamples asked for: the note says so)."""
    if _finite(low) and _finite(high):
        return (float(low), float(high))
    return reason_cell(reason)


def signed(change: int) -> str:
    """A rank change as ``+2``, ``-1`` or ``0``."""
    return f"{change:+d}" if change else "0"
