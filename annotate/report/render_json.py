"""A `Report`'s JSON document (keys documented in docs/report-json.md, "Report JSON keys").

ASCII-only output (``ensure_ascii``): every non-ASCII or control character in a name is written as
a ``\\uXXXX`` escape, so printing the JSON on a terminal can never emit an escape sequence, and
``json.loads`` gives the original text back.  NaN never appears: undefined numbers are ``null``.
"""

from __future__ import annotations

import json
import math
from typing import Any

from annotate.report.model import Report

__all__ = ["render_json", "to_plain"]


def to_plain(value: Any) -> Any:
    """``value`` with tuples as lists, numpy scalars as Python numbers and NaN / inf as None."""
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item) and type(value).__module__ == "numpy":
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def render_json(report: Report) -> str:
    """The report's data as indented JSON text ending with a newline."""
    return json.dumps(to_plain(dict(report.data)), indent=2, ensure_ascii=True, allow_nan=False) + "\n"
