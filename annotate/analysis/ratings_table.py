"""A ratings file read into columns of cell texts, for `annotate.analysis.ratings_io`.

The reading is columnar and needs no pandas (importing it costs more than reading a 45,000-rating file
and computing alpha with 1000 resamples). A column is each row's code into the column's distinct texts
(`Column`): cleaning (stripping, the missing tokens), sorting and fitting labels are then done once per
distinct text. A CSV or TSV file without quote characters (what spreadsheets and scripts write for labels)
is read one record per physical line, so each row's line number is its position: when every line is as
wide as the header its cells are found and coded on the bytes (`annotate.analysis.ratings_bytes`), else
split line by line and cell by cell; any other delimited file (quotes, which may hold line breaks or be
malformed, lone carriage returns, NUL bytes, a row wider than the header) goes through the csv module,
which checks it strictly and counts lines exactly. All give the same table, and every error names the
file, the line (or JSON record) and the column.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from annotate.analysis.ratings_bytes import Coded, plain_columns, raw_codes
from annotate.nesting import deep_line, nesting_error, too_deep

MISSING = frozenset({"", "na", "n/a", "nan", "null", "none", ".", "*"})
"""Cell texts (lower-cased, stripped) that mean "no rating"."""

MISSING_CASES = frozenset("".join(chars) for token in MISSING
                          for chars in itertools.product(*({c, c.upper()} for c in token)))
"""Every text whose `str.lower` is in `MISSING` (``NA``, ``Null``, ...): no character outside ASCII lowers to
a letter of theirs, so a cell is looked up as it is, without making its lower-case copy."""

_EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json"}


class RatingsFileError(ValueError):
    """A ratings file that cannot be read; the message names the file, line and column."""


@dataclass(frozen=True)
class Column:
    """One column of a ratings file, factorized: each row's code into `texts`, the column's distinct cell
    texts (stripped; None for a missing cell).

    Reading and coding then cost one look-up per cell and the rest is done once per distinct text (a
    column of labels or raters holds a few, a column of unit ids one per unit). The texts other than None
    stand in the order they first occur in `codes`, which fixes the categories of labels that are the same
    number written apart (``0`` and ``-0``) as the first one seen.
    """

    codes: np.ndarray
    """int64, one per row: the row's position in `texts`."""
    texts: tuple[str | None, ...]
    order: np.ndarray | None = field(default=None, compare=False)
    """When known (none missing), the positions in `texts` that sort them: ``sorted(texts)`` is
    ``[texts[k] for k in order]``."""

    def cells(self) -> np.ndarray:
        """Each row's text (None when missing), as an object array."""
        return _objects(self.texts)[self.codes]

    def first_missing(self) -> int | None:
        """The first row whose cell is missing, or None when none is."""
        if None not in self.texts:
            return None
        hits = np.flatnonzero(self.codes == self.texts.index(None))
        return int(hits[0]) if hits.size else None


@dataclass(frozen=True)
class Table:
    """The cells of a ratings file, by column.

    Attributes:
        header: the column names, in file order.
        columns: one `Column` per column: each row's cell text (stripped), or None when missing.
        numbers: int64, each row's line (or JSON record) number in the file; formatted only for messages.
        row_word: what a row is called in messages: ``"line"`` or ``"record"``.
        header_where: where the header is, for messages (``"line 1 (header)"``, ``"the keys"``).
    """

    header: tuple[str, ...]
    columns: tuple[Column, ...]
    numbers: np.ndarray
    row_word: str
    header_where: str

    @property
    def n_rows(self) -> int:
        return int(self.numbers.size)

    def places(self, rows: Iterable[int]) -> list[str]:
        """Where each of `rows` is: ``["line 4", ...]``."""
        numbers = self.numbers
        return [f"{self.row_word} {numbers[row]}" for row in rows]

    def where(self, row: int, column: int) -> str:
        """``"line 4, column 'bob'"``."""
        return f"{self.places([row])[0]}, column {self.header[column]!r}"

    def wheres(self, rows: np.ndarray, column: int) -> np.ndarray:
        """`where` of many rows of one column, at once."""
        tail = f", column {self.header[column]!r}"
        return np.array([place + tail for place in self.places(np.asarray(rows).tolist())], dtype=object)


