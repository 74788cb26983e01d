"""Reading an input file into records that remember where they came from.

Every importer starts here: the bytes are checked as UTF-8 (a BOM is accepted, a bad byte is an
error naming its line), the container is told from the extension or the first character (a JSON
array, JSON Lines, CSV or TSV), and each record keeps its file and line (or its position in a JSON
array) so a later check can name them. Nothing is interpreted: strings stay exactly as written.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from annotate.formats.errors import _MISSING, FormatError
from annotate.nesting import MAX_DEPTH, deep_line, nesting_error, too_deep

Container = Literal["csv", "tsv", "json", "jsonl"]
CONTAINERS: tuple[str, ...] = ("csv", "tsv", "json", "jsonl")
_EXTENSIONS = {".csv": "csv", ".tsv": "tsv", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl"}
_CSV_FIELD_LIMIT = 256 * 1024 * 1024
"""Far above any text we accept, so an oversized field reaches our own size check (and its clear
error) instead of the csv module's "field larger than field limit"."""


@dataclass(frozen=True)
class Record:
    """One object of the input and where it was found."""

    data: Mapping[str, Any]
    file: str
    """The file as the user named it."""
    line: int | None
    """1-based line in JSONL and CSV files; None in a JSON array."""
    index: int
    """1-based position among the file's records."""

    def error(
        self, expected: str, field: str | None = None, *, got: Any = _MISSING, found: str | None = None,
        field_kind: str = "field",
    ) -> FormatError:
        """A FormatError located at this record."""
        return FormatError(
            self.file, expected, line=self.line, record=None if self.line is not None else self.index,
            field=field, got=got, found=found, field_kind=field_kind,
        )

    @property
    def where(self) -> str:
        """`line 7` or `record 3`, for messages that point back at this record."""
        return f"line {self.line}" if self.line is not None else f"record {self.index}"


@dataclass(frozen=True)
class Table:
    """The records of one file."""

    file: str
    container: str
    records: tuple[Record, ...]
    columns: tuple[str, ...]
    """CSV: the header (unnamed columns left out); JSON: every key seen, in first-seen order."""

    @property
    def is_csv(self) -> bool:
        return self.container in ("csv", "tsv")

    def has_columns(self, wanted: set[str]) -> bool:
        return wanted <= set(self.columns)


def read_table(path: Path | str, container: str | None = None) -> Table:
    """Read `path` into records; `container` (csv, tsv, json, jsonl) overrides the guess."""
    path = Path(path)
    file = str(path)
    text = read_text(path)
    kind = container or guess_container(path, text)
    if kind not in CONTAINERS:
        raise FormatError(file, f"a format among {', '.join(CONTAINERS)}", found=repr(kind))
    if kind in ("csv", "tsv"):
        return _csv_table(file, text, "\t" if kind == "tsv" else ",", kind)
    if kind == "json" and text.lstrip()[:1] == "[":
        records = _json_array(file, text)
    elif kind == "json" and not text.strip():
        records = ()
    elif kind == "json":
        raise FormatError(file, "a JSON array of records, or JSON Lines (one object per line)",
                          found=f"a file starting with {text.lstrip()[:1]!r}")
    else:
        records = _jsonl(file, text)
    columns: dict[str, None] = {}
    for record in records:
        columns.update(dict.fromkeys(record.data))
    return Table(file, kind, records, tuple(columns))


def empty_warning(table: Table) -> str | None:
    """`FILE holds no records` when the file has none (empty, blank lines only, `[]`, or a CSV
    header without rows), else None. Importers warn with it and write nothing."""
    if table.records:
        return None
    header = " (only a header)" if table.is_csv and table.columns else ""
    return f"{table.file} holds no records{header}"


def read_text(path: Path) -> str:
    """The file's text: UTF-8, with a leading BOM dropped. Errors name the line and byte."""
    file = str(path)
    data = path.read_bytes()
    check_bom(file, data)
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise utf8_error(file, line, column, exc.start, data[exc.start]) from None


def check_bom(file: str, start: bytes) -> None:
    """Refuse UTF-16 by its byte-order mark (`start`: the file's first bytes)."""
    if start.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise FormatError(file, "UTF-8 text", found="UTF-16 (save the file as UTF-8)")


