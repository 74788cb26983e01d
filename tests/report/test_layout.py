"""How the report reads: on narrow and wide terminals, in files, in Markdown; intervals in the unit
of their estimate; no duplicated notes or headings; an empty session; per-cohort rater pairs."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from rich.console import Console

from annotate.analysis.estimate import Estimate
from annotate.cli import main
from annotate.report.build import build_report
from annotate.report.model import NUMERIC_KINDS, Report, format_cell
from annotate.report.render import render
from annotate.report.render_text import render_to_console, wrap_prose
from annotate.report.text import clean
from annotate.session import create_session, open_store

from .conftest import EXPERT, judge, make_items, populate

LONG = {  # rater names long enough that a wide table cannot fit 80 columns
    "expert-annotator-alice-0001": EXPERT["alice"],
    "expert-annotator-bob-0002": EXPERT["bob"],
    "expert-annotator-carol-0003": EXPERT["carol"],
}


@pytest.fixture
def long_names(project: Path):
    spec = create_session("wide", "pairwise", seed=4, folder=project / "sessions")
    with open_store(spec) as store:
        populate(store, experts=LONG, crowd={"crowd-worker-0001": ["A", "B", "A", "A"],
                                             "crowd-worker-0002": ["A", "B", "B", "A"]})
        yield spec, store


def console_text(report: Report, width: int) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False, highlight=False,
                      emoji=False)
    render_to_console(report, console)
    return buffer.getvalue()


def cells_whole(report: Report, text: str) -> None:
    """Every row label and every number of every table is in the text whole, on one line."""
    for section in report.sections:
        for table in section.tables:
            for row in table.rows:
                for value, column in zip(row, table.columns, strict=True):
                    cell = clean(format_cell(value, column.kind))
                    if cell == "–":
                        continue
                    if column.kind in NUMERIC_KINDS:
                        assert re.search(rf"(?<![\w.\[]){re.escape(cell)}(?![\w.])", text), (table.title, cell)
                    elif column is table.columns[0] or column.name in ("rater", "cohort", "category", "raters x",
                                                                        "raters y", "rater a", "rater b", "model"):
                        assert cell in text, (table.title, column.name, cell)


@pytest.mark.parametrize("width", [80, 200])
def test_every_label_and_number_is_whole_at_any_width(long_names, width: int) -> None:
    spec, store = long_names
    report = build_report(spec, store, n_boot=50)
    text = console_text(report, width)
    assert max(len(line) for line in text.splitlines()) <= width
    assert "…" not in text  # nothing cut with an ellipsis
    cells_whole(report, text)
    for name in LONG:
        assert name in text  # a rater name never wraps
    if width == 80:  # the wide tables become records that still say what each row is
        assert "cohort: expert" in text and "rater: expert-annotator-alice-0001, cohort: expert" in text
        assert "raters x: human, raters y: human" in text
        assert "judge: " in text and "against: human majority" in text
        assert "category: chat" in text
    else:
        header = next(line for line in text.splitlines() if line.startswith("cohort "))
        assert "reading" in header and "pairable" in header


def test_mt_bench_tables_show_the_items_column(session, project: Path) -> None:
    """The last column of the MT-Bench tables was cut (`pairs w/o ties   ite`) at every width."""
    spec, store = session
    report = build_report(spec, store, n_boot=50)
    texts = {width: console_text(report, width) for width in (80, 120, 200)}
    result = CliRunner().invoke(main, ["report", "rep", "-o", "r.txt", "--bootstrap", "50"])
    assert result.exit_code == 0, result.output
    texts["file"] = (project / "r.txt").read_text(encoding="utf-8")
    pair_rows = [r for s in report.sections for t in s.tables if t.key in ("pairwise_types", "pairwise_majority")
                 for r in t.rows]
    for key, text in texts.items():
        part = text[text.index("Agreement between human raters"):text.index("Confusion matrix: expert")]
        assert re.search(r"(?m)(^|\s)items(:|\s*$)", part), key
        assert " ite\n" not in part
        for row in pair_rows:
            assert re.search(rf"(\bitems: {row[-1]}\b|\s{row[-1]}\s*$)", part, re.M), (key, row)
        if key in (120, 200, "file"):  # wide enough for the table itself (headers may wrap between words)
            lines = part.splitlines()
            rule = next(k for k, line in enumerate(lines) if line.startswith("───"))
            header_words = " ".join(lines[1:rule]).split()
            assert "items" in header_words and "raters" in header_words, key


def test_prose_never_breaks_an_interval() -> None:
    text = "Rubber-stamp rate under upfront: 71.9 % of wrong suggestions accepted [48.0, 94.1] % (n = 32)"
    for width in range(30, 90):
        lines = wrap_prose(text, width)
        assert all(len(line) <= width for line in lines)
        joined = "\n".join(lines)
        assert "[48.0, 94.1] %" in joined and "71.9 %" in joined


def test_percentages_carry_intervals_in_percent(session) -> None:
    spec, store = session
    report = build_report(spec, store, n_boot=50)
    data = report.data
    text = render(report, "text", width=200)
    md = render(report, "md")
    position = data["biases"]["position"]["overall"]
    gold = data["quality"]["gold"][0]
    for share in (position, gold):
        lo, hi = share["ci"]
        expected = f"[{100 * lo:.1f}, {100 * hi:.1f}] %"
        assert expected in text and expected in md
        assert f"[{lo:.3f}, {hi:.3f}]" not in text
    assert f"{100 * position['share']:.1f} %" in text


def test_krippendorff_note_once_per_section_and_no_duplicate_heading(session, tmp_path: Path) -> None:
    spec, store = session
    text = render(build_report(spec, store, n_boot=20), "text", width=200)
    agreement = text[text.index("AGREEMENT"):text.index("PAIRWISE AGREEMENT")]
    assert agreement.count("Krippendorff 2004") == 1
    path = tmp_path / "r.csv"
    path.write_text("unit,rater,label\n" + "".join(f"u{n},{r},{'AB'[(n + k) % 2 if n < 3 else 0]}\n"
                                                   for n in range(6) for k, r in enumerate("xyz")))
    result = CliRunner().invoke(main, ["agreement", str(path), "--bootstrap", "20"])
    assert result.exit_code == 0, result.output
    lines = [line.strip() for line in result.output.splitlines() if line.strip()]
    heading = lines.index("AGREEMENT")
    assert "Agreement" not in lines[heading + 1: heading + 3]
    assert result.output.count("Krippendorff 2004") == 1
    assert "on 6 units" in result.output and "3 raters" in result.output


def test_markdown_leaves_our_numbers_alone(session) -> None:
    spec, store = session
    report = build_report(spec, store, n_boot=50)
    md = render(report, "md")
    alpha = report.data["agreement"]["overall"]["krippendorff_alpha"]
    lo, hi = alpha["ci"]
    assert f"| {alpha['estimate']:.3f} | [{lo:.3f}, {hi:.3f}] |" in md
    assert not re.search(r"\d\\\.\d", md)  # no 0\.591
    assert "\\[" not in md.replace("\\[bold", "")  # no \[0.531, 0.654\]


def test_plurals(session) -> None:
    spec, store = session
    text = render(build_report(spec, store, n_boot=0), "text", width=200)
    assert "1 repeat or attention check (agreement" in text  # alice's one repeat
    assert not re.search(r"\b1 (units|items|raters|votes|judgments|battles|pairs)\b", text)


def test_an_empty_session_says_so_in_one_line(pairwise_spec, store) -> None:
    report = build_report(pairwise_spec, store, n_boot=10)
    for fmt in ("text", "md", "html"):
        out = render(report, fmt)
        assert "No votes yet: import labels or annotate first." in out
        assert "(no data)" not in out and "RANKING" not in out and "Ranking" not in out
    assert len(render(report, "text").splitlines()) < 12
    data = json.loads(render(report, "json"))
    assert set(data) == {"report_version", "session", "summary", "agreement", "judges", "pairwise", "biases",
                         "quality", "ranking", "rankings", "grades", "aspects",
                         "style_control", "judge_trust", "competence", "flags", "spans", "training"}
    assert data["agreement"]["per_cohort"] == [] and data["ranking"]["overall"]["models"] == []
    assert all(row["n_items"] == 0 for row in data["pairwise"]["type_agreement"])


def test_anchoring_headline_explains_interval_against_p_value() -> None:
    from annotate.report.suggestions import _headline

    def est(value: float, lo: float, hi: float, n: int = 20) -> Estimate:
        return Estimate(value, lo, hi, n, 4, n)

    conditions = (SimpleNamespace(condition="none", over_reliance=est(0.1, 0.0, 0.3)),
                  SimpleNamespace(condition="upfront", over_reliance=est(0.55, 0.2, 0.9)))
    effect = SimpleNamespace(mode="upfront", delta=est(0.455, -0.015, 0.847), p_value=0.003)
    lines = _headline(SimpleNamespace(conditions=conditions, effects=(effect,)))
    assert "Δ = +0.455 [-0.015, +0.847], randomization p = 0.003" in lines[0]
    assert "conservative" in lines[0]
    assert "can include 0 while the randomization test rejects" in lines[-1]
    clear = SimpleNamespace(mode="upfront", delta=est(0.455, 0.1, 0.8), p_value=0.003)
    lines = _headline(SimpleNamespace(conditions=conditions, effects=(clear,)))
    assert "conservative" not in lines[0] and "conservative" in lines[-1]



def test_anchoring_headline_without_a_baseline_says_not_enough_data_not_nan() -> None:
    from annotate.report.suggestions import _headline

    nan = float("nan")
    shown = Estimate(0.55, 0.2, 0.9, 20, 4, 20)
    no_wrong = Estimate(nan, nan, nan, 0, 0, 0)
    effect = SimpleNamespace(mode="upfront", delta=Estimate(nan, nan, nan, 0, 0, 0), p_value=nan)
    for conditions in ((SimpleNamespace(condition="none", over_reliance=no_wrong),
                        SimpleNamespace(condition="upfront", over_reliance=shown)),
                       (SimpleNamespace(condition="upfront", over_reliance=shown),)):
        (line, *_rest) = _headline(SimpleNamespace(conditions=conditions, effects=(effect,)))
        assert "nan" not in line
        assert "anchoring effect Δ: not enough data (n = 0 wrong suggestions in none: Δ needs" in line


def test_expert_pairs_are_shown_per_cohort(project: Path) -> None:
    """Twelve experts (66 pairs) and twelve crowd workers on the same items: the expert pairs are listed
    in text and HTML, not only in the JSON, and what is listed is what docs/reports.md says."""
    spec = create_session("big", "pairwise", seed=2, folder=project / "sessions")
    ids = [f"i{n}" for n in range(8)]
    experts = {f"exp{k:02d}": ["AB"[(n * k) % 2] for n in range(8)] for k in range(12)}
    crowd = {f"crowd{k:02d}": ["AB"[(n + k) % 3 % 2] for n in range(8)] for k in range(12)}
    with open_store(spec) as store:
        store.add_items(make_items(ids, categories=["c"] * 8))
        for name, labels in experts.items():
            for n, label in enumerate(labels):
                judge(store, name, ids[n], label, False, 5000, n)
        from annotate.model import ExternalLabel

        store.add_external_labels([ExternalLabel("crowd.csv", r, "crowd", ids[n], lab, raw=lab)
                                   for r, labels in crowd.items() for n, lab in enumerate(labels)])
        report = build_report(spec, store, n_boot=0)
    tables = {t.key: t for s in report.sections for t in s.tables}
    assert len(tables["agreement_overall_cohen"].rows) == 45 == len(report.data["agreement"]["overall"]["cohen_kappa"])
    assert len(tables["agreement_expert_cohen"].rows) == 45
    assert len(tables["agreement_crowd_cohen"].rows) == 10
    per_cohort = {c["cohort"]: c for c in report.data["agreement"]["per_cohort"]}
    assert len(per_cohort["expert"]["cohen_kappa"]) == 45 and len(per_cohort["crowd"]["cohen_kappa"]) == 10
    text = render(report, "text", width=200)
    html = render(report, "html")
    for out in (text, html):
        assert "Cohen&#x27;s kappa per rater pair: expert cohort" in out or \
            "Cohen's kappa per rater pair: expert cohort" in out
        assert "exp00" in out and "exp11" in out
    assert "in the JSON report" not in text  # what is computed is listed
    assert "of the 66 pairs of raters who share a unit" in text
    documented = (Path(__file__).resolve().parents[2] / "docs" / "reports.md").read_text(encoding="utf-8")
    assert "at most 45 pairs" in documented and "at most 10 within" in documented
