"""AnnotatorTable: the dashboard's table, one row per annotator, columns that fit the terminal.

Every cell is a `rich.text.Text` built from plain strings, never markup: annotator names and
cohorts come from the session file (imported or merged files included). Columns that do not fit
are dropped, first to last in DROP_ORDER; the annotator's name and whether they are working stay.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.widgets import DataTable

from annotate.dashboard import AnnotatorFigures, Snapshot
from annotate.safe_text import one_line

NAME_MAX = 18
"""Longer annotator names are cut with an ellipsis."""


@dataclass(frozen=True)
class Column:
    """One column: what it shows and how it sorts."""

    key: str
    header: str
    cell: Callable[[AnnotatorFigures], str]
    sort: Callable[[AnnotatorFigures], Any]
    descending: bool = True
    """The first sort on this column puts the highest first (names: A first)."""
    numeric: bool = True


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def _of(k: int, n: int) -> str:
    return "–" if not n else f"{k:,}/{n:,}"


def _number(value: float | None, digits: int = 0) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def _missing_last(value: float | None) -> float:
    return float("-inf") if value is None else value


def _name(a: AnnotatorFigures) -> str:
    name = one_line(a.name)
    return name if len(name) <= NAME_MAX else name[: NAME_MAX - 1] + "…"


def columns(snapshot: Snapshot) -> list[Column]:
    """Every column the snapshot has figures for, in display order (flags only when the file keeps them)."""
    window = f"{snapshot.window_min:g}m"
    found = [
        Column("name", "annotator", _name, lambda a: one_line(a.name).lower(), descending=False, numeric=False),
        Column("working", "", lambda a: "●" if a.working else "", lambda a: bool(a.working), numeric=False),
        Column("done", "done", lambda a: f"{a.done:,}/{a.assigned:,}", lambda a: a.done),
        Column("progress", "%", lambda a: _pct((a.done + a.skipped) / a.assigned if a.assigned else None),
               lambda a: (a.done + a.skipped) / a.assigned if a.assigned else 0.0),
        Column("skipped", "skip", lambda a: f"{a.skipped:,}", lambda a: a.skipped),
        Column("pace", f"/h {window}", lambda a: _number(a.pace_recent), lambda a: a.pace_recent),
        Column("pace_overall", "/h open", lambda a: _number(a.pace_overall), lambda a: _missing_last(a.pace_overall)),
        Column("median", "s/item", lambda a: _number(a.median_s, 1), lambda a: _missing_last(a.median_s)),
        Column("gold", "gold ok", lambda a: _of(a.gold_correct, a.gold), lambda a: _missing_last(a.gold_accuracy)),
        Column("attention", "attn ✗", lambda a: _of(a.attention_failed, a.attention), lambda a: a.attention_failed),
        Column("fast", "fast", lambda a: _pct(a.fast_share), lambda a: _missing_last(a.fast_share)),
    ]
    if snapshot.has_flags:
        found.append(Column("flags", "flags", lambda a: _number(a.open_flags), lambda a: a.open_flags or 0))
    found += [
        Column("agreement", "agree", lambda a: _pct(a.agreement), lambda a: _missing_last(a.agreement)),
        Column("checks", "checks", lambda a: " ".join(a.checks), lambda a: len(a.checks), numeric=False),
        Column("cohort", "cohort", lambda a: one_line(a.cohort), lambda a: one_line(a.cohort), descending=False,
               numeric=False),
    ]
    return found


DROP_ORDER = ("cohort", "pace_overall", "skipped", "checks", "progress", "median", "flags", "agreement")
"""Which columns go first when the terminal is too narrow for all of them (names in red say that
an annotator trips a check, whether or not the checks column is on screen)."""

CELL_PADDING = 1
"""Spaces on each side of a cell (DataTable's default)."""

SORT_MARK = {False: " ↑", True: " ↓"}


def header(col: Column, sort_key: str, descending: bool) -> str:
    return col.header + (SORT_MARK[descending] if col.key == sort_key else "")


def fitting(cols: list[Column], rows: tuple[AnnotatorFigures, ...], width: int, sort_key: str, descending: bool
            ) -> list[tuple[Column, int]]:
    """The columns that fit in `width` cells, dropping them in DROP_ORDER, each with its width."""
    widths = {
        c.key: max([len(header(c, sort_key, descending)), *(len(c.cell(a)) for a in rows)]) for c in cols
    }
    kept = list(cols)
    for key in DROP_ORDER:
        if sum(widths[c.key] + 2 * CELL_PADDING for c in kept) <= width:
            break
        kept = [c for c in kept if c.key != key]
    return [(c, widths[c.key]) for c in kept]


class AnnotatorTable(DataTable):
    """The annotators' figures; `show` fills it from a snapshot, keeping the cursor on the same annotator."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, cell_padding=CELL_PADDING, **kwargs)
        self.shown: list[Column] = []
        """The columns on screen now, in order."""

    def show(self, snapshot: Snapshot, sort_key: str, descending: bool, width: int) -> list[Column]:
        """Fill the table: rows sorted by the column `sort_key` (descending or not), columns that fit
        `width`; returns the columns shown."""
        cols = columns(snapshot)
        by_key = {c.key: c for c in cols}
        sort_col = by_key.get(sort_key, cols[0])
        rows = sorted(snapshot.annotators, key=lambda a: one_line(a.name).lower())
        rows = sorted(rows, key=sort_col.sort, reverse=descending)
        kept = fitting(cols, snapshot.annotators, width - 2, sort_col.key, descending)  # 2: the scrollbar
        keep_on = None
        if self.row_count and self.cursor_row < self.row_count:
            keep_on = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        self.clear(columns=True)
        for col, col_width in kept:
            self.add_column(Text(header(col, sort_col.key, descending), justify="right" if col.numeric else "left"),
                            key=col.key, width=col_width)
        for a in rows:
            style = "bold red" if a.checks else ""
            cells = [
                Text(col.cell(a), style=style if col.key in ("name", "checks") else "",
                     justify="right" if col.numeric else "left")
                for col, _ in kept
            ]
            self.add_row(*cells, key=a.name)
        if keep_on is not None:
            names = [a.name for a in rows]
            if keep_on in names:
                self.move_cursor(row=names.index(keep_on), animate=False)
        self.shown = [col for col, _ in kept]
        return self.shown
