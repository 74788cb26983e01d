"""A `Report` on the terminal with Rich tables, or as plain text for a file.

Every cell is a Rich `Text` built from `clean`ed text, never parsed as markup, so a rater called
``[bold red]x`` or ``\\x1b]52;...`` shows as those characters and does nothing.
"""

from __future__ import annotations

import io

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from annotate.report.model import Report, Section, Table, format_cell
from annotate.report.text import clean

__all__ = ["render_plain", "render_to_console", "renderables"]

_RIGHT = {"int", "num", "num1", "pct", "ci", "p", "ms"}


def _table(table: Table) -> RenderableType:
    rich = RichTable(
        title=Text(clean(table.title), style="bold"), title_justify="left", box=box.SIMPLE_HEAD, show_edge=False,
        pad_edge=False,
    )
    for column in table.columns:
        numeric = column.kind in _RIGHT
        rich.add_column(Text(clean(column.name)), justify="right" if numeric else "left",
                        overflow="ellipsis" if numeric else "fold", no_wrap=numeric,
                        min_width=None if numeric else min(12, len(column.name)))
    for row in table.rows:
        rich.add_row(*(Text(clean(format_cell(v, c.kind))) for v, c in zip(row, table.columns, strict=True)))
    parts: list[RenderableType] = [rich]
    if not table.rows:
        parts.append(Text("  (no data)", style="dim"))
    parts.extend(Text("  " + clean(note, limit=2000), style="dim") for note in table.notes)
    parts.append(Text(""))
    return Group(*parts)


def _section(section: Section) -> list[RenderableType]:
    out: list[RenderableType] = [Text(clean(section.title).upper(), style="bold underline"), Text("")]
    out.extend(Text(clean(note, limit=2000)) for note in section.notes)
    if section.notes:
        out.append(Text(""))
    out.extend(_table(t) for t in section.tables)
    return out


def renderables(report: Report) -> list[RenderableType]:
    """The report as a list of Rich renderables (title, facts, then each section)."""
    out: list[RenderableType] = [Text(clean(report.title, limit=200), style="bold")]
    for key, value in report.meta:
        out.append(Text(f"{clean(key)}: {clean(value, limit=300)}", style="dim"))
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
