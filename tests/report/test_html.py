"""The HTML report: summary first, a table of contents with anchors, readable chart axes, whole names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from annotate.report.build import build_report
from annotate.report.render import render
from annotate.report.render_html import nice_ticks, text_width, tick_label
from annotate.session import create_session, open_store

from .conftest import judge, make_items, populate

LONG_MODEL = "meta-llama-3.1-405b-instruct-turbo-2024-07-23-with-a-very-long-suffix"


@pytest.fixture
def html(project: Path) -> tuple[str, object]:
    spec = create_session("rep", "pairwise", seed=11, folder=project / "sessions")
    with open_store(spec) as store:
        populate(store, items=make_items(models=(LONG_MODEL, "gpt-4o-mini")))
        judge(store, "alice", "i1", "B", True, 6000, 6, purpose="repeat")
        report = build_report(spec, store, n_boot=100, seed=1)
    return render(report, "html"), report


def test_summary_comes_first_then_a_table_of_contents(html) -> None:
    text, report = html
    assert report.sections[0].key == "summary"
    summary, toc = text.index('<h2 id="summary">'), text.index('<nav class="toc">')
    assert summary < toc < text.index('<h2 id="agreement">')
    nav = text[toc:text.index("</nav>")]
    for section in report.sections:
        assert f'href="#{section.key}"' in nav and f'id="{section.key}"' in text
        for table in section.tables:
            assert f'href="#{table.key}"' in nav and f'id="{table.key}"' in text


def test_chart_ticks_are_written_in_full(html) -> None:
    text, _ = html
    svg_text = re.findall(r"<svg.*?</svg>", text, re.S)
    assert svg_text
    ticks = [t for svg in svg_text for t in re.findall(r'text-anchor="middle">([^<]*)</text>', svg)]
    assert ticks and not any(re.search(r"\d[eE][+-]?\d", t) for t in ticks)
    assert "1,000" in ticks  # ratings on the Elo-like scale, with a thousands separator


def test_model_names_are_never_clipped(html) -> None:
    text, _ = html
    ranking = text[text.index('id="ranking_overall"'):]
    svg = re.search(r"<svg width=\"(\d+)\".*?</svg>", ranking, re.S)
    assert svg is not None
    labels = re.findall(r'<text x="(\d+)" y="[\d.]+" text-anchor="end">([^<]*)</text>', svg.group(0))
    names = {name: int(x) for x, name in labels}
    assert LONG_MODEL in names  # whole, not cut with an ellipsis
    assert names[LONG_MODEL] >= text_width(LONG_MODEL)  # the label ends at x and has room for its width


@pytest.mark.parametrize(("low", "high", "expected"), [
    (850, 1250, ["900", "1,000", "1,100", "1,200"]),
    (-1, 1, ["-1.0", "-0.5", "0", "0.5", "1.0"]),
    (0, 1, ["0", "0.25", "0.50", "0.75", "1.00"]),
    (1190, 1210, ["1,190", "1,195", "1,200", "1,205", "1,210"]),
    (0, 0.003, ["0", "0.001", "0.002", "0.003"]),
])
def test_nice_ticks(low: float, high: float, expected: list[str]) -> None:
    ticks, step = nice_ticks(low, high)
    assert [tick_label(t, step) for t in ticks] == expected
    assert all(low <= t <= high for t in ticks)
