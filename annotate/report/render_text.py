"""A `Report` on the terminal with Rich tables, or as plain text for a file.

Every cell is a Rich `Text` built from `clean`ed text, never parsed as markup, so a rater called
``[bold red]x`` or ``\\x1b]52;...`` shows as those characters and does nothing.

Layout is decided at render time, for the width the table gets:

* every cell is shown whole: a number, an interval or a name is never cut, folded or wrapped;
* a table whose cells fit side by side is a table (headers wrap between words when they must);
* a table that does not fit becomes a list of records, one per row: its label (``cohort: expert``)
  and then ``column: value`` pairs (an interval joins the estimate before it), wrapped between pairs;
* prose (notes) wraps between words, never inside an interval such as ``[39.2, 62.2] %``.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.table import Table as RichTable
from rich.text import Text

from annotate.report.model import NUMERIC_KINDS, Report, Section, Table, format_cell
from annotate.report.text import clean

__all__ = ["render_plain", "render_to_console", "renderables", "wrap_prose"]

_CI_KINDS = {"ci", "pctci"}
_GAP = 3
"""Characters between two columns of a Rich table with box SIMPLE_HEAD, no edge, padding (0, 1)."""
_NUMBER = re.compile(r"[-+]?\d")


def _tokens(text: str) -> list[str]:
    """Units of prose never broken across lines: words, except that an interval ``[0.39, 0.62]`` stays
    whole and a ``%`` (or ``%,``) stays with the number before it."""
    words = text.split()
    out: list[str] = []
    k = 0
    while k < len(words):
        token = words[k]
        k += 1
        if token.startswith("[") and "]" not in token and _NUMBER.match(token[1:]):
            end = k
            while end < len(words) and end - k < 3 and "]" not in words[end]:
                end += 1
            if end < len(words) and "]" in words[end]:
                token = " ".join([token, *words[k : end + 1]])
                k = end + 1
        if k < len(words) and words[k].startswith("%"):
            token += " " + words[k]
            k += 1
        out.append(token)
    return out


def wrap_prose(text: str, width: int, indent: str = "") -> list[str]:
    """Lines of at most ``width`` cells; breaks only between tokens (`_tokens`), except a token wider
    than the line, which is cut into pieces."""
    width = max(width, len(indent) + 8)
    lines: list[str] = []
    line = indent
    for token in _tokens(text):
        sep = "" if line == indent else " "
        if cell_len(line) + len(sep) + cell_len(token) <= width:
            line += sep + token
            continue
        if line != indent:
            lines.append(line)
            line = indent
        while cell_len(line) + cell_len(token) > width:  # a token wider than the line: fold it
            room = width - cell_len(line)
            piece = token[:room]
            while cell_len(piece) > room and len(piece) > 1:
                piece = piece[:-1]
            lines.append(line + piece)
            token = token[len(piece):]
            line = indent
        line += token
    if line != indent or not lines:
        lines.append(line)
    return lines


class _Prose:
    """Text wrapped for the width it is given, between tokens (see `wrap_prose`)."""

    def __init__(self, text: str, indent: str = "", style: str = "") -> None:
        self.text, self.indent, self.style = text, indent, style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in wrap_prose(self.text, options.max_width, self.indent):
            yield Text(line, style=self.style, no_wrap=True, overflow="ignore")


class _Bullet:
    """One statement of a list: ``- `` then prose wrapped with a hanging indent."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = wrap_prose(self.text, options.max_width - 2)
        for k, line in enumerate(lines):
            yield Text(("- " if k == 0 else "  ") + line, no_wrap=True, overflow="ignore")


def _label_columns(table: Table) -> list[int]:
    """The columns that say what a row is: the text columns before the first number (else the first
    text column)."""
    leading = []
    for k, column in enumerate(table.columns):
        if column.kind in NUMERIC_KINDS:
            break
        leading.append(k)
    if leading:
        return leading
    return [k for k, c in enumerate(table.columns) if c.kind not in NUMERIC_KINDS][:1]


