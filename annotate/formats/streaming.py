"""Reading an input file a record at a time, so an import holds one batch of records, never the file.

`open_source` looks at the first bytes only (byte-order mark, UTF-16, the container from the
extension or the first character; a CSV's header row); `Source.records` then reads the file from
the start each time it is called. The checks and messages are those of `annotate.formats.reading`:
a byte that is not UTF-8 names its line, column and byte offset, broken JSON its line and column, a
CSV quote never closed the line its record starts on. Because records are checked as they are read,
the first problem in the file is the one reported (a whole-file read finds a bad byte anywhere
before it looks at any record).

JSON arrays are read element by element (`json.JSONDecoder.raw_decode` over a sliding buffer);
JSON Lines line by line; CSV and TSV through the csv module over the lines of the file.
"""

from __future__ import annotations

import codecs
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from annotate.formats.errors import FormatError
from annotate.formats.reading import (
    CONTAINERS,
    Record,
    _DuplicateKey,
    _no_constant,
    _pairs,
    check_bom,
    csv_records,
    guess_container,
    jsonl_records,
    jsonl_values,
    utf8_error,
)
from annotate.nesting import MAX_DEPTH, deep_line, nesting_error, too_deep

_PEEK = 1 << 16
_CHUNK = 1 << 20
_WHOLE_LIMIT = 64 << 20
"""The largest file read whole to tell a pretty-printed single object from broken JSON Lines."""
_TAIL = 32
"""A value that ends this close to the end of the buffer is decoded again with more text."""


@dataclass
class Source:
    """An input file, read a record at a time (`records`), as often as needed."""

    path: Path
    file: str
    """The file as the user named it."""
    container: str
    header: tuple[str, ...] = ()
    """CSV: the header row (unnamed columns left out)."""
    _keys: tuple[str, ...] | None = field(default=None, repr=False)

    @property
    def is_csv(self) -> bool:
        return self.container in ("csv", "tsv")

    def records(self) -> Iterator[Record]:
        """The file's records from the first, read as they are asked for."""
        with self.path.open("rb") as handle:
            skip_bom(handle)
            if self.is_csv:
                header: list[str] = []
                yield from csv_records(self.file, _text_lines(self, handle), "\t" if self.container == "tsv" else ",",
                                       header)
            elif self.container == "json":
                yield from _array_records(self, handle)
            else:
                yield from jsonl_records(self.file, _numbered_lines(self.file, handle), self._whole_text)

    def values(self) -> Iterator[tuple[int | None, int, Any]]:
        """The file's records as (line or None, record number, object): `records` without a Record
        made for each (JSON Lines, the bulk formats' container, are read without them)."""
        if self.container != "jsonl":
            for record in self.records():
                yield record.line, record.index, record.data
            return
        with self.path.open("rb") as handle:
            skip_bom(handle)
            yield from jsonl_values(self.file, _numbered_lines(self.file, handle), self._whole_text)

    def line_blocks(self) -> Iterator[tuple[bytes, int, int]]:
        """JSON Lines: the file in blocks of whole lines (`line_blocks`), after its byte-order mark."""
        with self.path.open("rb") as handle:
            skip_bom(handle)
            yield from line_blocks(handle)

    @property
    def columns(self) -> tuple[str, ...]:
        """CSV: the header; JSON: every key of every record in first-seen order (one pass over the file)."""
        if self.is_csv:
            return self.header
        if self._keys is None:
            keys: dict[str, None] = {}
            for record in self.records():
                keys.update(dict.fromkeys(record.data))
            self._keys = tuple(keys)
        return self._keys

    def has_records(self) -> bool:
        """Whether the file holds a record (reading up to the first one)."""
        records = self.records()
        try:
            return next(records, None) is not None
        finally:
            records.close()

    def has_columns(self, wanted: set[str]) -> bool:
        """Whether every wanted column is in the file: CSV by its header; JSON reading records only
        until all have been seen (usually the first record)."""
        if self.is_csv or self._keys is not None:
            return wanted <= set(self.columns)
        missing = set(wanted)
        for record in self.records():
            missing -= set(record.data)
            if not missing:
                return True
        return False

    def _whole_text(self) -> str | None:
        if self.path.stat().st_size > _WHOLE_LIMIT:
            return None
        from annotate.formats.reading import read_text

        return read_text(self.path)


def skip_bom(handle: BinaryIO) -> int:
    """Move past a UTF-8 byte-order mark; returns its length (0 without one)."""
    start = handle.read(len(codecs.BOM_UTF8))
    if start == codecs.BOM_UTF8:
        return len(start)
    handle.seek(0)
    return 0


