"""THE ORACLE, not the product: annotate/analysis/ratings_table.py
as it was before `annotate agreement FILE` stopped importing pandas (main at f269bd2), kept verbatim
(only this note and its imports changed) so that tests can compare the pandas-free reader with it,
table by table and error by error.

A ratings file read into columns of cell texts, for `annotate.analysis.ratings_io`.

The reading is columnar: no object per cell. A CSV or TSV file without quote characters (what
spreadsheets and scripts write for labels) is parsed by pandas' C reader, one record per physical
line, so each row's line number is its position; any other delimited file (quotes, which may hold
line breaks or be malformed, lone carriage returns, NUL bytes, a row wider than the header) goes
through the csv module, which checks it strictly and counts lines exactly. Both give the same
table, and every error names the file, the line (or JSON record) and the column.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.ratings_table import RatingsFileError  # one error class: messages compare alike
from annotate.nesting import deep_line, nesting_error, too_deep

MISSING = frozenset({"", "na", "n/a", "nan", "null", "none", ".", "*"})
"""Cell texts (lower-cased, stripped) that mean "no rating"."""

_EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json"}


@dataclass(frozen=True)
class Table:
    """The cells of a ratings file, by column.

    Attributes:
        header: the column names, in file order.
        columns: one object array per column: the cell's text (stripped), or None when missing.
        rows: one object array, where each row is (``"line 4"``, ``"record 3"``).
        header_where: where the header is, for messages (``"line 1 (header)"``, ``"the keys"``).
    """

    header: tuple[str, ...]
    columns: tuple[np.ndarray, ...]
    rows: np.ndarray
    header_where: str

    def where(self, row: int, column: int) -> str:
        """``"line 4, column 'bob'"``."""
        return f"{self.rows[row]}, column {self.header[column]!r}"

    def wheres(self, rows: np.ndarray, column: int) -> np.ndarray:
        """`where` of many rows of one column, at once."""
        return (pd.Series(self.rows[rows], dtype=object) + f", column {self.header[column]!r}").to_numpy(object)


def _text(value: Any) -> str | None:
    """A JSON value as text, or None when it means missing."""
    if value is None:
        return None
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int):
        text = str(value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            return None
        text = str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    elif isinstance(value, str):
        text = value.strip()
    else:
        text = json.dumps(value, ensure_ascii=False)
    return None if text.lower() in MISSING else text


def _texts(cells: pd.Series) -> np.ndarray:
    """Raw cell strings as stripped texts, None where they mean missing (all at once)."""
    stripped = cells.str.strip()
    return stripped.where(~stripped.str.lower().isin(MISSING), None).to_numpy(object)


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise RatingsFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise RatingsFileError(f"{path}: is a folder, not a ratings file") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise RatingsFileError(f"{path}: line {line}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None


def _delimited_fast(text: str, delimiter: str) -> Table | None:
    """The table of a delimited file with one record per line, or None when the file is not that
    plain (the exact reader then decides, and names what is wrong)."""
    if '"' in text or "\x00" in text or not text.strip():
        return None
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            return None
    n_lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    try:
        frame = pd.read_csv(io.StringIO(text), sep=delimiter, header=None, dtype=str, keep_default_na=False,
                            na_filter=False, skip_blank_lines=False, quoting=csv.QUOTE_NONE, engine="c")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError):
        return None  # e.g. a row with more cells than the first line
    if len(frame) != n_lines:
        return None
    frame = frame.fillna("")
    header = tuple(str(cell).strip() for cell in frame.iloc[0])
    if not any(header):
        return None  # blank lines before the header
    body = frame.iloc[1:]
    stripped = [body[c].str.strip() for c in body.columns]
    present = np.zeros(len(body), dtype=bool)  # a row of blank cells is skipped, as a blank line
    for cells in stripped:
        present |= (cells != "").to_numpy()
    columns = [cells.where(~cells.str.lower().isin(MISSING), None).to_numpy(object) for cells in stripped]
    lines = np.flatnonzero(present) + 2
    return Table(header, tuple(column[present] for column in columns),
                 np.array([f"line {n}" for n in lines.tolist()], dtype=object), "line 1 (header)")


def _delimited_exact(path: Path, text: str, delimiter: str) -> Table:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    header: tuple[str, ...] | None = None
    records: list[list[str]] = []
    lines: list[str] = []
    try:
        for record in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in record):
                continue
            if header is None:
                header = tuple(cell.strip() for cell in record)
                continue
            if len(record) > len(header):
                if any(cell.strip() for cell in record[len(header):]):
                    raise RatingsFileError(
                        f"{path}: line {line}: {len(record)} cells but the header (line 1) has {len(header)} columns"
                    )
                record = record[: len(header)]
            records.append(record + [""] * (len(header) - len(record)))
            lines.append(f"line {line}")
    except csv.Error as exc:
        raise RatingsFileError(f"{path}: line {reader.line_num}: {exc}") from None
    if header is None:
        raise RatingsFileError(f"{path}: the file is empty (expected a header row)")
    frame = pd.DataFrame(records, columns=range(len(header)), dtype=object)
    columns = tuple(_texts(frame[c].astype(str)) if len(frame) else np.array([], dtype=object)
                    for c in range(len(header)))
    return Table(header, columns, np.array(lines, dtype=object), "line 1 (header)")


def _loads(path: Path, text: str, first_line: int) -> Any:
    """JSON text (starting on line `first_line` of the file), refused when nested too deeply."""
    try:
        value = json.loads(text)
    except RecursionError:
        value = None
    else:
        if not too_deep(value):
            return value
    line = first_line - 1 + (deep_line(text) or 1)
    raise RatingsFileError(f"{path}: line {line}: expected {nesting_error()}, found deeper nesting")


def _records(path: Path, text: str, kind: str) -> Table:
    objects: list[tuple[str, Any]] = []
    if kind == "jsonl":
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                objects.append((f"line {number}", _loads(path, line, number)))
            except json.JSONDecodeError as exc:
                raise RatingsFileError(f"{path}: line {number}, column {exc.colno}: not JSON: {exc.msg}") from None
    else:
        try:
            data = _loads(path, text, 1)
        except json.JSONDecodeError as exc:
            raise RatingsFileError(f"{path}: line {exc.lineno}, column {exc.colno}: not JSON: {exc.msg}") from None
        if not isinstance(data, list):
            raise RatingsFileError(f"{path}: expected a JSON array of objects, found {type(data).__name__}")
        objects = [(f"record {number}", obj) for number, obj in enumerate(data, start=1)]
    header: dict[str, None] = {}
    for where, obj in objects:
        if not isinstance(obj, dict):
            raise RatingsFileError(f"{path}: {where}: expected a JSON object, found {type(obj).__name__}")
        header.update(dict.fromkeys(obj))
    if not objects:
        raise RatingsFileError(f"{path}: the file holds no records")
    columns = tuple(np.array([_text(obj.get(key)) for _, obj in objects], dtype=object) for key in header)
    return Table(tuple(header), columns, np.array([where for where, _ in objects], dtype=object), "the keys")


def read_table(path: Path) -> Table:
    """The cells of a ratings file (format by extension, see `annotate.analysis.ratings_io`)."""
    kind = _EXTENSIONS.get(path.suffix.lower())
    if kind is None:
        raise RatingsFileError(
            f"{path}: unknown extension {path.suffix or '(none)'!r}; expected .csv, .tsv, .jsonl or .json"
        )
    text = _read_text(path)
    if kind in ("csv", "tsv"):
        delimiter = "," if kind == "csv" else "\t"
        return _delimited_fast(text, delimiter) or _delimited_exact(path, text, delimiter)
    return _records(path, text, kind)
