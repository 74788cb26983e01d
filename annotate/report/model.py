"""A report as frozen data: sections of tables and notes, plus a JSON document with stable keys.

`build.py` fills it from the analysis; the renderers (`render_text`, `render_md`, `render_html`,
`render_json`) only lay it out.  No renderer computes a statistic, and every table that shows an
estimate also shows its n.

Cells are plain values; each column's ``kind`` says how to show them:

* ``text``: any string (untrusted: item ids, rater names, categories and model names come from
  files; every renderer escapes or sanitises it), or None (shown as a dash);
* ``int``: a count;
* ``num``: a float shown with 3 decimals (NaN / None shown as a dash); ``num1``: with 1 decimal;
* ``pct``: a share in [0, 1] shown as a percentage with 1 decimal;
* ``ci``: a ``(low, high)`` pair shown as ``[0.612, 0.803]``;
* ``pctci``: a ``(low, high)`` pair of shares shown in the unit of a ``pct`` estimate: ``[39.2, 62.2] %``;
* ``p``: a p-value (``< 0.001`` below that);
* ``ms``: milliseconds shown as seconds with 1 decimal.

Any cell may instead hold a `NotEnough`: a statistic the data cannot support, shown in every format
as ``not enough data (n = 1 rater: agreement needs two raters)``, never as NaN.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["NUMERIC_KINDS", "Chart", "Column", "NotEnough", "Report", "Section", "Table", "format_cell"]

KINDS = ("text", "int", "num", "num1", "pct", "ci", "pctci", "p", "ms")
NUMERIC_KINDS = frozenset(KINDS) - {"text"}
"""Kinds whose cells are our own numbers (never untrusted text, never cut or escaped)."""


@dataclass(frozen=True)
class NotEnough:
    """A cell (or a figure in prose) the data cannot support, with the n and the reason.

    Shown as ``not enough data (n = 3 items: no pair of non-tie votes)``.
    """

    n: int
    unit: str
    why: str

    def __str__(self) -> str:
        unit = self.unit[:-1] if self.n == 1 and self.unit.endswith("s") else self.unit
        return f"not enough data (n = {self.n} {unit}: {self.why})"


@dataclass(frozen=True)
class Column:
    """A table column: its heading and how its cells are shown (see the module docstring)."""

    name: str
    kind: str = "text"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"column kind must be one of {KINDS}, not {self.kind!r}")


@dataclass(frozen=True)
class Chart:
    """What the HTML renderer draws for a table (other formats show the table only).

    kind ``interval``: one row per table row, a point at column ``value`` with a bar from
    ``ci[0]`` to ``ci[1]`` of column ``ci`` (a forest plot), labelled by column ``label``;
    ``domain`` fixes the axis (None: fit the data).
    kind ``heat``: the table is a matrix; column ``label`` holds the row names, the columns
    ``cells`` the counts, shaded by their share of the row total.
    kind ``histogram``: one small bar chart per row, labelled by column ``label``: a bar per column of
    ``cells`` (titled by the column's name), its height the count in the cell (empty cells: no bar).
    """

    kind: str
    label: int = 0
    value: int = 1
    ci: int = 2
    cells: tuple[int, ...] = ()
    domain: tuple[float, float] | None = None
    title: str = ""
    bars: bool = False
    """interval charts: draw a bar from 0 to the value under the interval (a bar chart with CIs)."""
    sublabel: int | None = None
    """interval charts: a second column joined to the label (``gpt-4 · expert votes``)."""


@dataclass(frozen=True)
class Table:
    """A titled table: columns, rows of cells, notes shown under it, and an optional chart."""

    key: str
    title: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[Any, ...], ...]
    notes: tuple[str, ...] = ()
    chart: Chart | None = None
    empty: str | None = None
    """What the table says instead of rows when it has none (why there is no data); default ``(no data)``."""

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f"table {self.key}: a row has {len(row)} cells for {len(self.columns)} columns")


@dataclass(frozen=True)
class Section:
    """One part of the report (agreement, pairwise, biases, quality, ranking)."""

    key: str
    title: str
    tables: tuple[Table, ...] = ()
    notes: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()
    """Plain statements shown before the notes and tables as a list (the summary's findings)."""


@dataclass(frozen=True)
class Report:
    """The whole report.

    Attributes:
        title: the heading.
        meta: a few facts about the data (session, counts, seed, bootstrap resamples), as text pairs.
        sections: what the human-readable formats show, in order.
        data: the JSON document (`render_json` prints it); its keys are documented in
            docs/report-json.md, "Report JSON keys".
        notes: lines shown under the facts, before any section (e.g. why there are no sections).
    """

    title: str
    meta: tuple[tuple[str, str], ...]
    sections: tuple[Section, ...]
    data: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def format_cell(value: Any, kind: str) -> str:
    """The text of one cell (not yet escaped for any output format)."""
    if isinstance(value, NotEnough):
        return str(value)
    if value is None:
        return "–"
    if kind == "text":
        return str(value)
    if kind in ("ci", "pctci"):
        if not isinstance(value, Sequence) or len(value) != 2 or not all(_finite(v) for v in value):
            return "–"
        if kind == "pctci":
            return f"[{100 * value[0]:.1f}, {100 * value[1]:.1f}] %"
        digits = 1 if any(abs(v) >= 100 for v in value) else 3
        return f"[{value[0]:.{digits}f}, {value[1]:.{digits}f}]"
    if not _finite(value):
        return "–"
    if kind == "int":
        return f"{int(value):,}"
    if kind == "num":
        return f"{value:.3f}"
    if kind == "num1":
        return f"{value:.1f}"
    if kind == "pct":
        return f"{100 * value:.1f} %"
    if kind == "p":
        return "< 0.001" if value < 0.001 else f"{value:.3f}"
    if kind == "ms":
        return f"{value / 1000:.1f} s"
    return str(value)