def open_source(path: Path | str, container: str | None = None) -> Source:
    """The file as a Source; `container` (csv, tsv, json, jsonl) overrides the guess. Reads only
    the start of the file (and a CSV's header)."""
    path = Path(path)
    file = str(path)
    with path.open("rb") as handle:
        start = handle.read(4)
        check_bom(file, start)
        handle.seek(0)
        skip_bom(handle)
        kind = container or guess_container(path, _peek_text(file, path, handle))
    if kind not in CONTAINERS:
        raise FormatError(file, f"a format among {', '.join(CONTAINERS)}", found=repr(kind))
    source = Source(path, file, kind)
    if source.is_csv:
        source.header = _read_header(source)
    elif kind == "json":
        with path.open("rb") as handle:
            skip_bom(handle)
            first = _peek_text(file, path, handle).lstrip()[:1]
        if first not in ("[", ""):
            raise FormatError(file, "a JSON array of records, or JSON Lines (one object per line)",
                              found=f"a file starting with {first!r}")
    return source


def _peek_text(file: str, path: Path, handle: BinaryIO) -> str:
    """The text at the start of the file, far enough to see its first character that is not white space."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    text = ""
    while True:
        chunk = handle.read(_PEEK)
        try:
            text += decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError:
            raise _locate_utf8_error(file, path) from None
        if not chunk or text.strip():
            return text


def _read_header(source: Source) -> tuple[str, ...]:
    header: list[str] = []
    with source.path.open("rb") as handle:
        skip_bom(handle)
        records = csv_records(source.file, _text_lines(source, handle), "\t" if source.container == "tsv" else ",",
                              header)
        for _ in records:
            break
        records.close()
    return tuple(name for name in header if name)


def _numbered_lines(file: str, handle: BinaryIO) -> Iterator[tuple[int, str]]:
    """(line number, text without its newline) of a binary file split at LF, as `str.split("\\n")`
    splits the decoded text. A byte that is not UTF-8 is an error naming its line and column."""
    for block, number, offset in line_blocks(handle):
        for line in block_lines(file, block, number, offset):
            number += 1
            yield number, line


def line_blocks(handle: BinaryIO) -> Iterator[tuple[bytes, int, int]]:
    """The file's bytes in blocks of whole lines (about `_CHUNK` each; the last line may lack its
    newline), each with how many lines and bytes come before it."""
    offset, number, pending = 0, 0, b""
    while True:
        chunk = handle.read(_CHUNK)
        data = pending + chunk
        cut = len(data) if not chunk else data.rfind(b"\n") + 1  # whole lines, and the last one at the end
        if not cut:
            if not chunk:
                return
            pending = data
            continue
        block, pending = data[:cut], data[cut:]
        yield block, number, offset
        number += block.count(b"\n")
        offset += len(block)
        if not chunk:
            return


def block_lines(file: str, block: bytes, number: int, offset: int) -> list[str]:
    """The lines of a block of `line_blocks` (`number` lines and `offset` bytes before it), decoded.
    A byte that is not UTF-8 is an error naming its line and column."""
    try:
        lines = block.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        lines = _decoded_lines(file, block, number, offset)  # raises, naming the line of the bad byte
    if block.endswith(b"\n"):
        lines.pop()  # split leaves an empty string after the last newline
    return lines


def _decoded_lines(file: str, block: bytes, number: int, offset: int) -> list[str]:
    """The block's lines decoded one by one, to raise for the first byte that is not UTF-8 (its line
    and column); `number` lines and `offset` bytes of the file come before the block."""
    lines = []
    for raw in block.split(b"\n"):
        number += 1
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise utf8_error(file, number, exc.start + 1, offset + exc.start, raw[exc.start]) from None
        offset += len(raw) + 1
    return lines


def _text_lines(source: Source, handle: BinaryIO) -> Iterator[str]:
    """The file's lines as a file opened with newline="" gives them (CR, LF and CRLF all end a line)."""
    text = io.TextIOWrapper(handle, encoding="utf-8", newline="")
    while True:
        try:
            line = text.readline()
        except UnicodeDecodeError:
            raise _locate_utf8_error(source.file, source.path) from None
        if not line:
            return
        yield line


def _locate_utf8_error(file: str, path: Path) -> FormatError:
    """The error for the first byte of the file that is not UTF-8 (the file read again from the start)."""
    with path.open("rb") as handle:
        skip_bom(handle)
        decoder = codecs.getincrementaldecoder("utf-8")()
        offset, newlines, line_start = 0, 0, 0
        while True:
            chunk = handle.read(_CHUNK)
            pending = len(decoder.getstate()[0])
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as exc:
                start = offset - pending  # exc.object holds the pending bytes, then the chunk
                head = exc.object[: exc.start]
                if b"\n" in head:
                    line_start = start + head.rfind(b"\n") + 1
                bad = start + exc.start
                return utf8_error(file, 1 + newlines + head.count(b"\n"), bad - line_start + 1, bad,
                                  exc.object[exc.start])
            if not chunk:
                return FormatError(file, "UTF-8 text", found="a byte that is not UTF-8")
            newlines += chunk.count(b"\n")
            if b"\n" in chunk:
                line_start = offset + chunk.rfind(b"\n") + 1
            offset += len(chunk)


# -- JSON arrays ---------------------------------------------------------------------------------