def _objects(values: Sequence[Any]) -> np.ndarray:
    """`values` as a 1-D object array (each one an element, whatever it is)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


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


def _missing_as_none(texts: list[str]) -> list[str | None]:
    """Stripped cell texts with those that mean missing (`MISSING`, any case) as None."""
    if MISSING_CASES.isdisjoint(texts):
        return texts
    return [None if text in MISSING_CASES else text for text in texts]


def _merged(codes: np.ndarray, texts: list[str | None]) -> Column:
    """Codes into `texts`, which may hold a text twice (raw cells that clean alike, ``yes`` and `` yes``),
    as a column of codes into its distinct texts, in the order of their first codes."""
    distinct = dict.fromkeys(texts)
    if len(distinct) == len(texts):
        return Column(codes, tuple(texts))
    position = dict(zip(distinct, range(len(distinct)), strict=True))
    return Column(np.fromiter(map(position.__getitem__, texts), dtype=np.int64, count=len(texts))[codes],
                  tuple(distinct))


def _column(cells: Sequence[str]) -> Column:
    """One column of raw delimited cells, cleaned (stripped, missing as None) once per distinct cell."""
    codes, raw = raw_codes(cells)
    return _merged(codes, _missing_as_none(list(map(str.strip, raw))))  # type: ignore[arg-type]


def _text_column(texts: Sequence[str | None]) -> Column:
    """A column of cleaned texts (None for missing)."""
    codes, distinct = raw_codes(texts)  # type: ignore[arg-type]
    return Column(codes, tuple(distinct))


def _columns(records: Sequence[Sequence[str]], width: int) -> tuple[Column, ...]:
    """Records of exactly `width` raw cells each as `width` cleaned columns."""
    if not records:
        return tuple(Column(np.zeros(0, dtype=np.int64), ()) for _ in range(width))
    return tuple(_column(cells) for cells in zip(*records, strict=True))


def _blank_rows(columns: Sequence[tuple[np.ndarray, list[str]]]) -> np.ndarray | None:
    """Which rows' raw cells are all blank (a blank line, or only delimiters and spaces), as a mask; None
    when no row is. `columns`: each column's codes into its distinct cells stripped, checked one by one
    while some rows are."""
    rows: np.ndarray | None = None
    for codes, stripped in columns:
        if "" not in stripped:
            return None
        blank = np.fromiter((not text for text in stripped), dtype=bool, count=len(stripped))[codes]
        rows = blank if rows is None else rows & blank
        if not rows.any():
            return None
    return rows


def _read_text(path: Path) -> tuple[str, bytes]:
    """The file as text (a BOM left out) and as the bytes it holds."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise RatingsFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise RatingsFileError(f"{path}: is a folder, not a ratings file") from None
    try:
        return data.decode("utf-8-sig"), data
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise RatingsFileError(f"{path}: line {line}: not UTF-8 text (byte {exc.start}); save it as UTF-8") from None


def _delimited_fast(text: str, delimiter: str, raw: bytes | None = None) -> Table | None:
    """The table of a delimited file with one record per line, or None when the file is not that
    plain (the exact reader then decides, and names what is wrong). raw: the file's bytes, when given
    (`text` is their decoding), so that its cells are found on them without a copy.

    Lines are split at ``\\n`` only (as the csv module and spreadsheets do; never at the other
    characters `str.splitlines` breaks at), cells at the delimiter."""
    if '"' in text or "\x00" in text or not text or text.isspace():
        return None
    if "\r" in text:
        text, raw = text.replace("\r\n", "\n"), None
        if "\r" in text:
            return None
    first_end = text.find("\n")
    header = tuple(cell.strip() for cell in (text if first_end < 0 else text[:first_end]).split(delimiter))
    if not any(header):
        return None  # blank lines before the header
    width = len(header)
    end = len(text) - text.endswith("\n")
    if first_end < 0 or first_end + 1 >= end:
        return Table(header, _columns([], width), np.zeros(0, dtype=np.int64), "line", "line 1 (header)")
    coded = _plain(text, first_end + 1, raw, delimiter, width)  # every line as wide as the header: on the bytes
    if coded is None:  # short rows (their missing cells are empty), blank lines
        records = [line.split(delimiter) for line in text[first_end + 1:end].split("\n")]
        if max(map(len, records)) > width:
            return None  # wider than the header: the exact reader refuses it or drops empty cells
        coded = [(*raw_codes(cells), None) for cells in zip(*(cells + [""] * (width - len(cells))
                                                                for cells in records), strict=True)]
    numbers = np.arange(2, coded[0][0].size + 2, dtype=np.int64)
    stripped = [(codes, list(map(str.strip, cells))) for codes, cells, _ in coded]
    blank = _blank_rows(stripped)  # a row of blank cells is skipped, as a blank line
    if blank is not None:
        keep = ~blank
        stripped, numbers = [(codes[keep], texts) for codes, texts in stripped], numbers[keep]
    columns = []
    for (codes, texts), (_, cells, order) in zip(stripped, coded, strict=True):
        column = _merged(codes, _missing_as_none(texts))
        kept = order is not None and column.texts == tuple(cells)  # the cells as they were: their order holds
        columns.append(Column(column.codes, column.texts, order) if kept else column)
    return Table(header, tuple(columns), numbers, "line", "line 1 (header)")