def utf8_error(file: str, line: int, column: int, offset: int, byte: int) -> FormatError:
    """A byte that is not UTF-8, at `line` and byte `column` (both 1-based), `offset` bytes after any BOM."""
    return FormatError(
        file, "UTF-8 text", line=line,
        found=f"byte 0x{byte:02x} at column {column} (byte offset {offset}), which is not UTF-8;"
        " save the file as UTF-8",
    )


def guess_container(path: Path, text: str) -> str:
    """csv / tsv by extension; JSON array or JSON Lines by the first character (so a `.json`
    file of JSON Lines, or a `.jsonl` file holding an array, is still read right)."""
    by_extension = _EXTENSIONS.get(path.suffix.lower())
    if by_extension in ("csv", "tsv"):
        return by_extension
    first = text.lstrip()[:1]
    if first == "[":
        return "json"
    if first == "{":
        return "jsonl"
    if by_extension is not None:
        return by_extension
    raise FormatError(
        str(path), "a .csv, .tsv, .json or .jsonl file (or pass --format)",
        found=f"a file starting with {first!r}" if first else "an empty file",
    )


# -- JSON ------------------------------------------------------------------------------------------


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(key)


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) == len(pairs):
        return result
    seen: set[str] = set()
    for key, _ in pairs:  # fewer keys than pairs: find the first key given twice
        if key in seen:
            raise _DuplicateKey(key)
        seen.add(key)
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} (not a JSON number; write null or a string)")


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_no_constant)
"""One decoder for every record (json.loads with options builds a new one per call)."""


class _TooDeep(ValueError):
    def __init__(self, line: int | None) -> None:
        self.line = line
        """The line of the parsed text where the nesting passes MAX_DEPTH (None: not found)."""
        super().__init__(nesting_error())


def _loads(text: str) -> Any:
    try:
        if text.startswith("\ufeff"):  # json.loads words this one ("Unexpected UTF-8 BOM")
            value = json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant)
        else:
            value = _DECODER.decode(text)
    except RecursionError:
        raise _TooDeep(deep_line(text)) from None
    except ValueError as exc:
        if str(exc).startswith("Exceeds the limit"):  # Python's cap on integer digits, with advice for programmers
            raise ValueError(f"a number of more than {sys.get_int_max_str_digits():,} digits") from None
        raise
    if text.count("[") + text.count("{") > MAX_DEPTH and too_deep(value):  # fewer brackets cannot nest deeper
        raise _TooDeep(deep_line(text))
    return value


def _json_array(file: str, text: str) -> tuple[Record, ...]:
    try:
        data = _loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(file, "valid JSON", line=exc.lineno, found=f"{exc.msg} at column {exc.colno}") from None
    except _DuplicateKey as exc:
        raise FormatError(file, "each key once per object", field=exc.key, found="it twice") from None
    except _TooDeep as exc:
        raise FormatError(file, str(exc), line=exc.line, found="deeper nesting") from None
    except ValueError as exc:
        raise FormatError(file, "valid JSON", found=str(exc)) from None
    if not isinstance(data, list):
        raise FormatError(file, "a JSON array of records", got=data)
    records = []
    for index, value in enumerate(data, start=1):
        if not isinstance(value, dict):
            raise FormatError(file, "a JSON object", record=index, got=value)
        records.append(Record(value, file, None, index))
    return tuple(records)


def _jsonl(file: str, text: str) -> tuple[Record, ...]:
    return tuple(jsonl_records(file, enumerate(text.split("\n"), start=1), lambda: text))


def jsonl_records(file: str, lines: Iterable[tuple[int, str]], whole: Callable[[], str | None]) -> Iterator[Record]:
    """Records of JSON Lines given as (line number, text without its newline); blank lines are
    skipped. `whole` gives the file's text (or None when it is too large to hold), read only when
    the first record is broken JSON, to tell a single pretty-printed object apart."""
    for number, index, value in jsonl_values(file, lines, whole):
        yield Record(value, file, number, index)


