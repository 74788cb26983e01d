"""One entry point for every output format of a `Report`."""

from __future__ import annotations

from annotate.report.model import Report

__all__ = ["FORMATS", "render"]

FORMATS = ("text", "md", "html", "json")


def render(report: Report, fmt: str, width: int = 120) -> str:
    """The report as a string in ``fmt`` (``text`` is plain text without escape sequences)."""
    if fmt == "text":
        from annotate.report.render_text import render_plain

        return render_plain(report, width=width)
    if fmt == "md":
        from annotate.report.render_md import render_md

        return render_md(report)
    if fmt == "html":
        from annotate.report.render_html import render_html

        return render_html(report)
    if fmt == "json":
        from annotate.report.render_json import render_json

        return render_json(report)
    raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