def _plain(text: str, body: int, raw: bytes | None, delimiter: str, width: int) -> list[Coded] | None:
    """`plain_columns` of the lines of `text` from its character `body` on, found on `raw` (the bytes `text`
    was decoded from, a BOM perhaps before them; None: encode `text`)."""
    if raw is None:
        raw = text.encode("utf-8")
    shift = len(codecs.BOM_UTF8) if raw.startswith(codecs.BOM_UTF8) else 0
    if text.isascii():  # then a character's offset is its byte's, less the BOM
        start = shift + body

        def cell(a: int, b: int) -> str:
            return text[a - shift:b - shift]
    else:
        start = shift + len(text[:body].encode("utf-8"))

        def cell(a: int, b: int) -> str:
            return raw[a:b].decode("utf-8")  # type: ignore[index]
    return plain_columns(raw, start, len(raw) - raw.endswith(b"\n"), delimiter, width, cell)


def _delimited_exact(path: Path, text: str, delimiter: str) -> Table:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    header: tuple[str, ...] | None = None
    records: list[list[str]] = []
    lines: list[int] = []
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
            lines.append(line)
    except csv.Error as exc:
        raise RatingsFileError(f"{path}: line {reader.line_num}: {exc}") from None
    if header is None:
        raise RatingsFileError(f"{path}: the file is empty (expected a header row)")
    return Table(header, _columns(records, len(header)), np.array(lines, dtype=np.int64), "line", "line 1 (header)")


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
    objects: list[tuple[int, Any]] = []
    if kind == "jsonl":
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                objects.append((number, _loads(path, line, number)))
            except json.JSONDecodeError as exc:
                raise RatingsFileError(f"{path}: line {number}, column {exc.colno}: not JSON: {exc.msg}") from None
    else:
        try:
            data = _loads(path, text, 1)
        except json.JSONDecodeError as exc:
            raise RatingsFileError(f"{path}: line {exc.lineno}, column {exc.colno}: not JSON: {exc.msg}") from None
        if not isinstance(data, list):
            raise RatingsFileError(f"{path}: expected a JSON array of objects, found {type(data).__name__}")
        objects = list(enumerate(data, start=1))
    header: dict[str, None] = {}
    word = "line" if kind == "jsonl" else "record"
    for number, obj in objects:
        if not isinstance(obj, dict):
            raise RatingsFileError(f"{path}: {word} {number}: expected a JSON object, found {type(obj).__name__}")
        header.update(dict.fromkeys(obj))
    if not objects:
        raise RatingsFileError(f"{path}: the file holds no records")
    columns = [_text_column([_text(obj.get(key)) for _, obj in objects]) for key in header]
    return Table(tuple(header), tuple(columns), np.array([number for number, _ in objects], dtype=np.int64),
                 word, "the keys")


def read_table(path: Path) -> Table:
    """The cells of a ratings file (format by extension, see `annotate.analysis.ratings_io`)."""
    kind = _EXTENSIONS.get(path.suffix.lower())
    if kind is None:
        raise RatingsFileError(
            f"{path}: unknown extension {path.suffix or '(none)'!r}; expected .csv, .tsv, .jsonl or .json"
        )
    text, raw = _read_text(path)
    if kind in ("csv", "tsv"):
        delimiter = "," if kind == "csv" else "\t"
        return _delimited_fast(text, delimiter, raw) or _delimited_exact(path, text, delimiter)
    return _records(path, text, kind)
