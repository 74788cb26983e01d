"""Figures as text for cells that may be undefined: a number, or why there is none.

The report's numeric columns show a dash for a missing number; the newer sections (style control,
LLM judges as annotators, annotator competence) put the reason in the cell instead:
``not enough data (n = 12 items: why)``, so no text output shows NaN or a bare dash.
"""

from __future__ import annotations

import math
from typing import Any

from annotate.report.model import Column

__all__ = ["ci_text", "figure_column", "number_text", "share_text", "signed"]


def figure_column(name: str) -> Column:
    """A column of such figures (kind ``figure``: shown as written, never escaped as untrusted text)."""
    return Column(name, "figure")


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def number_text(value: Any, reason: str | None, digits: int = 3) -> str:
    """``0.812`` or the reason (``not enough data ...``); a reason is required when value is undefined."""
    if _finite(value):
        return f"{value:.{digits}f}"
    return reason or "not enough data"


def share_text(value: Any, reason: str | None) -> str:
    """A share as a percentage with one decimal, or the reason."""
    if _finite(value):
        return f"{100 * value:.1f} %"
    return reason or "not enough data"


def ci_text(low: Any, high: Any, reason: str | None, digits: int = 3, percent: bool = False) -> str:
    """``[0.612, 0.803]`` (or ``[61.2, 80.3] %``), or the reason there is no interval."""
    if _finite(low) and _finite(high):
        if percent:
            return f"[{100 * low:.1f}, {100 * high:.1f}] %"
        return f"[{low:.{digits}f}, {high:.{digits}f}]"
    return reason or "no interval"


def signed(change: int) -> str:
    """A rank change as ``+2``, ``-1`` or ``0``."""
    return f"{change:+d}" if change else "0"
