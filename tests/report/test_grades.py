"""The Grades section of single-grade and rubric reports, checked against values computed another
way: means with pandas, the item bootstrap redone with a plain loop over the same resamples,
correlations with numpy (Spearman as Pearson of pandas' average ranks), alpha with `krippendorff`."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest

from annotate.model import Assignment, Item, Judgment, Message, Response, Timings
from annotate.report.build import build_report
from annotate.report.render import render
from annotate.session import create_session, open_store

T = Timings("2024-01-01T00:00:00+00:00", 100, 5000, 5000)
RATERS = ("alice", "bob", "carol")
MODELS = ("m1", "m2", "m3")


def _items(n: int = 12) -> list[Item]:
    return [Item(f"s{k}", "single", (Message("user", f"question {k}"),),
                 (Response("A", "answer " * (k + 1), MODELS[k % 3]),),
                 category=("math", "chat")[k % 2], metadata={"turn": 1 + (k // 6)}) for k in range(n)]


@pytest.fixture
def single(tmp_path: Path):
    spec = create_session("sg", "single", seed=3, folder=tmp_path / "sessions")
    store = open_store(spec)
    store.add_items(_items())
    rng = random.Random(8)
    grades = {}
    for name in RATERS:
        for k in range(12):
            [a] = store.add_assignments([Assignment(0, name, f"s{k}", k)])
            grade = rng.randint(1, 10)
            grades[name, f"s{k}"] = grade
            store.submit(Judgment(a.id, str(grade), T))
    yield spec, store, grades
    store.close()


def _frame(grades: dict) -> pd.DataFrame:
    rows = [{"rater": r, "item": i, "score": g, "model": MODELS[int(i[1:]) % 3], "turn": 1 + int(i[1:]) // 6,
             "category": ("math", "chat")[int(i[1:]) % 2]} for (r, i), g in grades.items()]
    return pd.DataFrame(rows)


def _loop_interval(frame: pd.DataFrame, n_boot: int, seed: int) -> tuple[float, float]:
    """Resample items (in order of first appearance) with the generator the report uses, by a loop."""
    items = list(dict.fromkeys(frame["item"]))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(items), size=(n_boot, len(items)))
    by_item = {i: frame.loc[frame["item"] == i, "score"].to_numpy(float) for i in items}
    means = [np.concatenate([by_item[items[k]] for k in row]).mean() for row in idx]
    lo, hi = np.quantile(means, [0.025, 0.975])
    return float(lo), float(hi)


def test_mean_per_model_turn_category_and_the_ranking(single) -> None:
    spec, store, grades = single
    n_boot, seed = 200, 5
    data = build_report(spec, store, n_boot=n_boot, seed=seed).data["grades"]
    frame = _frame(grades)
    # submitted alice s0..s11, then bob, then carol: items first appear in item order
    expected = frame.groupby("model")["score"].mean()
    got = {row["model"]: row for row in data["per_model"]}
    for model, mean in expected.items():
        assert got[model]["mean"]["estimate"] == pytest.approx(mean)
        part = frame.loc[frame["model"] == model]
        assert got[model]["mean"]["ci"] == pytest.approx(_loop_interval(part, n_boot, seed))
        assert got[model]["mean"]["n_pairable"] == len(part) and got[model]["mean"]["n_units"] == 4
    ranked = [row["model"] for row in data["per_model"]]
    assert ranked == list(expected.sort_values(ascending=False).index)
    assert all(row["rank"] >= 1 for row in data["per_model"])
    turns = frame.groupby("turn")["score"].mean()
    assert {row["turn"]: row["mean"]["estimate"] for row in data["per_turn"]} == pytest.approx(turns.to_dict())
    cats = frame.groupby("category")["score"].mean()
    assert {row["category"]: row["mean"]["estimate"] for row in data["per_category"]} == pytest.approx(cats.to_dict())


def test_mtbench_single_grade_table(single) -> None:
    spec, store, grades = single
    rows = build_report(spec, store, n_boot=0).data["grades"]["mtbench"]
    frame = _frame(grades)
    table = frame.pivot_table(index="model", columns="turn", values="score", aggfunc="mean")
    for row in rows:
        for turn, value in row["turns"].items():
            assert value == pytest.approx(table.loc[row["model"], int(turn)])
        assert row["mean"]["estimate"] == pytest.approx(frame.loc[frame["model"] == row["model"], "score"].mean())
    assert [r["mean"]["estimate"] for r in rows] == sorted((r["mean"]["estimate"] for r in rows), reverse=True)


def test_distribution_and_histogram(single) -> None:
    spec, store, grades = single
    report = build_report(spec, store, n_boot=0)
    dist = {d["group"]: d for d in report.data["grades"]["distribution"]}
    counts = Counter(grades.values())
    assert dist["grade"]["counts"] == {str(g): counts.get(g, 0) for g in range(1, 11)}
    assert dist["grade"]["n"] == 36
    html = render(report, "html")
    block = html[html.index("Distribution of grades"):]
    assert "<rect" in block.split("</svg>")[0] and "<script" not in html


def test_agreement_of_grades_at_ordinal_and_interval_levels(single) -> None:
    spec, store, grades = single
    (row,) = build_report(spec, store, n_boot=0).data["grades"]["agreement"]
    data = np.array([[grades[r, f"s{k}"] for k in range(12)] for r in RATERS], dtype=float)
    for level in ("ordinal", "interval"):
        reference = krippendorff.alpha(reliability_data=data, level_of_measurement=level,
                                       value_domain=list(range(1, 11)))
        assert row[level]["estimate"] == pytest.approx(reference)


@pytest.fixture
def rubric(tmp_path: Path):
    spec = create_session("rb", "rubric", seed=4, folder=tmp_path / "sessions")
    store = open_store(spec)
    store.add_items(_items())
    rng = random.Random(3)
    scores = {}
    names = [c.name for c in spec.schema.criteria]
    for name in RATERS:
        for k in range(12):
            [a] = store.add_assignments([Assignment(0, name, f"s{k}", k)])
            base = rng.randint(0, 4)
            given = {c: min(4, max(0, base + rng.randint(-1, 1))) for c in names}
            scores[name, f"s{k}"] = given
            store.submit(Judgment(a.id, None, T, scores=given))
    yield spec, store, scores
    store.close()


def test_rubric_means_per_criterion(rubric) -> None:
    spec, store, scores = rubric
    data = build_report(spec, store, n_boot=0).data["grades"]
    for row in data["per_model"]:
        values = [s[row["criterion"]] for (r, i), s in scores.items() if MODELS[int(i[1:]) % 3] == row["model"]]
        assert row["mean"]["estimate"] == pytest.approx(np.mean(values))
    assert {row["criterion"] for row in data["per_model"]} == {c.name for c in spec.schema.criteria}


def test_rubric_correlations_match_numpy_and_a_loop_bootstrap(rubric) -> None:
    spec, store, scores = rubric
    n_boot, seed = 150, 2
    rows = {(c["a"], c["b"]): c for c in build_report(spec, store, n_boot=n_boot, seed=seed).data["grades"]
            ["correlation"]}
    assert len(rows) == 10
    frame = pd.DataFrame([{"item": i, "rater": r, **s} for (r, i), s in scores.items()])
    items = sorted(set(frame["item"]))  # the report draws items in their sorted order (one row per judgment)
    for (a, b), got in rows.items():
        assert got["pearson"]["estimate"] == pytest.approx(np.corrcoef(frame[a], frame[b])[0, 1])
        rho = np.corrcoef(frame[a].rank(method="average"), frame[b].rank(method="average"))[0, 1]
        assert got["spearman"]["estimate"] == pytest.approx(rho)
    a, b = "helpfulness", "verbosity"
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(items), size=(n_boot, len(items)))
    rs, rhos = [], []
    for draw in idx:
        sample = pd.concat([frame.loc[frame["item"] == items[k]] for k in draw])
        rs.append(np.corrcoef(sample[a], sample[b])[0, 1])
        rhos.append(np.corrcoef(sample[a].rank(method="average"), sample[b].rank(method="average"))[0, 1])
    assert rows[a, b]["pearson"]["ci"] == pytest.approx(list(np.quantile(rs, [0.025, 0.975])))
    assert rows[a, b]["spearman"]["ci"] == pytest.approx(list(np.quantile(rhos, [0.025, 0.975])))


def test_pairwise_reports_have_no_grades_section(tmp_path: Path) -> None:
    spec = create_session("pw", "pairwise", folder=tmp_path / "sessions")
    with open_store(spec) as store:
        assert build_report(spec, store, n_boot=0).data["grades"] is None
