"""The summary that opens every report, --pool-llm and --majority."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest
from click.testing import CliRunner

from annotate.cli import main
from annotate.model import Assignment, Item, Judgment, Message, Response, Timings
from annotate.report.build import build_report
from annotate.report.render import render
from annotate.session import create_session, open_store

N_ITEMS = 12


def items() -> list[Item]:
    return [Item(id=f"g{n}", kind="pairwise", conversation=(Message("user", f"q{n}"),),
                 responses=(Response("A", "a longer answer here", f"model-{n % 3}"),
                            Response("B", "short", f"model-{(n + 1) % 3}")), gold="A" if n % 2 else "B")
            for n in range(N_ITEMS)]


def submit(store, name: str, item: str, label: str, swapped: bool, active_ms: int, position: int,
           purpose: str = "main") -> None:
    [a] = store.add_assignments([Assignment(0, name, item, position, swapped=swapped, purpose=purpose)])
    store.submit(Judgment(a.id, label, Timings("2024-01-01T00:00:00+00:00", 100, active_ms + 200, active_ms)))


@pytest.fixture
def flagged(project: Path):
    """ann, bob, cat and dan answer gold right; sloppy answers it wrong and fast; lefty always picks the left side
    (gold is on the left half the time, so half of lefty's answers are wrong); sloppy fails an attention check."""
    spec = create_session("flags", "pairwise", seed=4, folder=project / "sessions")
    with open_store(spec) as store:
        store.add_items(items())
        store.add_items([Item(id="att", kind="pairwise", conversation=(Message("user", "answer A"),),
                              responses=(Response("A", "x"), Response("B", "y")), gold="A",
                              metadata={"attention": True})])
        for n, item in enumerate(items()):
            gold, wrong = item.gold, "B" if item.gold == "A" else "A"
            swapped = (n // 2) % 2 == 0  # TT FF TT ...: independent of gold (B A B A ...)
            for k, good in enumerate(("ann", "bob", "cat", "dan")):
                submit(store, good, item.id, gold, swapped if k % 2 else not swapped, 8000 + 500 * k, n)
            submit(store, "sloppy", item.id, wrong, swapped, 1500, n)
            submit(store, "lefty", item.id, "B" if swapped else "A", swapped, 6000, n)  # Left is B when swapped
        submit(store, "sloppy", "att", "B", False, 1500, N_ITEMS, purpose="attention")
        yield spec, store


def test_flagged_annotators_and_why(flagged) -> None:
    spec, store = flagged
    report = build_report(spec, store, n_boot=100, seed=1)
    summary = report.data["summary"]
    reasons = {f["rater"]: {r["check"] for r in f["reasons"]} for f in summary["flagged"]}
    assert reasons["sloppy"] >= {"gold", "attention", "fast", "agreement"}
    assert "position" in reasons["lefty"]
    assert not {"ann", "bob", "cat", "dan"} & set(reasons)
    text = render(report, "text", width=200)
    head = " ".join(text[text.index("SUMMARY"):text.index("AGREEMENT")].split())
    assert "Flagged: 2 annotators: lefty (" in head and "sloppy (gold accuracy 0.0 % (0 of 12)" in head
    assert "failed 1 of 1 attention check" in head
    assert "after Holm" in head
    significant = {(b["kind"], b["who"]) for b in summary["significant_biases"]}
    assert ("position", "lefty") in significant


def test_summary_opens_every_format(flagged) -> None:
    spec, store = flagged
    report = build_report(spec, store, n_boot=50, seed=1)
    for fmt in ("text", "md", "html"):
        out = render(report, fmt)
        first = min(out.index(word) for word in ("AGREEMENT", "## Agreement", '<h2 id="agreement">') if word in out)
        summary = out.index("SUMMARY") if fmt == "text" else out.index("Summary")
        assert summary < first, fmt
        assert "Agreement among human raters: Krippendorff" in out[summary:first]
        assert "Dropped:" in out[summary:first] or "Nothing was dropped" in out[summary:first]
    data = json.loads(render(report, "json"))
    assert list(data)[:3] == ["report_version", "session", "summary"]
    assert data["summary"]["thresholds"]["alpha_reliable"] == 0.8 and data["summary"]["lines"]


def test_ranking_stability_names_overlapping_neighbours(flagged) -> None:
    spec, store = flagged
    data = build_report(spec, store, n_boot=200, seed=1).data
    ranking = data["summary"]["ranking"]
    models = data["ranking"]["overall"]["models"]
    expected = [[a["model"], b["model"]] for a, b in pairwise(models)
                if a["ci"][0] <= b["ci"][1] and b["ci"][0] <= a["ci"][1]]
    assert ranking["overlapping_adjacent"] == expected
    line = next(x for x in data["summary"]["lines"] if x.startswith("Ranking"))
    assert f"{len(expected)} of 2 adjacent pairs" in line or (not expected and "every pair of adjacent" in line)


def test_pool_llm_is_labelled(session) -> None:
    spec, store = session
    default = build_report(spec, store, n_boot=0)
    pooled = build_report(spec, store, n_boot=0, pool_llm=True)
    assert default.data["agreement"]["overall_raters"] == "human"
    assert pooled.data["agreement"]["overall_raters"] == "all"
    assert pooled.data["ranking"]["overall"]["n_battles"] == 32  # 26 human votes + 6 of the LLM judge
    assert pooled.data["agreement"]["overall"]["krippendorff_alpha"]["n_raters"] == 6
    text = render(pooled, "text", width=200)
    assert "All raters, LLM judges pooled with humans (--pool-llm)" in text
    assert "pooled with the human raters in the headline figures (--pool-llm)" in text


def test_majority_rule_option(session) -> None:
    spec, store = session
    plurality = build_report(spec, store, n_boot=0).data
    mean = build_report(spec, store, n_boot=0, majority="mean").data
    # crowd on i3: c1 A, c2 B: tied under plurality (dropped), a tie (score 0) under the mean rule
    [p] = plurality["pairwise"]["majority"]
    [m] = mean["pairwise"]["majority"]
    assert (p["n_items"], p["n_items_tied"], p["rule"]) == (3, 1, "plurality")
    assert (m["n_items"], m["n_items_tied"], m["rule"]) == (4, 0, "mean")
    assert mean["session"]["majority_rule"] == "mean"
    text = render(build_report(spec, store, n_boot=0, majority="mean"), "text", width=200)
    assert "majority rule: mean" in text and "sign of the mean score" in text
    with pytest.raises(ValueError, match="majority rule"):
        build_report(spec, store, n_boot=0, majority="median")


def test_report_cli_options(session) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["report", "rep", "--format", "json", "--bootstrap", "0", "--majority", "mean",
                                  "--pool-llm", "--mtbench-human", "expert,author"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["session"]["majority_rule"] == "mean" and data["session"]["pool_llm"] is True
    assert data["session"]["mtbench_human"] == ["expert", "author"]
    bad = runner.invoke(main, ["report", "rep", "--mtbench-human", "robots"])
    assert bad.exit_code != 0 and "--mtbench-human" in bad.output
