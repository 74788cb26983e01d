"""THE ORACLE, not the product: annotate/analysis/ratings_io.py
as it was before `annotate agreement FILE` stopped importing pandas (main at f269bd2), kept verbatim
(only this note and its imports changed; the parts the rework left as they were are imported from
it instead of copied) so that tests can compare the pandas-free reader with it,
table by table and error by error.

Read a ratings file (any spreadsheet of who gave which label to which unit) for `annotate agreement`.

Formats, by extension: ``.csv``, ``.tsv`` / ``.tab`` (UTF-8, a BOM is ignored), ``.jsonl`` /
``.ndjson`` (one JSON object per line) and ``.json`` (an array of objects).

Layouts:

* ``long``: one row per rating, columns ``unit``, ``rater``, ``label`` (also accepted: the aliases in
  `ALIASES`, e.g. ``item`` / ``id`` for unit, ``annotator`` / ``coder`` / ``judge`` for rater,
  ``rating`` / ``value`` / ``score`` for label; names are case-insensitive; other columns are
  ignored).  ``columns`` (``--map unit=COL``) names the columns outright.
* ``wide``: one row per unit; the first column holds the unit ids, every other column is one rater
  (its header is the rater's name), as R's ``irr`` and ``irrCAC`` take ratings.
* ``wide`` with ``raters_as_rows=True``: one row per rater, as in Krippendorff's papers; the first
  column holds the rater names, every other column is one unit (its header is the unit id).

Missing values: an empty cell, ``NA``, ``N/A``, ``NaN``, ``null``, ``.`` or ``*`` (any case),
JSON ``null``, or a rater absent from a unit in the long layout.  Labels are kept as text (JSON
numbers become their text: ``1``, ``2.5``); `prepare_labels` turns them into numbers or ordered
categories for the chosen level of measurement.

Every error is a `RatingsFileError` (a ValueError) whose message starts with the file and names the
line (or JSON record) and the column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from oracle_ratings_table import MISSING, RatingsFileError, Table, read_table

# Unchanged by the pandas-free rework, so taken from it rather than copied: the layouts and column
# aliases, `--map`'s parsing, the column lookup, and the prepared labels' record and number parsing.
from annotate.analysis.ratings_io import ALIASES, LAYOUTS, _find_column, parse_column_map
from annotate.analysis.ratings_labels import PreparedRatings, _number

__all__ = [
    "ALIASES",
    "LAYOUTS",
    "MISSING",
    "FileAgreement",
    "PreparedRatings",
    "RatingsFileError",
    "agreement_from_file",
    "parse_column_map",
    "prepare_labels",
    "read_ratings",
]

@dataclass(frozen=True)
class _Ratings:
    """Every (unit, rater, label) cell of a file in reading order, label None when missing, and where
    each label is (computed only for the labels kept)."""

    unit: np.ndarray
    rater: np.ndarray
    label: np.ndarray
    where: Any
    """``where(positions)``: the places of those cells, e.g. ``"line 4, column 'bob'"``."""


def _first_empty(path: Path, table: Table, checks: Sequence[tuple[int, str]]) -> None:
    """Refuse the first row (in file order) whose id column in `checks` is empty, naming it."""
    rows = [(np.flatnonzero(pd.isna(table.columns[c])), c, what) for c, what in checks]
    found = [(hits[0], k, c, what) for k, (hits, c, what) in enumerate(rows) if hits.size]
    if found:
        row, _, c, what = min(found)
        raise RatingsFileError(f"{path}: {table.where(int(row), c)}: {what} is empty")


def _long(path: Path, table: Table, columns: dict[str, str] | None = None) -> _Ratings:
    cols = [_find_column(path, table, role, columns) for role in ("unit", "rater", "label")]
    if len(set(cols)) < 3:
        raise RatingsFileError(
            f"{path}: {table.header_where}: unit, rater and label must be three different columns, got "
            + ", ".join(f"{role} = {table.header[c]!r}" for role, c in zip(("unit", "rater", "label"), cols,
                                                                            strict=True))
        )
    unit, rater, label = cols
    _first_empty(path, table, [(unit, "the unit id"), (rater, "the rater")])
    return _Ratings(table.columns[unit], table.columns[rater], table.columns[label],
                    lambda positions: table.wheres(positions, label))


def _wide(path: Path, table: Table, raters_as_rows: bool) -> _Ratings:
    what_row, what_col = ("rater", "unit") if raters_as_rows else ("unit", "rater")
    if len(table.header) < 2:
        raise RatingsFileError(
            f"{path}: {table.header_where}: the wide layout needs a first column of {what_row} ids and at least one "
            f"{what_col} column"
        )
    names = table.header[1:]
    for i, name in enumerate(names, start=2):
        if not name:
            raise RatingsFileError(f"{path}: {table.header_where}: column {i} has no {what_col} name")
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise RatingsFileError(f"{path}: {table.header_where}: {what_col} {dupes[0]!r} heads more than one column")
    _first_empty(path, table, [(0, f"the {what_row} id")])
    n = len(names)
    keys = np.repeat(table.columns[0], n)  # row by row, as the file reads
    heads = np.tile(np.array(names, dtype=object), len(table.rows))
    labels = np.stack(table.columns[1:], axis=1).ravel() if len(table.rows) else np.array([], dtype=object)
    columns = [f", column {name!r}" for name in names]

    def where(positions: np.ndarray) -> np.ndarray:
        places = table.rows[positions // n]
        return np.array([place + columns[k] for place, k in zip(places.tolist(), (positions % n).tolist(),
                                                                 strict=True)], dtype=object)

    unit, rater = (heads, keys) if raters_as_rows else (keys, heads)
    return _Ratings(unit, rater, labels, where)


def read_ratings(
    path: Path | str, layout: str = "long", raters_as_rows: bool = False, columns: dict[str, str] | None = None,
) -> pd.DataFrame:
    """Read a ratings file into long form.

    columns: long layout only, the file's column for each of ``unit``, ``rater``, ``label`` (see
    `parse_column_map`); roles not given are found by `ALIASES`.

    Returns a DataFrame with one row per (unit, rater) rating that is present: columns ``unit``,
    ``rater``, ``label`` (all text) and ``where`` (``"line 4, column 'bob'"``, for messages).
    Missing values (see the module docstring) are dropped.  A unit rated twice by one rater is an
    error naming both places.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "r.csv")
    >>> _ = open(p, "w").write("unit,ann,bob\\nq1,yes,no\\nq2,yes,\\n")
    >>> read_ratings(p, "wide")[["unit", "rater", "label"]].values.tolist()
    [['q1', 'ann', 'yes'], ['q1', 'bob', 'no'], ['q2', 'ann', 'yes']]
    """
    path = Path(path)
    if layout not in LAYOUTS:
        raise RatingsFileError(f"layout must be one of {', '.join(LAYOUTS)}, not {layout!r}")
    if raters_as_rows and layout != "wide":
        raise RatingsFileError("--raters-as-rows applies to the wide layout only (add --layout wide)")
    if columns and layout != "long":
        raise RatingsFileError("--map names the columns of the long layout; the wide layout takes the unit ids "
                               "from its first column")
    table = read_table(path)
    cells = _long(path, table, columns) if layout == "long" else _wide(path, table, raters_as_rows)
    kept = np.flatnonzero(pd.notna(cells.label))
    if not kept.size:
        raise RatingsFileError(f"{path}: no ratings found (every label cell is empty)")
    frame = pd.DataFrame({"unit": cells.unit[kept], "rater": cells.rater[kept], "label": cells.label[kept]})
    again = frame.duplicated(["unit", "rater"]).to_numpy()
    if again.any():
        second = int(np.flatnonzero(again)[0])
        unit, rater = frame.iloc[second]["unit"], frame.iloc[second]["rater"]
        first = int(np.flatnonzero((frame["unit"] == unit).to_numpy() & (frame["rater"] == rater).to_numpy())[0])
        here, there = cells.where(kept[[second, first]])
        raise RatingsFileError(
            f"{path}: {here}: rater {rater!r} already rated unit {unit!r} ({there}); keep one rating per unit "
            "and rater"
        )
    frame["where"] = cells.where(kept)
    return frame


def prepare_labels(
    ratings: pd.DataFrame, level: str, order: Sequence[str] | None = None, source: Path | str = ""
) -> PreparedRatings:
    """Make text labels fit the level of measurement.

    * nominal: labels stay text, unless every label is a number (then ``1`` and ``1.0`` are one
      label); ``order`` only fixes the category list (it matters to Gwet's AC1 through q).
    * ordinal: with ``order`` (e.g. ``["low", "mid", "high"]``) the labels are categories in that
      order and each must be listed; without it every label must be a number.
    * interval, ratio: every label must be a number (``order`` is refused); ratio needs >= 0.

    ratings: as returned by `read_ratings` (a ``where`` column is used in messages if present).
    Raises RatingsFileError naming the file, the place and the value.
    """
    prefix = f"{source}: " if str(source) else ""
    where = ratings["where"] if "where" in ratings.columns else pd.Series([""] * len(ratings), index=ratings.index)
    base = ratings[["unit", "rater"]].copy()
    labels = ratings["label"].astype(str)
    if order is not None:
        order = tuple(o.strip() for o in order if o.strip())
        if level in ("interval", "ratio"):
            raise RatingsFileError(f"--order is for nominal or ordinal labels; at --level {level} labels are numbers")
        if len(set(order)) != len(order):
            raise RatingsFileError(f"--order lists a label twice: {', '.join(order)}")
        unknown = ~labels.isin(set(order))
        if unknown.any():
            i = unknown.to_numpy().nonzero()[0][0]
            raise RatingsFileError(
                f"{prefix}{where.iloc[i]}: label {labels.iloc[i]!r} is not in --order ({', '.join(order)})"
            )
        return PreparedRatings(base.assign(label=labels.to_numpy()), order)
    distinct = labels.unique()  # a few labels, many ratings: parse each label once
    numbers = labels.map(dict(zip(distinct, map(_number, distinct), strict=True)))
    bad = numbers.isna()
    if level == "nominal":
        if bad.any():
            return PreparedRatings(base.assign(label=labels.to_numpy()), None)
        return PreparedRatings(base.assign(label=numbers.astype(float).to_numpy()), None)
    if bad.any():
        i = bad.to_numpy().nonzero()[0][0]
        hint = (
            "; for ordered text labels give --order, e.g. --order low,mid,high"
            if level == "ordinal"
            else "; interval and ratio levels need numeric labels"
        )
        raise RatingsFileError(
            f"{prefix}{where.iloc[i]}: label {labels.iloc[i]!r} is not a number at --level {level}{hint}"
        )
    values = numbers.astype(float)
    if level == "ratio" and (values < 0).any():
        i = (values < 0).to_numpy().nonzero()[0][0]
        raise RatingsFileError(
            f"{prefix}{where.iloc[i]}: label {labels.iloc[i]!r} is negative; the ratio level needs values >= 0"
        )
    return PreparedRatings(base.assign(label=values.to_numpy()), None)


@dataclass(frozen=True)
class FileAgreement:
    """The agreement table of a ratings file and what went into it.

    Attributes:
        table: every coefficient with its interval and n (`annotate.analysis.agreement.AgreementTable`).
        n_ratings: ratings read (missing cells not counted).
        units, raters: ids in matrix order.
        categories: the value domain (order used for ordinal statistics and Gwet's q).
        warnings: what the reader should know before trusting the table (e.g. too few units for
            an interval).
    """

    table: Any
    n_ratings: int
    units: tuple[Any, ...]
    raters: tuple[Any, ...]
    categories: tuple[Any, ...]
    warnings: tuple[str, ...] = ()


def agreement_from_file(
    path: Path | str,
    layout: str = "long",
    level: str = "nominal",
    raters_as_rows: bool = False,
    order: Sequence[str] | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    columns: dict[str, str] | None = None,
    coefficients: Sequence[str] | None = None,
) -> FileAgreement:
    """Read a ratings file and compute its agreement table (`agreement_table`) at ``level``.

    columns: the long layout's column names (`read_ratings`); coefficients: compute only these
    (`annotate.analysis.agreement.table.COEFFICIENTS`; default all).  With fewer than two units
    rated by two or more raters, no interval can be computed (they are null) and ``warnings`` says so.
    """
    from annotate.analysis.agreement import agreement_table, ratings_matrix
    from annotate.analysis.bootstrap import MIN_UNITS_FOR_INTERVAL
    from annotate.text import plural

    ratings = read_ratings(path, layout, raters_as_rows, columns)
    prepared = prepare_labels(ratings, level, order, source=path)
    matrix, units, raters, categories = ratings_matrix(prepared.ratings, order=prepared.order)
    if len(raters) < 2:
        raise RatingsFileError(f"{path}: only one rater ({raters[0]!r}); agreement needs at least two")
    table = agreement_table(matrix, level, categories, [str(r) for r in raters], n_boot=n_boot, seed=seed,
                            **({"coefficients": coefficients} if coefficients else {}))
    warnings = []
    pairable = int(((~np.isnan(matrix)).sum(axis=1) >= 2).sum())  # units with two ratings or more
    if pairable < MIN_UNITS_FOR_INTERVAL:
        warnings.append(
            f"{path}: only {plural(pairable, 'unit')} rated by two or more raters: too few to resample, so no "
            "interval is given (null); an estimate from so little data says next to nothing"
        )
    return FileAgreement(table, len(ratings), units, raters, categories, tuple(warnings))
