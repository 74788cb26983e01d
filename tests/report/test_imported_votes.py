"""The report on imported votes: position bias of judges whose display order is known, labels
mapped to invalid, and the items with an empty response."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotate.analysis.bias import binomial_test, wilson_interval
from annotate.model import ExternalLabel, Item, Message, Response
from annotate.report.build import build_report
from annotate.report.render import render
from annotate.session import create_session, open_store

from .conftest import judge, populate


def _items(n: int) -> list[Item]:
    return [Item(f"q{k}", "pairwise", (Message("user", f"prompt {k}"),),
                 (Response("A", f"answer a{k}", "m-a"), Response("B", "" if k < 2 else f"answer b{k}", "m-b")))
            for k in range(n)]


@pytest.fixture
def report(project: Path):
    """gpt saw A first on q0-q9 and B first on q10-q11; it voted A on q0-q8, B on q9-q11 (picks of the
    first shown: 9 + 2 = 11 of 12). claude's order is unknown. A crowd rater's label is invalid."""
    spec = create_session("imp", "pairwise", seed=3, folder=project / "sessions")
    with open_store(spec) as store:
        store.add_items(_items(12))
        for n, label in enumerate(["A", "A", "B", "tie", "A", "B"]):
            judge(store, "alice", f"q{n}", label, swapped=n % 2 == 1, active_ms=5000, position=n)
        gpt = [ExternalLabel("judge.csv", "gpt", "llm", f"q{k}", "A" if k < 9 else "B", shown_first="A" if k < 10
                             else "B") for k in range(12)]
        claude = [ExternalLabel("judge.csv", "claude", "llm", f"q{k}", "B") for k in range(4)]
        invalid = [ExternalLabel("crowd.csv", "w1", "crowd", "q3", "invalid", raw="garbage")]
        store.add_external_labels(gpt + claude + invalid)
        built = build_report(spec, store, n_boot=50, seed=1)
    return built


def test_first_shown_bias_of_an_imported_judge(report) -> None:
    first = report.data["biases"]["first_shown"]
    gpt = next(r for r in first["per_rater"] if r["rater"] == "gpt")
    assert (gpt["k"], gpt["n"], gpt["n_excluded"]) == (11, 12, 0)
    assert gpt["share"] == pytest.approx(11 / 12)
    assert gpt["p_value"] == pytest.approx(26 / 4096, abs=1e-15)  # 2 * (C(12,11) + C(12,12)) / 2^12
    assert gpt["ci"] == pytest.approx(list(wilson_interval(11, 12)))
    assert binomial_test(11, 12) == pytest.approx(26 / 4096)
    assert [r["rater"] for r in first["per_rater"]] == ["gpt"]  # claude's order is unknown: not in the table
    assert report.data["biases"]["position"]["overall"]["n"] == 5  # alice's own judgments, unchanged
    text = render(report, "md")
    assert "Position bias of imported votes: share of the response shown first" in text
    assert "4 imported votes of unknown order left out" in text


def test_invalid_labels_are_counted_and_never_votes(report) -> None:
    session = report.data["session"]
    assert session["excluded"]["invalid"] == 1
    assert session["n_imported"] == 16  # gpt 12 + claude 4; the invalid one is not a vote
    assert "1 imported label mapped to invalid" in render(report, "md")


def test_items_with_an_empty_response_are_flagged_with_their_votes(report) -> None:
    empty = report.data["biases"]["empty_responses"]
    # q0 and q1 have an empty B; votes there: alice A, A; gpt A, A; claude B, B
    assert empty["items"] == [{"item": "q0", "slot": "B"}, {"item": "q1", "slot": "B"}]
    assert (empty["n_items"], empty["n_votes"], empty["for_empty"], empty["for_other"],
            empty["tie_or_both_bad"]) == (2, 6, 2, 4, 0)
    table = next(t for s in report.sections for t in s.tables if t.key == "empty_responses")
    assert [r[:3] for r in table.rows] == [("(2 items)", "", 6), ("q0", "B", 3), ("q1", "B", 3)]
    assert table.rows[1][3:] == (1, 2, 0)  # q0: claude for the empty B; alice and gpt for A
    assert "Items with an empty response" in render(report, "text")


def test_a_session_without_them_has_null_keys(project: Path) -> None:
    spec = create_session("plain", "pairwise", seed=3, folder=project / "sessions")
    with open_store(spec) as store:
        populate(store)
        data = build_report(spec, store, n_boot=0).data
    assert data["biases"]["first_shown"] is None and data["biases"]["empty_responses"] is None
    assert data["session"]["excluded"]["invalid"] == 0


def test_single_sessions_give_the_median_grade_on_empty_responses(project: Path) -> None:
    spec = create_session("grades", "single", seed=3, folder=project / "sessions")
    items = [Item(f"g{k}", "single", (Message("user", f"write {k}"),), (Response("A", "" if k == 0 else "text", "m"),))
             for k in range(3)]
    with open_store(spec) as store:
        store.add_items(items)
        store.add_external_labels([ExternalLabel("x.csv", r, "crowd", "g0", g) for r, g in (("u", "1"), ("v", "2"),
                                                                                             ("w", "6"))])
        store.add_external_labels([ExternalLabel("x.csv", "u", "crowd", "g1", "invalid", raw="n/a")])
        data = build_report(spec, store, n_boot=0).data
    assert (data["session"]["excluded"]["invalid"], data["session"]["excluded"]["unknown_labels"]) == (1, 0)
    empty = data["biases"]["empty_responses"]
    assert (empty["n_items"], empty["n_votes"], empty["median_grade"]) == (1, 3, 2.0)
    assert data["biases"]["position"] is None
