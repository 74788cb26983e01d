"""The report on graded and per-aspect sessions, checked against values computed another way:
Krippendorff's alpha by the `krippendorff` package, battles and shares counted by hand, and the
item bootstrap redone with an explicit loop over the same resamples."""

from __future__ import annotations

import random
from pathlib import Path

import krippendorff
import numpy as np
import pytest

from annotate.model import Assignment, Judgment, Timings
from annotate.report.build import build_report
from annotate.session import create_session, open_store
from tests.report.conftest import make_items

T = Timings("2024-01-01T00:00:00+00:00", 100, 5000, 5000)
GRADED = {  # slot space, from A's view; i1..i6
    "alice": ["+2", "-1", "+1", "0", "-2", "+1"],
    "bob": ["+1", "-2", "+2", "+1", "-1", "both_bad"],
    "carol": ["+2", "+1", "+1", "0", "-2", "+2"],
}


def _judge(store, name: str, item: str, position: int, label: str | None, scores: dict | None = None) -> None:
    [a] = store.add_assignments([Assignment(0, name, item, position, swapped=position % 2 == 0)])
    store.submit(Judgment(a.id, label, T, scores=scores or {}))


@pytest.fixture
def graded(tmp_path: Path):
    spec = create_session("g", "pairwise", seed=3, folder=tmp_path / "sessions", design="graded-5")
    store = open_store(spec)
    store.add_items(make_items())
    for name, labels in GRADED.items():
        for n, label in enumerate(labels):
            _judge(store, name, f"i{n + 1}", n, label)
    yield spec, store
    store.close()


def _alpha(rows: list[list[float | None]], level: str) -> float:
    data = np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))


def test_graded_agreement_is_ordinal_on_strengths_and_nominal_on_the_collapse(graded) -> None:
    spec, store = graded
    report = build_report(spec, store, n_boot=0)
    data = report.data
    assert data["session"]["level"] == "ordinal"
    strengths = [[None if v == "both_bad" else float(int(v)) for v in labels] for labels in GRADED.values()]
    assert data["agreement"]["overall"]["krippendorff_alpha"]["estimate"] == pytest.approx(
        _alpha(strengths, "ordinal"))
    assert data["agreement"]["overall"]["krippendorff_alpha"]["n_pairable"] == 17  # both bad left out
    code = {"A": 0.0, "B": 1.0, "tie": 2.0, "both_bad": 3.0}
    collapse = {"+2": "A", "+1": "A", "0": "tie", "-1": "B", "-2": "B", "both_bad": "both_bad"}
    prefs = [[code[collapse[v]] for v in labels] for labels in GRADED.values()]
    collapsed = data["agreement"]["collapsed"]
    assert collapsed["krippendorff_alpha"]["estimate"] == pytest.approx(_alpha(prefs, "nominal"))
    assert "0 (about the same) -> tie" in collapsed["rule"]
    text = "\n".join(n for s in report.sections for n in s.notes)
    assert "collapses to" in text and "both bad stays both bad" in text


def test_graded_ranking_counts_collapsed_battles(graded) -> None:
    spec, store = graded
    models = {m["model"]: m for m in build_report(spec, store, n_boot=0).data["ranking"]["overall"]["models"]}
    flat = [v for labels in GRADED.values() for v in labels]
    a_wins = sum(1 for v in flat if v.startswith("+"))
    b_wins = sum(1 for v in flat if v.startswith("-"))
    ties = len(flat) - a_wins - b_wins  # 0 and both bad
    assert (models["m-a"]["wins"], models["m-a"]["losses"], models["m-a"]["ties"]) == (a_wins, b_wins, ties)


def test_graded_position_bias_reads_the_collapsed_side(graded) -> None:
    spec, store = graded
    position = build_report(spec, store, n_boot=0).data["biases"]["position"]["overall"]
    left = n = 0
    for labels in GRADED.values():
        for pos, v in enumerate(labels):
            if v in ("0", "both_bad"):
                continue
            swapped = pos % 2 == 0
            a_better = v.startswith("+")
            left += a_better != swapped
            n += 1
    assert (position["k"], position["n"]) == (left, n)