def jsonl_values(
    file: str, lines: Iterable[tuple[int, str]], whole: Callable[[], str | None], index: int = 0,
) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """`jsonl_records` as (line number, record number, object), checked the same way, for a reader
    that makes a Record only for a record it has something to say about. `index`: the records of
    the file before `lines` (the rest of a file read in blocks)."""
    for number, line in lines:
        value = _plain_object(line)
        if value is not None:
            index += 1
            yield number, index, value
            continue
        if not line.strip():
            continue
        try:
            value = _loads(line)
        except json.JSONDecodeError as exc:
            if not index:
                text = whole()
                if text is not None:
                    _refuse_pretty_json(file, text)
            raise FormatError(
                file, "one JSON object per line", line=number, found=f"broken JSON: {exc.msg} at column {exc.colno}",
            ) from None
        except _DuplicateKey as exc:
            raise FormatError(file, "each key once per object", line=number, field=exc.key,
                              found="it twice") from None
        except _TooDeep as exc:
            raise FormatError(file, str(exc), line=number, found="deeper nesting") from None
        except ValueError as exc:
            raise FormatError(file, "valid JSON", line=number, found=str(exc)) from None
        if not isinstance(value, dict):
            raise FormatError(file, "a JSON object", line=number, got=value)
        index += 1
        yield number, index, value


_raw_decode = _DECODER.raw_decode


def _plain_object(line: str) -> dict[str, Any] | None:
    """The line's object as `_loads` decodes it, when the line is one JSON object and nothing else
    (no space around it, no byte-order mark, too few brackets to nest past MAX_DEPTH); None for
    anything else, or any error, which `_loads` then decodes again to raise and word it."""
    if not line.startswith("{") or line.count("[") + line.count("{") > MAX_DEPTH:
        return None
    try:
        value, end = _raw_decode(line)
    except (ValueError, RecursionError):
        return None
    return value if end == len(line) else None  # type: ignore[no-any-return]


def _refuse_pretty_json(file: str, text: str) -> None:
    """A single pretty-printed object is a common mistake; say so instead of "broken JSON"."""
    try:
        whole = _loads(text)
    except ValueError:
        return
    if isinstance(whole, dict):
        raise FormatError(
            file, "JSON Lines (one object per line) or a JSON array of objects",
            found="a single object spread over several lines",
        )


# -- CSV -------------------------------------------------------------------------------------------


def _csv_table(file: str, text: str, delimiter: str, kind: str) -> Table:
    header: list[str] = []
    records = tuple(csv_records(file, io.StringIO(text, newline=""), delimiter, header))
    return Table(file, kind, records, tuple(name for name in header if name))


def csv_records(file: str, lines: Iterable[str], delimiter: str, header: list[str]) -> Iterator[Record]:
    """Records of CSV read from `lines` (split as a file opened with newline="" splits them); the
    header row fills `header` as soon as it is read."""
    previous = csv.field_size_limit()
    csv.field_size_limit(max(previous, _CSV_FIELD_LIMIT))
    try:
        reader = csv.reader(lines, delimiter=delimiter, strict=True)
        seen_header = False
        index = 0
        while True:
            start = reader.line_num + 1
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                raise _csv_error(file, exc, start, reader.line_num) from None
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if not seen_header:
                seen_header = True
                seen: set[str] = set()
                for name in row:
                    if name and name in seen:
                        raise FormatError(file, "distinct column names in the header", line=start,
                                          field=name, field_kind="column", found="it twice")
                    seen.add(name)
                header.extend(row)
                continue
            if len(row) != len(header):
                raise FormatError(
                    file, f"{len(header)} fields, as in the header", line=start,
                    found=f"{len(row)} (check the quoting and the {'tabs' if delimiter == chr(9) else 'commas'})",
                )
            index += 1
            yield Record({name: value for name, value in zip(header, row, strict=True) if name}, file, start, index)
    finally:
        csv.field_size_limit(previous)


def _csv_error(file: str, exc: csv.Error, start: int, end: int) -> FormatError:
    """A csv module error, located at the line where the broken record starts: a quote that is
    never closed makes the reader run to the end of the file, far from the mistake."""
    message = str(exc)
    if "unexpected end of data" in message:
        found = f"a quote in the record that starts on this line, never closed (read on to the end, line {end})"
        return FormatError(file, "well-formed CSV (every opening quote closed)", line=start, found=found)
    if end > start:
        message += f" at line {end}, in the record that starts here"
    return FormatError(file, "well-formed CSV", line=start, found=message)