class _Buffer:
    """Decoded text of a file read in chunks, with the line and column where the buffer starts."""

    def __init__(self, file: str, path: Path, handle: BinaryIO) -> None:
        self.file = file
        self.path = path
        self.handle = handle
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.text = ""
        self.eof = False
        self.line = 1
        """Line of text[0]."""
        self.column = 0
        """Characters of that line before text[0]."""

    def more(self) -> bool:
        """Read another chunk; False at the end of the file."""
        if self.eof:
            return False
        chunk = self.handle.read(max(_CHUNK, len(self.text)))
        try:
            self.text += self.decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError:
            raise _locate_utf8_error(self.file, self.path) from None
        self.eof = not chunk
        return True

    def drop(self, pos: int) -> int:
        """Forget text[:pos] (returns 0, the new position)."""
        gone = self.text[:pos]
        newlines = gone.count("\n")
        if newlines:
            self.line += newlines
            self.column = len(gone) - gone.rfind("\n") - 1
        else:
            self.column += len(gone)
        self.text = self.text[pos:]
        return 0

    def where(self, pos: int) -> tuple[int, int]:
        """(line, column) of text[pos], 1-based, as `json.loads` on the whole file would say."""
        before = self.text[:pos]
        newlines = before.count("\n")
        if newlines:
            return self.line + newlines, pos - before.rfind("\n")
        return self.line, self.column + pos + 1

    def skip_space(self, pos: int) -> int:
        while True:
            while pos < len(self.text) and self.text[pos] in " \t\n\r":
                pos += 1
            if pos < len(self.text) or not self.more():
                return pos


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_no_constant)


def _array_records(source: Source, handle: BinaryIO) -> Iterator[Record]:
    """The elements of a JSON array, each a record (their position in the array: `record N`)."""
    file = source.file
    buf = _Buffer(file, source.path, handle)
    pos = buf.skip_space(0)
    if pos >= len(buf.text):
        return  # an empty file: no records
    if buf.text[pos] != "[":
        raise FormatError(file, "a JSON array of records", found=f"a file starting with {buf.text[pos]!r}")
    pos = buf.skip_space(pos + 1)
    index = 0
    if pos < len(buf.text) and buf.text[pos] == "]":
        _expect_end(buf, pos + 1)
        return
    while True:
        if pos > _CHUNK:
            pos = buf.drop(pos)
        value, pos = _element(buf, pos)
        index += 1
        if not isinstance(value, dict):
            raise FormatError(file, "a JSON object", record=index, got=value)
        yield Record(value, file, None, index)
        pos = buf.skip_space(pos)
        if pos >= len(buf.text):
            raise _json_error(buf, pos, "Expecting ',' delimiter")
        if buf.text[pos] == "]":
            _expect_end(buf, pos + 1)
            return
        if buf.text[pos] != ",":
            raise _json_error(buf, pos, "Expecting ',' delimiter")
        pos = buf.skip_space(pos + 1)


def _element(buf: _Buffer, pos: int) -> tuple[Any, int]:
    """One array element decoded at `pos` (read on while it may run past the buffer)."""
    while True:
        try:
            value, end = _DECODER.raw_decode(buf.text, pos)
        except json.JSONDecodeError as exc:
            if not buf.eof and (exc.msg.startswith("Unterminated string") or exc.pos >= len(buf.text) - _TAIL):
                buf.more()
                continue
            raise _json_error(buf, exc.pos, exc.msg) from None
        except _DuplicateKey as exc:
            raise FormatError(buf.file, "each key once per object", field=exc.key, found="it twice") from None
        except RecursionError:
            raise _too_deep(buf, pos) from None
        except ValueError as exc:
            if str(exc).startswith("Exceeds the limit"):
                import sys

                raise FormatError(buf.file, "valid JSON",
                                  found=f"a number of more than {sys.get_int_max_str_digits():,} digits") from None
            raise FormatError(buf.file, "valid JSON", found=str(exc)) from None
        if not buf.eof and end >= len(buf.text) - _TAIL:
            buf.more()
            continue
        brackets = buf.text.count("[", pos, end) + buf.text.count("{", pos, end)
        if brackets > MAX_DEPTH - 1 and too_deep(value, MAX_DEPTH - 1):  # fewer brackets cannot nest deeper
            raise _too_deep(buf, pos)
        return value, end


def _too_deep(buf: _Buffer, pos: int) -> FormatError:
    while buf.more():
        pass
    line = deep_line(buf.text[pos:], MAX_DEPTH - 1)
    where = None if line is None else buf.where(pos)[0] + line - 1
    return FormatError(buf.file, nesting_error(), line=where, found="deeper nesting")


def _expect_end(buf: _Buffer, pos: int) -> None:
    pos = buf.skip_space(pos)
    if pos < len(buf.text):
        raise _json_error(buf, pos, "Extra data")


def _json_error(buf: _Buffer, pos: int, msg: str) -> FormatError:
    line, column = buf.where(pos)
    return FormatError(buf.file, "valid JSON", line=line, found=f"{msg} at column {column}")
