"""A `Report` as GitHub-flavoured Markdown: headings, pipe tables and notes.

Untrusted text (text cells, column headers, the report title and facts) is `clean`ed (controls,
bidi and zero-width characters made visible, long text cut), HTML-escaped (Markdown passes raw HTML
through, so ``<script>`` must become ``&lt;script&gt;``) and backslash-escaped for Markdown
punctuation, so a name can neither inject HTML nor break a table.  Our own numbers (every non-text
cell) are written as they are: ``0.591``, ``[0.531, 0.654]``, ``< 0.001``.  Our own prose (notes,
section and table titles) is cleaned with ``&`` and ``<`` escaped only, so `code` spans render.
"""

from __future__ import annotations

import html
import re

from annotate.report.model import NUMERIC_KINDS, Report, Table, format_cell
from annotate.report.text import clean

__all__ = ["md_note", "md_text", "render_md"]

_PUNCTUATION = re.compile(r"([\\`*_\[\]|~#])")
_AUTOLINK = re.compile(r"(?i)(://|www\.|@)")
_LEADING = re.compile(r"^([-+=>]|\d+[.)])")


def md_text(text: object, limit: int = 120) -> str:
    """Untrusted text as inert Markdown inline text: no HTML, no emphasis, links or table breaks.

    HTML-escaped first; then Markdown's inline punctuation (backslash, backtick, ``*``, ``_``,
    brackets, ``|``, ``~``, ``#``) is backslash-escaped, autolink triggers (``://``, ``www.``, ``@``)
    are broken with an escape, and a leading list or quote marker is escaped.
    """
    escaped = _PUNCTUATION.sub(r"\\\1", html.escape(clean(text, limit), quote=False))
    escaped = _AUTOLINK.sub(lambda m: "\\" + m.group(1) if m.group(1) == "@" else m.group(1)[:-1] + "\\"
                            + m.group(1)[-1], escaped)
    return _LEADING.sub(lambda m: m.group(1)[:-1] + "\\" + m.group(1)[-1], escaped)


def md_note(text: object, limit: int = 2000) -> str:
    """Our own prose (notes, section and table titles) as Markdown: cleaned, ``&`` and ``<`` escaped
    so no HTML gets through, Markdown left to work (`code` spans)."""
    return clean(text, limit).replace("&", "&amp;").replace("<", "&lt;")


def _cell(value: object, kind: str) -> str:
    text = format_cell(value, kind)
    return text if kind in NUMERIC_KINDS else md_text(text)


def _table(table: Table) -> list[str]:
    out = [f"### {md_note(table.title, 200)}", ""]
    if not table.rows:
        out += [f"*{md_note(table.empty)}*" if table.empty else "*(no data)*", ""]
    else:
        out.append("| " + " | ".join(md_text(c.name) for c in table.columns) + " |")
        out.append("|" + "|".join("---:" if c.kind != "text" else "---" for c in table.columns) + "|")
        for row in table.rows:
            out.append("| " + " | ".join(_cell(v, c.kind) for v, c in zip(row, table.columns, strict=True)) + " |")
        out.append("")
    out += [f"> {md_note(note)}" + "  " for note in table.notes]
    if table.notes:
        out.append("")
    return out


def render_md(report: Report) -> str:
    """The report as one Markdown document."""
    out = [f"# {md_text(report.title, 200)}", ""]
    out += [f"- **{md_text(key)}**: {md_text(value, 300)}" for key, value in report.meta]
    out.append("")
    for note in report.notes:
        out += [md_note(note), ""]
    for section in report.sections:
        out += [f"## {md_note(section.title, 200)}", ""]
        out += [f"- {md_note(line, 4000)}" for line in section.lines]
        if section.lines:
            out.append("")
        for note in section.notes:
            out += [md_note(note), ""]
        for table in section.tables:
            out += _table(table)
    return "\n".join(out).rstrip() + "\n"