class _AdaptiveTable:
    """One report table: a Rich table when its cells fit side by side, else a list of records."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.headers = [clean(c.name) for c in table.columns]
        self.cells = [[clean(format_cell(v, c.kind)) for v, c in zip(row, table.columns, strict=True)]
                      for row in table.rows]

    def widths(self, available: int) -> list[int] | None:
        """Column content widths that show every cell whole within ``available``, or None."""
        n = len(self.headers)
        cell_w = [max((cell_len(r[k]) for r in self.cells), default=0) for k in range(n)]
        word_w = [max((cell_len(w) for w in h.split()), default=1) for h in self.headers]
        natural = [max(c, cell_len(h)) for c, h in zip(cell_w, self.headers, strict=True)]
        minimum = [max(c, w, 1) for c, w in zip(cell_w, word_w, strict=True)]
        room = available - _GAP * (n - 1)
        if sum(minimum) > room:
            return None
        widths = list(minimum)
        spare = room - sum(widths)
        for k in sorted(range(n), key=lambda k: natural[k] - minimum[k]):  # unwrap the cheapest headers first
            give = min(spare, natural[k] - widths[k])
            widths[k] += give
            spare -= give
        return widths

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = self.table
        yield _Prose(clean(table.title, limit=200), style="bold")
        widths = self.widths(options.max_width) if self.cells else None
        if not self.cells:
            yield _Prose(clean(table.empty or "(no data)", limit=2000), indent="  ", style="dim")
        elif widths is not None:
            yield self._rich_table(widths)
        else:
            yield from self._records(options.max_width)
        for note in table.notes:
            yield _Prose(clean(note, limit=2000), indent="  ", style="dim")
        yield Text("")

    def _rich_table(self, widths: Sequence[int]) -> RichTable:
        rich = RichTable(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        for header, column, width in zip(self.headers, self.table.columns, widths, strict=True):
            numeric = column.kind in NUMERIC_KINDS
            rich.add_column(Text(header, overflow="fold"), justify="right" if numeric else "left", width=width)
        for row in self.cells:
            rich.add_row(*(Text(cell, no_wrap=True, overflow="crop") for cell in row))
        return rich

    def _records(self, width: int) -> Iterable[RenderableType]:
        columns = self.table.columns
        labels = _label_columns(self.table)
        for row in self.cells:
            head = [f"{self.headers[k]}: {row[k]}" for k in labels]
            yield from _pairs(head, width, "  ", sep=", ", style="bold")
            chunks: list[str] = []
            for k, column in enumerate(columns):
                if k in labels:
                    continue
                joins = (column.kind in _CI_KINDS and chunks and k - 1 not in labels
                         and columns[k - 1].kind in NUMERIC_KINDS - _CI_KINDS)
                if joins and not row[k].startswith("not enough data"):
                    if row[k] != "–":
                        chunks[-1] += f" {row[k]}"
                    continue
                chunks.append(f"{self.headers[k]}: {row[k]}")
            yield from _pairs(chunks, width, "    " if head else "  ")


def _pairs(chunks: Sequence[str], width: int, indent: str, sep: str = "; ", style: str = "") -> Iterable[Text]:
    """``name: value`` chunks joined by ``sep``, wrapped between chunks (a chunk wider than a line folds)."""
    line = indent
    mark = sep.rstrip()
    for chunk in chunks:
        piece = chunk if line == indent else sep + chunk
        if line != indent and cell_len(line) + cell_len(piece) + len(mark) > width:  # room for the separator
            end = mark if cell_len(line) + len(mark) <= width else ""
            yield Text(line + end, style=style, no_wrap=True, overflow="ignore")
            line, piece = indent, chunk
        line += piece
        if cell_len(line) > width:  # one chunk wider than the line: fold it (long untrusted text only)
            for folded in wrap_prose(line.strip(), width, indent):
                yield Text(folded, style=style, no_wrap=True, overflow="ignore")
            line = indent
    if line != indent:
        yield Text(line, style=style, no_wrap=True, overflow="ignore")


def _section(section: Section) -> list[RenderableType]:
    out: list[RenderableType] = [Text(clean(section.title).upper(), style="bold underline"), Text("")]
    out.extend(_Bullet(clean(line, limit=4000)) for line in section.lines)
    if section.lines:
        out.append(Text(""))
    out.extend(_Prose(clean(note, limit=2000)) for note in section.notes)
    if section.notes:
        out.append(Text(""))
    out.extend(_AdaptiveTable(t) for t in section.tables)
    return out


def renderables(report: Report) -> list[RenderableType]:
    """The report as a list of Rich renderables (title, facts, notes, then each section)."""
    out: list[RenderableType] = [Text(clean(report.title, limit=200), style="bold")]
    for key, value in report.meta:
        out.append(_Prose(f"{clean(key)}: {clean(value, limit=300)}", style="dim"))
    out.append(Text(""))
    for note in report.notes:
        out.append(_Prose(clean(note, limit=2000)))
    if report.notes:
        out.append(Text(""))
    for section in report.sections:
        out.extend(_section(section))
    return out


def render_to_console(report: Report, console: Console | None = None) -> None:
    """Print the report on a terminal (colours when the console has them)."""
    if console is None:
        console = Console(highlight=False, emoji=False)
        if not console.is_terminal:
            console = Console(highlight=False, emoji=False, width=120)
    for part in renderables(report):
        console.print(part)


def render_plain(report: Report, width: int = 120) -> str:
    """The report as plain text (no colour, no escape sequences), for `-o FILE`."""
    buffer = io.StringIO()
    console = Console(
        file=buffer, width=width, color_system=None, force_terminal=False, highlight=False, emoji=False,
        legacy_windows=False,
    )
    render_to_console(report, console)
    return buffer.getvalue()
