"""A `Report` as one self-contained HTML file: inline CSS, inline SVG charts, no script, no network.

Charts (from each table's `Chart`): ``interval`` tables (rankings, each annotator against the rest)
get a forest plot, a point with its 95 % interval per row; ``heat`` tables (confusion matrices
between cohorts) are shaded by each cell's share of its row; ``histogram`` tables (distributions of
grades) get one small bar chart per row.  Every piece of untrusted text goes
through `clean` (controls, bidi and zero-width characters made visible, long text cut) and then
`html.escape`, in element text and attribute values alike, so nothing in a name can become markup,
a script, a link or a terminal escape.
"""

from __future__ import annotations

import html
import math
from typing import Any

from annotate.report.model import Chart, Report, Table, format_cell
from annotate.report.text import clean

__all__ = ["render_html"]

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:78rem;padding:0 1rem;
color:#1d1d1f;background:#fff}
h1{font-size:1.6rem;margin-bottom:.3rem}h2{margin-top:2.2rem;border-bottom:2px solid #ddd;padding-bottom:.2rem}
h3{font-size:1.05rem;margin:1.4rem 0 .4rem}
table{border-collapse:collapse;margin:.3rem 0;font-variant-numeric:tabular-nums}
th,td{padding:.25rem .6rem;border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top}
th{background:#f6f6f6;font-weight:600}td.n{text-align:right;white-space:nowrap}
.meta{color:#555;margin:0 0 1rem;padding:0;list-style:none}.note{color:#555;font-size:.9rem;margin:.2rem 0}
.empty{color:#888;font-style:italic}svg{display:block;margin:.5rem 0 1rem}
svg text{font:12px system-ui,sans-serif;fill:#333}.wrap{overflow-x:auto}
.toc{background:#f8f8f8;border:1px solid #e4e4e4;padding:.4rem 1rem;margin:1rem 0}.toc h2{margin:.3rem 0;border:0}
.toc ol{margin:.2rem 0;padding-left:1.4rem}.toc ul{margin:.1rem 0 .3rem;padding-left:1.2rem;font-size:.9rem}
ul.summary li{margin:.3rem 0}
"""


def _e(text: object, limit: int = 120) -> str:
    """Untrusted text, cleaned and HTML-escaped (safe in element text and quoted attributes)."""
    return html.escape(clean(text, limit), quote=True)


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _table_html(table: Table, heat: Chart | None) -> str:
    if not table.rows:
        return f'<p class="empty">{_e(table.empty or "(no data)", 2000)}</p>'
    head = "".join(f"<th>{_e(c.name)}</th>" for c in table.columns)
    body = []
    for row in table.rows:
        shade: dict[int, float] = {}
        if heat is not None:
            values = [row[i] for i in heat.cells if _finite(row[i])]
            total = sum(values)
            shade = {i: (row[i] / total if total else 0.0) for i in heat.cells if _finite(row[i])}
        cells = []
        for i, (value, column) in enumerate(zip(row, table.columns, strict=True)):
            cls = ' class="n"' if column.kind != "text" else ""
            style = ""
            if i in shade:
                alpha = 0.08 + 0.72 * shade[i]
                style = f' style="background:rgba(31,119,180,{alpha:.2f})"'
            cells.append(f"<td{cls}{style}>{_e(format_cell(value, column.kind))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<div class="wrap"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'


def nice_ticks(low: float, high: float, target: int = 5) -> tuple[list[float], float]:
    """Round tick values covering [low, high]: steps of 1, 2, 2.5 or 5 times a power of ten, about
    ``target`` of them.  Returns the ticks and the step."""
    span = high - low
    if not (span > 0) or not math.isfinite(span):
        return [low], 1.0
    raw = span / max(1, target - 1)
    magnitude = 10.0 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * magnitude >= raw * 0.999)
    first = math.ceil(low / step - 1e-9) * step
    count = math.floor((high - first) / step + 1e-9) + 1
    return [first + k * step for k in range(count)], step


def tick_label(value: float, step: float) -> str:
    """A tick as people write numbers: ``1,300``, ``0.25``, ``-0.5``; never ``1.3e+03``."""
    decimals = 0 if step >= 1 else min(6, max(0, -math.floor(math.log10(step) + 1e-9)))
    if step < 1 and abs(step * 10 ** decimals - round(step * 10 ** decimals)) > 1e-9:
        decimals += 1  # steps such as 0.25
    text = f"{value:,.{decimals}f}"
    return "0" if text.strip("-0.,") == "" else text


def text_width(text: str, size: float = 12.0) -> float:
    """A generous estimate of ``text``'s width in pixels at ``size`` px in a sans-serif font, so labels
    get room enough never to be clipped (wide East Asian characters count as a full em)."""
    import unicodedata

    narrow, wide = set("ilIjtf.,:;|!'()[] "), set("mwMW@%")
    total = 0.0
    for ch in text:
        if unicodedata.east_asian_width(ch) in ("W", "F"):
            total += 1.0
        elif ch in narrow:
            total += 0.35
        elif ch in wide or ch.isupper():
            total += 0.8
        else:
            total += 0.6
    return total * size


def _forest_svg(table: Table, chart: Chart) -> str:
    """A forest plot: one row per table row, a dot at the estimate and a line over the interval.

    The label column is as wide as the longest label needs (`text_width`), so no name is clipped;
    ticks are round numbers written in full (`nice_ticks`, `tick_label`)."""
    points = []
    for row in table.rows:
        value, interval = row[chart.value], row[chart.ci]
        lo, hi = (interval if isinstance(interval, list | tuple) and len(interval) == 2 else (None, None))
        label = clean(row[chart.label])
        if chart.sublabel is not None:
            label += " · " + clean(row[chart.sublabel])
        points.append((label, value if _finite(value) else None, lo if _finite(lo) else None,
                       hi if _finite(hi) else None))
    numbers = [v for _, *vals in points for v in vals if v is not None]
    if not numbers:
        return ""
    if chart.domain is not None:
        low, high = chart.domain
        low, high = min(low, *numbers), max(high, *numbers)
    else:
        low, high = min(numbers), max(numbers)
        pad = (high - low) * 0.08 or 1.0
        low, high = low - pad, high + pad
    ticks, step = nice_ticks(low, high)
    low, high = min(low, ticks[0]), max(high, ticks[-1])
    label_w = 16 + max(text_width(label) for label, *_ in points)
    plot_w, row_h, top = 520, 22, 24
    edge = max(text_width(tick_label(t, step)) for t in ticks) / 2 + 8
    height = top + row_h * len(points) + 30

    def x(v: float) -> float:
        return label_w + (v - low) / (high - low) * plot_w

    title = _e(chart.title or table.title)
    parts = [f'<svg width="{label_w + plot_w + edge:.0f}" height="{height}" role="img" aria-label="{title}">',
             f'<text x="{label_w:.0f}" y="14">{title}</text>']
    for tick in ticks:
        tx = x(tick)
        parts.append(f'<line x1="{tx:.1f}" y1="{top - 4}" x2="{tx:.1f}" y2="{height - 24}" stroke="#eee"/>')
        parts.append(f'<text x="{tx:.1f}" y="{height - 8}" text-anchor="middle">{tick_label(tick, step)}</text>')
    if chart.domain is not None and low < 0 < high:  # a reference line where 0 means something (kappa, a change)
        zx = x(0.0)
        parts.append(f'<line x1="{zx:.1f}" y1="{top - 4}" x2="{zx:.1f}" y2="{height - 24}" stroke="#999"/>')
    for k, (label, value, lo, hi) in enumerate(points):
        cy = top + row_h * k + row_h / 2
        parts.append(f'<text x="{label_w - 8:.0f}" y="{cy + 4:.1f}" text-anchor="end">'
                     f'{html.escape(label, quote=True)}</text>')
        if chart.bars and value is not None and low <= 0 <= high:
            x0, x1 = sorted((x(0.0), x(value)))
            parts.append(f'<rect x="{x0:.1f}" y="{cy - 7:.1f}" width="{x1 - x0:.1f}" height="14" fill="#aec7e8"/>')
        if lo is not None and hi is not None:
            parts.append(f'<line x1="{x(lo):.1f}" y1="{cy:.1f}" x2="{x(hi):.1f}" y2="{cy:.1f}" stroke="#1f77b4" '
                         'stroke-width="2"/>')
        if value is not None:
            parts.append(f'<circle cx="{x(value):.1f}" cy="{cy:.1f}" r="4" fill="#1f77b4"/>')
    parts.append("</svg>")
    return '<div class="wrap">' + "".join(parts) + "</div>"


def _toc(report: Report) -> str:
    """A table of contents: each section, and under it each of its tables, linked to its anchor."""
    if not report.sections:
        return ""
    items = []
    for section in report.sections:
        tables = "".join(f'<li><a href="#{_e(t.key)}">{_e(t.title, 200)}</a></li>' for t in section.tables)
        items.append(f'<li><a href="#{_e(section.key)}">{_e(section.title, 200)}</a>'
                     + (f"<ul>{tables}</ul>" if tables else "") + "</li>")
    return f'<nav class="toc"><h2>Contents</h2><ol>{"".join(items)}</ol></nav>'


def _histogram_svg(table: Table, chart: Chart) -> str:
    """Small multiples: per row, one bar per cell column, heights relative to the row's largest count."""
    bins = [table.columns[i].name for i in chart.cells]
    bar_w, gap, plot_h, label_h = 22, 4, 60, 16
    panel_w = len(bins) * (bar_w + gap) + 20
    per_line = max(1, 760 // panel_w)
    panels = []
    for k, row in enumerate(table.rows):
        counts = [row[i] if _finite(row[i]) else None for i in chart.cells]
        top = max((c for c in counts if c is not None), default=0) or 1
        ox, oy = (k % per_line) * panel_w, (k // per_line) * (plot_h + 3 * label_h)
        parts = [f'<text x="{ox}" y="{oy + 12}">{_e(row[chart.label], 32)}</text>']
        for b, (name, count) in enumerate(zip(bins, counts, strict=True)):
            x = ox + b * (bar_w + gap)
            base = oy + label_h + plot_h
            if count is not None:
                h = plot_h * count / top
                parts.append(f'<rect x="{x}" y="{base - h:.1f}" width="{bar_w}" height="{h:.1f}" fill="#1f77b4">'
                             f"<title>{_e(name)}: {int(count)}</title></rect>")
            parts.append(f'<text x="{x + bar_w / 2:.1f}" y="{base + 12}" text-anchor="middle">{_e(name, 6)}</text>')
        panels.append("".join(parts))
    lines = (len(table.rows) + per_line - 1) // per_line
    width, height = per_line * panel_w, lines * (plot_h + 3 * label_h)
    return (f'<svg width="{width}" height="{height}" role="img" aria-label="{_e(chart.title or table.title)}">'
            + "".join(panels) + "</svg>")


def _table_block(table: Table) -> str:
    chart = table.chart
    out = [f'<h3 id="{_e(table.key)}">{_e(table.title, 200)}</h3>']
    if chart is not None and chart.kind == "interval" and table.rows:
        out.append(_forest_svg(table, chart))
    if chart is not None and chart.kind == "histogram" and table.rows:
        out.append(_histogram_svg(table, chart))
    out.append(_table_html(table, chart if chart is not None and chart.kind == "heat" else None))
    out += [f'<p class="note">{_e(note, 2000)}</p>' for note in table.notes]
    return "\n".join(out)


def render_html(report: Report) -> str:
    """The report as one HTML document with no external resources."""
    meta = "".join(f"<li><b>{_e(k)}</b>: {_e(v, 300)}</li>" for k, v in report.meta)
    body = [f"<h1>{_e(report.title, 200)}</h1>", f'<ul class="meta">{meta}</ul>']
    body += [f'<p class="note">{_e(note, 2000)}</p>' for note in report.notes]
    for k, section in enumerate(report.sections):
        if k == 1 or (k == 0 and section.key != "summary"):
            body.append(_toc(report))  # after the summary: what a lead must know comes first
        body.append(f'<h2 id="{_e(section.key)}">{_e(section.title, 200)}</h2>')
        if section.lines:
            body.append('<ul class="summary">' + "".join(f"<li>{_e(line, 4000)}</li>" for line in section.lines)
                        + "</ul>")
        body += [f'<p class="note">{_e(note, 2000)}</p>' for note in section.notes]
        body += [_table_block(table) for table in section.tables]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(report.title, 200)}</title><style>{_CSS}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
