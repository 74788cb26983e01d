"""Telling a lead what a file looks like when it is not what the command will read it as.

A CSV saved as `.jsonl`, Chatbot Arena battles given without `--format arena`, a spreadsheet
saved as `.xlsx`, a zip: each would fail deep in the reader with a correct but puzzling error
(`line 1: broken JSON`, `field "question_id": unknown`). `format_hint` looks only at the first
bytes and the first record of the file, before the import reads it, and says what the file looks
like and the command that would work. It speaks only where the import would otherwise fail: a
file the command reads correctly never gets a hint.
"""

from __future__ import annotations

import csv
import json
import shlex
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from annotate.formats.errors import safe

HEAD_BYTES = 1 << 20
"""How much of the file is read to find its first record (a first record longer than this gets
no hint: the reader's own error stands)."""

_JSON_EXTENSIONS = {".json", ".jsonl", ".ndjson"}
_TEXT_EXTENSIONS = {".csv", ".tsv", *_JSON_EXTENSIONS}
_CONTAINER_NAMES = {"json": "JSON", "jsonl": "JSON Lines", "native": "JSON Lines", "csv": "CSV", "tsv": "TSV"}
_BATTLE_FIELDS = {"question_id", "model_a", "model_b", "winner", "conversation_a", "conversation_b"}
_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ODS_MIMETYPE = b"application/vnd.oasis.opendocument.spreadsheet"
_SHOWN_COLUMNS = 6

Reading = Literal["items", "labels"]


@dataclass(frozen=True)
class FormatHint:
    """What a file looks like, and how to import it instead."""

    file: str
    """The file as the user named it."""
    looks_like: str
    """`CSV (a header of 8 comma-separated columns: idx, instruction, …)`, `an Excel workbook (.xlsx)`."""
    but: str
    """How that differs from what the command reads: `, not JSON Lines`, `, which its extension does
    not say`."""
    args: tuple[str, ...] = ()
    """Options that make the command read it (`--format csv`); empty when no option does."""
    before: str = ""
    """What to do first when no option reads the file as it is (`save it as CSV (UTF-8)`)."""
    file_then: str = ""
    """The file to name in the command after `before` (the CSV saved, the file unzipped)."""
    items_instead: bool = False
    """The file holds items and votes together: `annotate import`, not `labels import`."""
    note: str = ""
    """A last remark (`then map its columns with --map`)."""

    def message(self, command: Sequence[str], options: Sequence[str] = (),
                items_command: Sequence[str] = ()) -> str:
        """One line: `x.jsonl looks like CSV (...), not JSON Lines; import it with: annotate import ...`.

        command: the words of the command as run, up to the file (`annotate labels import evals`);
        options: those given after it that still apply (`--cohort crowd`); items_command: the
        words of `annotate import` for this session (votes that come with their items).
        """
        if self.items_instead:
            words = [*items_command, self.file_then or self.file, *self.args]
        else:
            words = [*command, self.file_then or self.file, *options, *self.args]
        line = shlex.join(words)
        head = f"{safe(self.file)} looks like {self.looks_like}{self.but}"
        how = f"{self.before}, then: {line}" if self.before else f"import it with: {line}"
        return f"{head}; {how}{self.note}"


def format_hint(path: Path | str, *, reading: Reading, format: str | None = None,
                mapped: bool = False) -> FormatHint | None:
    """A hint when `path` looks unlike what the import would read it as, else None.

    reading: `items` (`annotate import`) or `labels` (`annotate labels import`). format: the
    `--format` given (None or `auto`: by extension). mapped: `--map` was given (a JSON file of any
    shape is then read through the map, so record shapes get no hint). Reads at most HEAD_BYTES;
    a file that cannot be read gets no hint (the import's own error says why).
    """
    path = Path(path)
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError:
        return None
    file = str(path)
    format = None if format in (None, "auto") else format
    binary = _binary_hint(path, file, head)
    if binary is not None:
        return binary
    text = _head_text(head)
    if text is None:
        return None
    container = _by_extension(path) if format in (None, "arena", "mtbench") else format
    first = text.lstrip()[:1]
    if first not in ("[", "{"):
        if container in ("csv", "tsv") or format in ("arena", "mtbench"):
            return None
        return _csv_hint(file, text, container, reading)
    record = _first_record(text)
    if record is None:
        return None
    if not mapped and format not in ("arena", "mtbench") and record.keys() >= _BATTLE_FIELDS:
        return _battle_hint(file, record, reading)
    if container in ("csv", "tsv"):
        kind, option = ("a JSON array", "json") if first == "[" else ("JSON Lines", "jsonl")
        return FormatHint(file, kind, f", not {_CONTAINER_NAMES[container]}", ("--format", option))
    return None