def test_labels_outside_the_graded_scale_are_excluded(graded) -> None:
    spec, store = graded
    _judge(store, "dora", "i1", 0, "A")  # a four-outcome label in a graded session
    _judge(store, "dora", "i2", 1, "+3")
    assert build_report(spec, store, n_boot=0).data["session"]["excluded"]["unknown_labels"] == 2


@pytest.fixture
def aspects(tmp_path: Path):
    spec = create_session("asp", "pairwise", seed=5, folder=tmp_path / "sessions", design="aspects")
    store = open_store(spec)
    items = make_items([f"i{n}" for n in range(1, 13)], categories=["c"] * 12)
    store.add_items(items)
    rng = random.Random(4)
    answers = {}
    for name in ("alice", "bob", "carol"):
        for n in range(12):
            scores = {"correctness": rng.choice(["A", "B", "tie"]), "helpfulness": rng.choice(["A", "B"]),
                      "safety": rng.choice(["A", "tie"]), "overall": rng.choice(["+2", "+1", "0", "-1", "-2"])}
            answers[name, f"i{n + 1}"] = scores
            _judge(store, name, f"i{n + 1}", n, scores["overall"], scores)
    yield spec, store, answers
    store.close()


def test_aspects_disagreement_with_overall_and_its_item_bootstrap(aspects) -> None:
    spec, store, answers = aspects
    n_boot, seed = 300, 9
    per = {e["aspect"]: e for e in build_report(spec, store, n_boot=n_boot, seed=seed).data["aspects"]["per_aspect"]}
    collapse = {"+2": "A", "+1": "A", "0": "tie", "-1": "B", "-2": "B"}
    items = [f"i{n}" for n in range(1, 13)]
    for aspect in ("correctness", "helpfulness", "safety"):
        got = per[aspect]["disagreement"]
        differ = {item: [answers[r, item][aspect] != collapse[answers[r, item]["overall"]]
                         for r in ("alice", "bob", "carol")] for item in items}
        k = sum(sum(v) for v in differ.values())
        assert got["differs"]["estimate"] == pytest.approx(k / 36)
        assert got["n_judgments"] == 36 and got["n_items"] == 12
        # the same resamples of items, the statistic recomputed by a plain loop
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, 12, size=(n_boot, 12))
        shares = [sum(sum(differ[items[i]]) for i in row) / (3 * len(row)) for row in idx]
        lo, hi = np.quantile(shares, [0.025, 0.975])
        assert got["differs"]["ci"] == pytest.approx([lo, hi])
    assert per["overall"]["disagreement"] is None


def test_aspects_agreement_per_aspect_matches_krippendorff(aspects) -> None:
    spec, store, answers = aspects
    per = {e["aspect"]: e for e in build_report(spec, store, n_boot=0).data["aspects"]["per_aspect"]}
    code = {"A": 0.0, "B": 1.0, "tie": 2.0, "both_bad": 3.0}
    items = [f"i{n}" for n in range(1, 13)]
    for aspect in ("correctness", "helpfulness"):
        rows = [[code[answers[r, i][aspect]] for i in items] for r in ("alice", "bob", "carol")]
        assert per[aspect]["agreement"]["krippendorff_alpha"]["estimate"] == pytest.approx(_alpha(rows, "nominal"))
    rows = [[float(int(answers[r, i]["overall"])) for i in items] for r in ("alice", "bob", "carol")]
    assert per["overall"]["level"] == "ordinal"
    assert per["overall"]["agreement"]["krippendorff_alpha"]["estimate"] == pytest.approx(_alpha(rows, "ordinal"))


def test_aspects_position_bias_per_aspect_in_slot_space(aspects) -> None:
    spec, store, answers = aspects
    per = {e["aspect"]: e for e in build_report(spec, store, n_boot=0).data["aspects"]["per_aspect"]}
    left = n = 0
    for (_rater, item), scores in answers.items():
        label = scores["helpfulness"]
        swapped = (int(item[1:]) - 1) % 2 == 0
        left += (label == "A") != swapped
        n += 1
    assert (per["helpfulness"]["position"]["overall"]["k"], per["helpfulness"]["position"]["overall"]["n"]) == (left, n)
