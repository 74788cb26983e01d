"""The one error every reader raises: it names the file, the line (or record), the field, what was
expected and what was found, so a lead can fix the input without reading our code.

Values from the input are untrusted: `describe` quotes them, escapes anything a terminal could act
on, and cuts long ones short, so a 10 MB field or an escape sequence never reaches the screen whole.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from typing import Any

_MISSING: Any = object()
_SHOWN_CHARS = 60


def safe(text: str) -> str:
    """`text` with every non-printable character (controls, bidi marks) written as an escape."""
    return "".join(c if c.isprintable() else json.dumps(c)[1:-1] if ord(c) < 0x20 else f"\\u{ord(c):04x}"
                   for c in text)


def describe(value: Any) -> str:
    """A short, terminal-safe rendering of an input value for an error message."""
    if isinstance(value, str):
        shown = value[:_SHOWN_CHARS]
        quoted = '"' + safe(shown).replace('"', '\\"') + '"'
        if len(value) > _SHOWN_CHARS:
            quoted = quoted[:-1] + f'…" ({len(value):,} characters)'
        return quoted
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """` (did you mean "x"?)` when a choice is close to `word`, else an empty string."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {describe(close[0])}?)" if close else ""


class FormatError(ValueError):
    """An input file that cannot be imported; nothing was written.

    The message reads like `pairs.jsonl: line 7: field "responses.B.text": expected a non-empty
    string, got ""`. `line` is the 1-based physical line of JSONL and CSV files (for a CSV record
    spanning several lines, the line it starts on); `record` is the 1-based position of a record
    in a JSON array, where lines mean little. `got` is the offending input value (quoted and cut
    short by `describe`); `found` is a description written by us, shown as is.
    """

    def __init__(
        self,
        file: str,
        expected: str,
        *,
        line: int | None = None,
        record: int | None = None,
        field: str | None = None,
        got: Any = _MISSING,
        found: str | None = None,
        field_kind: str = "field",
    ) -> None:
        self.file = file
        self.expected = expected
        self.line = line
        self.record = record
        self.field = field
        self.got = None if got is _MISSING else got
        parts = [file]
        if line is not None:
            parts.append(f"line {line}")
        elif record is not None:
            parts.append(f"record {record}")
        if field is not None:
            parts.append(f"{field_kind} {describe(field)}")
        message = f"expected {expected}"
        if found is not None:
            message += f", got {found}"
        elif got is not _MISSING:
            message += f", got {describe(got)}"
        parts.append(message)
        super().__init__(": ".join(parts))
