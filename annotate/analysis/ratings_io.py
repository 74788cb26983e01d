"""Read a ratings file (any spreadsheet of who gave which label to which unit) for `annotate agreement`.

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

`agreement_from_file` reads, codes and computes without pandas (`read_cells`: numpy arrays, the places
of cells formatted only for a message); `read_ratings` and `prepare_labels` give the same as pandas
objects, importing pandas only then.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from annotate.analysis.ratings_labels import PreparedRatings, prepare_labels, prepared_label_values, prepared_labels
from annotate.analysis.ratings_table import MISSING, Column, RatingsFileError, Table, _objects, read_table

if TYPE_CHECKING:
    import pandas as pd

    from annotate.analysis.agreement.coded import CodedRatings

__all__ = [
    "ALIASES",
    "LAYOUTS",
    "MISSING",
    "CodedFile",
    "FileAgreement",
    "PreparedRatings",
    "RatingCells",
    "RatingsFileError",
    "agreement_from_file",
    "coded_file",
    "parse_column_map",
    "prepare_labels",
    "prepared_label_values",
    "prepared_labels",
    "read_cells",
    "read_ratings",
]

LAYOUTS = ("long", "wide")

ALIASES = {
    "unit": ("unit", "item", "item_id", "unit_id", "id"),
    "rater": ("rater", "annotator", "coder", "observer", "judge", "rater_id"),
    "label": ("label", "rating", "value", "score", "grade"),
}
"""Long layout: the column names (case-insensitive) each role is found under, first match wins."""

_MAP_TARGETS = {"unit": "unit", "item": "unit", "rater": "rater", "label": "label"}

def parse_column_map(pairs: Sequence[str]) -> dict[str, str]:
    """``("unit=item_id", "rater=who")`` -> ``{"unit": "item_id", "rater": "who"}`` (``item=`` is ``unit=``).

    The syntax of ``labels import --map``: TARGET=COLUMN, one per option.  Raises RatingsFileError
    for a malformed pair, an unknown target or a target given twice.
    """
    out: dict[str, str] = {}
    for pair in pairs:
        target, sep, column = pair.partition("=")
        target, column = target.strip().lower(), column.strip()
        if not sep or not target or not column:
            raise RatingsFileError(f"--map {pair!r}: expected TARGET=COLUMN, e.g. --map unit=item_id")
        if target not in _MAP_TARGETS:
            raise RatingsFileError(f"--map {pair!r}: unknown target {target!r}; the targets are unit, rater and label")
        role = _MAP_TARGETS[target]
        if role in out:
            raise RatingsFileError(f"--map {pair!r}: {role} is mapped twice")
        out[role] = column
    return out


def _find_column(path: Path, table: Table, role: str, columns: dict[str, str] | None = None) -> int:
    found = ", ".join(repr(h) for h in table.header) or "none"
    if columns and role in columns:
        wanted = columns[role]
        if wanted in table.header:
            return table.header.index(wanted)
        lowered = [h.strip().lower() for h in table.header]
        if wanted.strip().lower() in lowered:
            return lowered.index(wanted.strip().lower())
        raise RatingsFileError(
            f"{path}: {table.header_where}: --map {role}={wanted}: no such column; the file has: {found}"
        )
    lowered = [h.strip().lower() for h in table.header]
    for alias in ALIASES[role]:
        if alias in lowered:
            return lowered.index(alias)
    raise RatingsFileError(
        f"{path}: {table.header_where}: no {role!r} column; the long layout looks for {role} under the names "
        f"{', '.join(ALIASES[role])} (any case); the file has: {found}. Name it with --map {role}=COLUMN, "
        "or use --layout wide for one column per rater"
    )


@dataclass(frozen=True)
class _Cells:
    """Every (unit, rater, label) cell of a file in reading order, as columns of codes (label None when
    missing), and where each label is (computed only for the labels asked about)."""

    unit: Column
    rater: Column
    label: Column
    where: Callable[[np.ndarray], np.ndarray]
    """``where(positions)``: the places of those cells, e.g. ``"line 4, column 'bob'"``."""


def _first_empty(path: Path, table: Table, checks: Sequence[tuple[int, str]]) -> None:
    """Refuse the first row (in file order) whose id column in `checks` is empty, naming it."""
    found = [(row, k, c, what) for k, (c, what) in enumerate(checks)
             if (row := table.columns[c].first_missing()) is not None]
    if found:
        row, _, c, what = min(found)
        raise RatingsFileError(f"{path}: {table.where(int(row), c)}: {what} is empty")


def _long(path: Path, table: Table, columns: dict[str, str] | None = None) -> _Cells:
    cols = [_find_column(path, table, role, columns) for role in ("unit", "rater", "label")]
    if len(set(cols)) < 3:
        raise RatingsFileError(
            f"{path}: {table.header_where}: unit, rater and label must be three different columns, got "
            + ", ".join(f"{role} = {table.header[c]!r}" for role, c in zip(("unit", "rater", "label"), cols,
                                                                            strict=True))
        )
    unit, rater, label = cols
    _first_empty(path, table, [(unit, "the unit id"), (rater, "the rater")])
    return _Cells(table.columns[unit], table.columns[rater], table.columns[label],
                  lambda positions: table.wheres(positions, label))


def _first_seen(codes: np.ndarray, texts: Sequence[str | None]) -> Column:
    """Codes into `texts` as a column whose texts stand in the order they first occur in `codes`."""
    used, first = np.unique(codes, return_index=True)
    seen = used[np.argsort(first)]
    renumber = np.zeros(len(texts), dtype=np.int64)
    renumber[seen] = np.arange(seen.size)
    return Column(renumber[codes], tuple(texts[k] for k in seen.tolist()))


def _row_by_row(columns: Sequence[Column]) -> Column:
    """The cells of `columns` read row by row (the cells of row 0, then of row 1, ...) as one column."""
    texts: dict[str | None, int] = {}
    renumbered = [np.fromiter((texts.setdefault(text, len(texts)) for text in column.texts), dtype=np.int64,
                              count=len(column.texts))[column.codes] for column in columns]
    return _first_seen(np.stack(renumbered, axis=1).ravel(), tuple(texts))


def _wide(path: Path, table: Table, raters_as_rows: bool) -> _Cells:
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
    first = table.columns[0]
    keys = Column(np.repeat(first.codes, n), first.texts)  # row by row, as the file reads
    heads = Column(np.tile(np.arange(n, dtype=np.int64), table.n_rows), names)
    labels = _row_by_row(table.columns[1:])
    columns = [f", column {name!r}" for name in names]

    def where(positions: np.ndarray) -> np.ndarray:
        positions = np.asarray(positions)
        places = table.places((positions // n).tolist())
        return np.array([place + columns[k] for place, k in zip(places, (positions % n).tolist(), strict=True)],
                        dtype=object)

    unit, rater = (heads, keys) if raters_as_rows else (keys, heads)
    return _Cells(unit, rater, labels, where)


def _sorted_codes(column: Column, kept: np.ndarray | None) -> tuple[np.ndarray, tuple[str, ...]]:
    """The cells of `column` at `kept` (None: every cell; none of them missing) as int64 positions among their
    sorted distinct texts, and those texts: what ``pd.factorize(texts, sort=True)`` gives, sorting each
    distinct text once."""
    codes = column.codes if kept is None else column.codes[kept]
    used = np.zeros(len(column.texts), dtype=bool)
    used[codes] = True
    texts = column.texts
    if column.order is not None:  # sorted already, as the bytes compare
        ranked = column.order[used[column.order]].tolist()
    else:
        ranked = sorted(np.flatnonzero(used).tolist(), key=texts.__getitem__)  # type: ignore[arg-type]
    rank = np.zeros(len(texts), dtype=np.int64)
    rank[ranked] = np.arange(len(ranked))
    return rank[codes], tuple([texts[k] for k in ranked])  # type: ignore[misc]


def _labels_kept(label: Column) -> tuple[np.ndarray | None, np.ndarray, tuple[str, ...]]:
    """The positions of the cells whose label is there (None: every cell's is), their labels' codes and the
    distinct labels (in the order they first occur)."""
    if None not in label.texts:
        return None, label.codes, label.texts  # type: ignore[return-value]
    missing = label.texts.index(None)
    kept = np.flatnonzero(label.codes != missing)
    codes = label.codes[kept]
    return kept, codes - (codes > missing), label.texts[:missing] + label.texts[missing + 1:]  # type: ignore[return-value]


_DENSE_KEYS = 8
"""A file's (unit, rater) keys are sorted through a table of every key when there are at most this many
keys per rating (a few raters rating most units), else by a sort."""


@dataclass(frozen=True)
class RatingCells:
    """The ratings a file holds (missing cells left out), in reading order, coded by unit, rater and label.

    Attributes:
        unit_codes, rater_codes: int64, each rating's position in ``unit_ids`` / ``rater_ids``.
        unit_ids, rater_ids: the distinct ids, sorted.
        label_codes: int64, each rating's position in ``label_texts``.
        label_texts: the distinct labels, in the order they first occur.
        unit, rater, label: object arrays of text, one entry per rating (made when asked for).
    """

    unit_codes: np.ndarray
    rater_codes: np.ndarray
    unit_ids: tuple[str, ...]
    rater_ids: tuple[str, ...]
    label_codes: np.ndarray
    label_texts: tuple[str, ...]
    cell_where: Callable[[np.ndarray], np.ndarray]
    """The places of cells by their position among every cell of the file (missing ones too)."""
    kept: np.ndarray | None
    """Each rating's position among every cell of the file (None: the same, no cell is missing)."""
    by_unit_rater: np.ndarray
    """The ratings' positions sorted by (unit, rater)."""

    def __len__(self) -> int:
        return int(self.unit_codes.size)

    @cached_property
    def unit(self) -> np.ndarray:
        return _objects(self.unit_ids)[self.unit_codes]

    @cached_property
    def rater(self) -> np.ndarray:
        return _objects(self.rater_ids)[self.rater_codes]

    @cached_property
    def label(self) -> np.ndarray:
        return _objects(self.label_texts)[self.label_codes]

    def where(self, ratings: np.ndarray | Sequence[int]) -> np.ndarray:
        """The places of the ratings at these positions, e.g. ``"line 4, column 'bob'"`` (made only when asked)."""
        return self.cell_where(_cells_of(self.kept, ratings))


def _by_key(key: np.ndarray, n_keys: int) -> np.ndarray | None:
    """The positions of distinct int64 `key` values in [0, n_keys) sorted by key, or None when a key repeats."""
    if n_keys > _DENSE_KEYS * key.size:
        order = np.argsort(key, kind="stable")
        ranked = key[order]
        return None if (ranked[1:] == ranked[:-1]).any() else order
    if np.bincount(key, minlength=n_keys).max() > 1:
        return None
    slots = np.full(n_keys, -1, dtype=np.int64)
    slots[key] = np.arange(key.size)
    return slots[slots >= 0]


def _sorted_ratings(path: Path, unit_codes: np.ndarray, rater_codes: np.ndarray, unit_ids: tuple[str, ...],
                    rater_ids: tuple[str, ...], where: Callable[[Sequence[int]], np.ndarray]) -> np.ndarray:
    """The ratings' positions sorted by (unit, rater); a unit rated twice by one rater is refused, naming the
    later rating (the first in file order) and the earlier one."""
    key = unit_codes * max(1, len(rater_ids)) + rater_codes
    order = _by_key(key, len(unit_ids) * max(1, len(rater_ids)))
    if order is not None:
        return order
    order = np.argsort(key, kind="stable")
    ranked = key[order]
    again = ranked[1:] == ranked[:-1]
    second = int(order[1:][again].min())
    first = int(np.flatnonzero(key == key[second])[0])
    unit, rater = unit_ids[unit_codes[second]], rater_ids[rater_codes[second]]
    here, there = where([second, first])
    raise RatingsFileError(
        f"{path}: {here}: rater {rater!r} already rated unit {unit!r} ({there}); keep one rating per unit and rater"
    )


def _cells_of(kept: np.ndarray | None, ratings: np.ndarray | Sequence[int]) -> np.ndarray:
    """The positions among every cell of the file of the ratings at these positions."""
    ratings = np.asarray(ratings, dtype=np.int64)
    return ratings if kept is None else kept[ratings]


def read_cells(
    path: Path | str, layout: str = "long", raters_as_rows: bool = False, columns: dict[str, str] | None = None,
) -> RatingCells:
    """Read a ratings file into its ratings, as arrays (no pandas): see `read_ratings`, which
    gives the same as a DataFrame.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "r.csv")
    >>> _ = open(p, "w").write("unit,ann,bob\\nq1,yes,no\\nq2,yes,\\n")
    >>> cells = read_cells(p, "wide")
    >>> cells.unit.tolist(), cells.rater.tolist(), cells.label.tolist(), cells.where([2]).tolist()
    (['q1', 'q1', 'q2'], ['ann', 'bob', 'ann'], ['yes', 'no', 'yes'], ["line 3, column 'ann'"])
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
    kept, label_codes, label_texts = _labels_kept(cells.label)
    if not label_codes.size:
        raise RatingsFileError(f"{path}: no ratings found (every label cell is empty)")
    unit_codes, unit_ids = _sorted_codes(cells.unit, kept)
    rater_codes, rater_ids = _sorted_codes(cells.rater, kept)
    order = _sorted_ratings(path, unit_codes, rater_codes, unit_ids, rater_ids,
                            lambda ratings: cells.where(_cells_of(kept, ratings)))
    return RatingCells(unit_codes, rater_codes, unit_ids, rater_ids, label_codes, label_texts, cells.where, kept,
                       order)


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
    import pandas as pd

    cells = read_cells(path, layout, raters_as_rows, columns)
    return pd.DataFrame({"unit": cells.unit, "rater": cells.rater, "label": cells.label,
                         "where": cells.where(np.arange(len(cells)))})


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


@dataclass(frozen=True)
class CodedFile:
    """A ratings file read and coded for the agreement coefficients, nothing computed yet.

    Attributes:
        coded: the ratings as codes (`CodedRatings`).
        n_ratings: ratings read (missing cells not counted).
        units, raters: ids in code order (sorted).
        categories: the value domain (order used for ordinal statistics and Gwet's q).
    """

    coded: CodedRatings
    n_ratings: int
    units: tuple[str, ...]
    raters: tuple[str, ...]
    categories: tuple[Any, ...]


def coded_file(
    path: Path | str,
    layout: str = "long",
    level: str = "nominal",
    raters_as_rows: bool = False,
    order: Sequence[str] | None = None,
    columns: dict[str, str] | None = None,
) -> CodedFile:
    """Read a ratings file (`read_cells`), fit its labels to ``level`` (`prepared_label_values`) and code them
    (`coded_labels`): what `agreement_from_file` computes on, without pandas.  Refuses a file with one rater.
    The labels are fitted and coded once per distinct label, the ratings sorted by (unit, rater) once."""
    from annotate.analysis.agreement.coded import coded_labels

    cells = read_cells(path, layout, raters_as_rows, columns)
    labels, kept_order = prepared_label_values(cells.label_texts, cells.label_codes, level, order,
                                               lambda i: str(cells.where([i])[0]), source=path)
    by = cells.by_unit_rater
    coded, categories = coded_labels(cells.unit_codes[by], cells.rater_codes[by], cells.label_codes[by], labels,
                                     len(cells.unit_ids), len(cells.rater_ids), kept_order)
    if len(cells.rater_ids) < 2:
        raise RatingsFileError(f"{path}: only one rater ({cells.rater_ids[0]!r}); agreement needs at least two")
    return CodedFile(coded, len(cells), cells.unit_ids, cells.rater_ids, categories)


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
    from annotate.analysis.agreement.table import agreement_table
    from annotate.analysis.bootstrap import MIN_UNITS_FOR_INTERVAL
    from annotate.text import plural

    read = coded_file(path, layout, level, raters_as_rows, order, columns)
    table = agreement_table(read.coded, level, read.categories, list(read.raters),  # type: ignore[arg-type]
                            n_boot=n_boot, seed=seed, **({"coefficients": coefficients} if coefficients else {}))
    warnings = []
    pairable = int((read.coded.ratings_per_unit() >= 2).sum())  # units with two ratings or more
    if pairable < MIN_UNITS_FOR_INTERVAL:
        warnings.append(
            f"{path}: only {plural(pairable, 'unit')} rated by two or more raters: too few to resample, so no "
            "interval is given (null); an estimate from so little data says next to nothing"
        )
    return FileAgreement(table, read.n_ratings, read.units, read.raters, read.categories, tuple(warnings))