def _battle_hint(file: str, record: dict[str, Any], reading: Reading) -> FormatHint:
    """Arena battles or MT-Bench judgments (told apart by the question id: MT-Bench numbers its
    questions, the Arena gives hex strings), given without their --format."""
    qid = record.get("question_id")
    mtbench = isinstance(qid, int) and not isinstance(qid, bool)
    shape = "MT-Bench judgments" if mtbench else "Chatbot Arena battles"
    option = ("--format", "mtbench" if mtbench else "arena")
    if reading == "labels":
        return FormatHint(file, f"{shape} (items with their votes)", ", not a ratings file", option,
                          items_instead=True)
    return FormatHint(file, shape, ", not items in the native format", option)


def _by_extension(path: Path) -> str | None:
    suffix = path.suffix.lower()
    return {".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "tsv"}.get(suffix)


def _head_text(head: bytes) -> str | None:
    """The head as text (a BOM dropped, a character cut at the end forgiven), or None when it is not UTF-8."""
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    for cut in range(4):  # the read may end inside a multi-byte character
        try:
            return head[: len(head) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
    return None


# -- files that are not text ----------------------------------------------------------------------------


def _binary_hint(path: Path, file: str, head: bytes) -> FormatHint | None:
    """Spreadsheets, zip and gzip archives."""
    text = ", not text (CSV, TSV, JSON or JSON Lines)"
    csv_name = str(path.with_suffix(".csv"))
    if head.startswith(_OLE2):
        return FormatHint(file, "an Excel 97-2003 workbook (.xls)", text,
                          before="save it from the spreadsheet as CSV (UTF-8)", file_then=csv_name)
    if head.startswith(b"\x1f\x8b"):
        inner = str(path.with_suffix("")) if path.suffix.lower() == ".gz" else file
        return FormatHint(file, "a gzip-compressed file", text, before=f"unpack it (gunzip {shlex.quote(file)})",
                          file_then=inner)
    if not head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return None
    names = _zip_names(path)
    if head[30:38] == b"mimetype" and _ODS_MIMETYPE in head[:200]:
        return FormatHint(file, "an OpenDocument spreadsheet (.ods)", text,
                          before="save it from the spreadsheet as CSV (UTF-8)", file_then=csv_name)
    if any(name.startswith("xl/") for name in names) or path.suffix.lower() in (".xlsx", ".xlsm"):
        return FormatHint(file, "an Excel workbook (.xlsx)", text,
                          before="save it from the spreadsheet as CSV (UTF-8)", file_then=csv_name)
    inside = [n for n in names if Path(n).suffix.lower() in _TEXT_EXTENSIONS and not n.endswith("/")]
    if len(inside) == 1:
        return FormatHint(file, f"a zip archive holding {safe(inside[0])}", text,
                          before=f"unzip it (unzip {shlex.quote(file)})", file_then=inside[0])
    held = f" of {len(names)} files" if names else ""
    return FormatHint(file, f"a zip archive{held}", text, before=f"unzip it (unzip {shlex.quote(file)})",
                      file_then="FILE")


def _zip_names(path: Path) -> list[str]:
    """The archive's member names (its central directory only), or [] when it cannot be read."""
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.namelist()[:1000]
    except (zipfile.BadZipFile, OSError, ValueError):
        return []


# -- text files ----------------------------------------------------------------------------------------


def _csv_hint(file: str, text: str, container: str | None, reading: Reading) -> FormatHint | None:
    """A CSV or TSV file that the command would read as JSON (or cannot name)."""
    lines = [line for line in text.splitlines()[:3] if line.strip()]
    if not lines:
        return None
    first = lines[0]
    delimiter = "\t" if first.count("\t") > first.count(",") else ","
    try:
        rows = list(csv.reader(lines[:2], delimiter=delimiter))
    except csv.Error:
        return None
    header = rows[0]
    if len(header) < 2 or (len(rows) > 1 and len(rows[1]) != len(header) and not _quoted_open(lines[1])):
        return None
    kind = "TSV" if delimiter == "\t" else "CSV"
    shown = ", ".join(safe(name.strip())[:30] for name in header[:_SHOWN_COLUMNS])
    more = ", …" if len(header) > _SHOWN_COLUMNS else ""
    separated = "tab" if delimiter == "\t" else "comma"
    looks = f"{kind} (a first line of {len(header)} {separated}-separated columns: {shown}{more})"
    but = f", not {_CONTAINER_NAMES[container]}" if container else ", which its extension does not say"
    note = ""
    if reading == "items" and not {"prompt", "A"} <= {name.strip() for name in header}:
        note = "; its columns then need --map (--map prompt=COL --map A=COL --map B=COL: see annotate import --help)"
    return FormatHint(file, looks, but, ("--format", kind.lower()), note=note)


def _quoted_open(line: str) -> bool:
    """The line opens a quoted field it does not close (a record spanning lines)."""
    return line.count('"') % 2 == 1


def _first_record(text: str) -> dict[str, Any] | None:
    """The first JSON object of a JSON array or JSON Lines text, when the head holds it whole."""
    stripped = text.lstrip()
    decoder = json.JSONDecoder()
    try:
        if stripped.startswith("["):
            body = stripped[1:].lstrip()
            value, _ = decoder.raw_decode(body)
        else:
            value = json.loads(stripped.split("\n", 1)[0])
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
