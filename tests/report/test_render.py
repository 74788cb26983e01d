"""Every report format on hostile names, and `annotate report` through the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from annotate.cli import main
from annotate.report.build import build_report
from annotate.report.model import Column, Report, Section, Table
from annotate.report.render import render
from annotate.report.render_md import md_text
from annotate.report.text import clean
from annotate.session import create_session, open_store

from .conftest import make_items, populate

OSC52 = "\x1b]52;c;aGVsbG8=\x07"
OSC8 = "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\"
CSI = "\x1b[2J\x1b[31m"
HOSTILE = [
    "<script>alert(1)</script>",
    f"bob{OSC52}",
    f"[bold red]markup[/] {OSC8}",
    f"rtl\u202eevil\u202c \u200bzero\u2060width {CSI}",
    "\x9b31mC1\x85 \x07bell\x00nul",
    "emoji 👩‍🔬🎉 CJK 漢字 RTL עברית العربية",
]
BIG = "x" * 1_000_000


@pytest.fixture
def hostile(project: Path):
    spec = create_session("evil", "pairwise", seed=3, folder=project / "sessions")
    ids = [f"item {HOSTILE[n % len(HOSTILE)]} {n}" for n in range(6)]
    categories = [HOSTILE[0], HOSTILE[1], BIG, HOSTILE[3], HOSTILE[4], HOSTILE[5]]
    items = make_items(ids, models=(f"model {HOSTILE[0]}", f"model {OSC52} {BIG}"), categories=categories)
    experts = {HOSTILE[0]: ["A", "B", "A", "tie", "B", "A"], HOSTILE[1]: ["A", "B", "A", "A", "B", "both_bad"],
               HOSTILE[3]: ["A", "A", "A", "tie", "B", "A"]}
    crowd = {HOSTILE[2]: ["A", "B", "A", "A"], BIG: ["A", "B", "B", "A"]}
    llm = {HOSTILE[5]: ["A", "B", "A", "tie", "B", "A"], HOSTILE[4]: ["B", "B", "A", "tie", "B", "A"]}
    with open_store(spec) as store:
        populate(store, items, experts, crowd, llm)
        yield spec, store


def _no_controls(text: str) -> None:
    assert "\x1b" not in text
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200b\u2060]", text)


@pytest.mark.parametrize("fmt", ["text", "md", "html"])
def test_hostile_names_render_inert(hostile, fmt: str) -> None:
    spec, store = hostile
    out = render(build_report(spec, store, n_boot=20), fmt)
    _no_controls(out)
    visible = "␛\\]52;c;aGVsbG8=␇" if fmt == "md" else "␛]52;c;aGVsbG8=␇"
    assert visible in out  # shown, not acted on
    assert len(out) < 2_000_000 // 2  # a 1 MB name is cut, not repeated in every table
    if fmt == "html":
        assert "<script" not in out
        assert "&lt;script&gt;" in out
        assert not re.search(r"(src|href)\s*=\s*[\"']?\s*https?:", out)
        assert "<link" not in out and "@import" not in out
    if fmt == "md":
        assert "<script" not in out
        assert "&lt;script&gt;" in out
    if fmt == "text":
        assert "[bold red]markup[/]" in out  # shown literally, not interpreted


def test_hostile_names_round_trip_through_json(hostile) -> None:
    spec, store = hostile
    out = render(build_report(spec, store, n_boot=20), "json")
    assert out.isascii()
    _no_controls(out)
    data = json.loads(out)
    raters = {r["rater"] for r in data["agreement"]["per_annotator"]}
    assert HOSTILE[1] in raters and BIG in raters
    models = {m["model"] for m in data["ranking"]["overall"]["models"]}
    assert f"model {OSC52} {BIG}" in models


def test_html_has_no_external_resources(session) -> None:
    spec, store = session
    out = render(build_report(spec, store, n_boot=20), "html")
    assert "<script" not in out
    assert "http" not in out
    assert "<svg" in out and "<circle" in out and "<rect" in out  # ranking forest plot, rater bars
    assert "rgba(" in out  # the cohort confusion heat table


def test_clean_and_md_text() -> None:
    assert clean("a\x1b[2Jb") == "a␛[2Jb"
    assert clean("z\u200bw") == "z⟨U+200B⟩w"
    assert clean("y" * 500, limit=10).startswith("y" * 10 + "…")
    assert md_text("a|b") == "a\\|b"
    assert "<" not in md_text("<img src=x onerror=alert(1)>")
    assert "](" not in md_text("[x](javascript:alert(1))").replace("\\](", "")


def test_cells_never_parsed_as_rich_markup() -> None:
    table = Table("t", "[red]title", (Column("[b]name"), Column("n", "int")), (("[link=http://x]y[/link]", 3),))
    report = Report("[blink]r", (("k", "[i]v"),), (Section("s", "[u]S", (table,)),))
    out = render(report, "text")
    assert "[red]title" in out and "[link=http://x]y[/link]" in out and "[blink]r" in out


def test_report_cli_every_format(session, project: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["report", "rep", "--bootstrap", "50"])
    assert result.exit_code == 0, result.output
    assert "RANKING" in result.output and "m-a" in result.output
    result = runner.invoke(main, ["report", "rep", "--format", "json", "--bootstrap", "50"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["ranking"]["overall"]["n_battles"] == 26  # human votes
    for fmt, name in (("html", "r.html"), ("md", "r.md"), ("text", "r.txt"), ("json", "r.json")):
        result = runner.invoke(main, ["report", "rep", "--format", fmt, "-o", name, "--bootstrap", "20"])
        assert result.exit_code == 0, result.output
        written = (project / name).read_text(encoding="utf-8")
        assert written and "\x1b" not in written
    result = runner.invoke(main, ["report", "nope"])
    assert result.exit_code != 0 and "nope" in result.output


def test_report_is_seeded(session) -> None:
    spec, store = session
    first = render(build_report(spec, store, n_boot=100, seed=5), "json")
    assert first == render(build_report(spec, store, n_boot=100, seed=5), "json")
