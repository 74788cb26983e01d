"""CSV as we write it: every field that needs quotes gets them, and spreadsheet formulas are defused.

Quoting (RFC 4180): a field is put in double quotes, with its own quotes doubled, when it holds the
delimiter, a double quote, a line feed or a carriage return. Python's `csv.writer` decides by the
characters of its line terminator, so with `lineterminator="\\n"` a lone CR inside a field went out
bare and split the row for every reader; rows here end with `\\n` and the rule is ours.

Formulas: a spreadsheet opening a CSV runs a cell that begins with `=`, `+`, `-` or `@` as a
formula (`=HYPERLINK(...)`, `=cmd|...`), and some also after a leading tab or CR. Item text and
rationales come from models and from people outside the team, so by default such a cell is written
with a leading `'`, which spreadsheets take as "text" and do not show. A cell that is a plain
number (`-2`, `+1.5`, `-0.25`, `1e-3`) is no formula and is left alone, so signed grades stay
numbers. `raw=True` writes every cell exactly as stored (for machines, and to import back).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["FORMULA_STARTS", "csv_field", "csv_row", "defuse_formula"]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula."""

_NEEDS_QUOTES = re.compile('[,"\r\n]')
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


_FIRST = frozenset(FORMULA_STARTS)


def defuse_formula(text: str) -> str:
    """`text` with a leading `'` when a spreadsheet would run it as a formula (plain numbers excepted).

    >>> defuse_formula("=1+1"), defuse_formula("-2"), defuse_formula("- a point")
    ("'=1+1", '-2', "'- a point")
    """
    if text[:1] in _FIRST and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def csv_field(text: str) -> str:
    """One field, quoted when it holds a comma, a double quote, LF or CR."""
    if _NEEDS_QUOTES.search(text) is None:
        return text
    return '"' + text.replace('"', '""') + '"'


def csv_row(cells: Iterable[str], *, raw: bool = False) -> str:
    """One line of CSV ending in `\\n`; formulas defused unless `raw`."""
    fields = list(cells) if raw else [defuse_formula(cell) for cell in cells]
    line = ",".join(fields)
    if line.count(",") == len(fields) - 1 and '"' not in line and "\n" not in line and "\r" not in line:
        return line + "\n"  # no field needs quotes: the common row, written without looking at each field
    return ",".join(csv_field(field) for field in fields) + "\n"
