"""Dawid-Skene on the paper's own data (Dawid & Skene 1979, Table 1) against an EM written out here
with plain loops, and on simulated annotators with known accuracies (the bad ones flagged).

The same fit is compared with crowd-kit's DawidSkene in ``bench/bench_dawid_skene.py``."""

from __future__ import annotations

import itertools
import json
import math
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from annotate.analysis.dawid_skene import dawid_skene

TABLE_1 = Path(__file__).resolve().parents[1] / "data" / "dawid_skene_1979.txt"


def table_1() -> pd.DataFrame:
    """The 45 patients: anaesthetist 1 three times, anaesthetists 2-5 once each (315 answers)."""
    rows = []
    for line in TABLE_1.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        patient, *answers = (int(v) for v in line.split())
        rows += [(patient, 1, a) for a in answers[:3]]
        rows += [(patient, j, a) for j, a in enumerate(answers[3:], start=2)]
    return pd.DataFrame(rows, columns=["unit", "rater", "label"])


def loop_em(answers: pd.DataFrame, classes: list[int], rounds: int) -> tuple[dict, dict, dict]:
    """Equations 2.3-2.5 of the paper, one item, observer and class at a time (no arrays)."""
    n = defaultdict(lambda: defaultdict(lambda: defaultdict(float)))  # n[i][j][l]
    for unit, rater, label in answers.itertuples(index=False):
        n[unit][rater][label] += 1
    units = list(n)
    raters = sorted({r for i in units for r in n[i]})
    t = {}
    for i in units:
        total = sum(sum(v.values()) for v in n[i].values())
        t[i] = {c: sum(n[i][j][c] for j in n[i]) / total for c in classes}
    for _ in range(rounds):
        p = {c: sum(t[i][c] for i in units) / len(units) for c in classes}
        pi = {}
        for j in raters:
            for c in classes:
                den = sum(t[i][c] * sum(n[i][j].values()) for i in units if j in n[i])
                for label in classes:
                    num = sum(t[i][c] * n[i][j][label] for i in units if j in n[i])
                    pi[j, c, label] = num / den if den > 0 else 1 / len(classes)
        for i in units:
            weight = {}
            for c in classes:
                w = p[c]
                for j in n[i]:
                    for label, count in n[i][j].items():
                        w *= pi[j, c, label] ** count
                weight[c] = w
            total = sum(weight.values())
            t[i] = {c: weight[c] / total for c in classes}
    return p, pi, t


def test_table_1_matches_an_em_written_out_with_loops() -> None:
    answers = table_1()
    assert len(answers) == 315
    fit = dawid_skene(answers, classes=[1, 2, 3, 4], tol=1e-14, max_iter=2000)
    assert fit.converged
    p, pi, t = loop_em(answers, [1, 2, 3, 4], fit.n_iter)
    assert fit.priors == pytest.approx([p[c] for c in (1, 2, 3, 4)], abs=1e-9)
    for j, annotator in enumerate(fit.annotators, start=1):
        assert annotator.rater == j
        expected = [[pi[j, c, label] for label in (1, 2, 3, 4)] for c in (1, 2, 3, 4)]
        assert annotator.confusion == pytest.approx(np.array(expected), abs=1e-9)
    for k, unit in enumerate(fit.units):
        assert fit.posteriors[k] == pytest.approx([t[unit][c] for c in (1, 2, 3, 4)], abs=1e-9)
    assert sum(fit.priors) == pytest.approx(1.0)
    assert fit.annotators[0].n_answers == 135 and fit.annotators[0].n_items == 45
    # Patients 2 and 36: the majority says 3, the model 4 (anaesthetists 2-5 use 4 more readily than
    # anaesthetist 1, whose three answers dominate the count); patient 12's top count is shared (2 and 3).
    assert fit.label_of()[2] == 4 and fit.label_of()[36] == 4
    assert dict(zip(fit.units, fit.majority, strict=True))[12] is None
    assert fit.n_differ == 2 and fit.n_with_majority == 44


def test_log_likelihood_rises_every_round_and_the_fit_is_deterministic() -> None:
    answers = table_1()
    values = [dawid_skene(answers, max_iter=k, tol=0.0).log_likelihood for k in range(1, 15)]
    assert all(b >= a - 1e-9 for a, b in itertools.pairwise(values))
    one, two = dawid_skene(answers), dawid_skene(answers.sample(frac=1.0, random_state=3))
    assert one.priors == pytest.approx(two.priors)
    assert one.label_of() == two.label_of()


def simulated(seed: int, accuracies: list[float], n_items: int = 400, missing: float = 0.3
              ) -> tuple[pd.DataFrame, dict]:
    """Three classes with shares 0.5, 0.3, 0.2; annotator j answers right with probability
    accuracies[j], otherwise uniformly among the two wrong classes; a share of answers is missing."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(3, n_items, p=[0.5, 0.3, 0.2])
    rows = []
    for j, acc in enumerate(accuracies):
        for i in range(n_items):
            if rng.random() < missing:
                continue
            label = truth[i] if rng.random() < acc else (truth[i] + rng.integers(1, 3)) % 3
            rows.append((f"item{i}", f"rater{j}", "ABC"[label]))
    return pd.DataFrame(rows, columns=["unit", "rater", "label"]), {f"item{i}": "ABC"[t] for i, t in enumerate(truth)}


def test_bad_annotators_are_flagged_and_the_model_beats_the_majority() -> None:
    accuracies = [0.9, 0.85, 0.9, 0.35, 0.3]
    answers, truth = simulated(4, accuracies)
    fit = dawid_skene(answers, classes=["A", "B", "C"])
    got = {a.rater: a for a in fit.annotators}
    for j, acc in enumerate(accuracies):
        assert got[f"rater{j}"].accuracy == pytest.approx(acc, abs=0.07)
    assert set(fit.flagged) == {"rater3", "rater4"}
    shares = [np.mean([truth[u] == c for u in fit.units]) for c in "ABC"]
    assert fit.priors == pytest.approx(shares, abs=0.05)
    labels = fit.label_of()
    majority = dict(zip(fit.units, fit.majority, strict=True))
    ds_right = np.mean([labels[u] == truth[u] for u in fit.units])
    mv_right = np.mean([majority[u] == truth[u] for u in fit.units])
    assert ds_right > mv_right
    assert fit.n_differ > 0


def test_few_answers_are_not_judged_and_json_has_no_nan() -> None:
    answers = pd.DataFrame({"unit": [1, 1, 2, 2, 3], "rater": ["x", "y", "x", "y", "z"],
                            "label": ["A", "A", "B", "A", "B"]})
    fit = dawid_skene(answers)
    assert all(a.flagged is None for a in fit.annotators)
    assert fit.annotators[2].reason == "not enough data (n = 1 answer: fewer than 10 to judge)"
    document = json.dumps(fit.to_json(), allow_nan=False)
    assert "rule" in json.loads(document)
    empty = dawid_skene(answers.iloc[:0])
    assert empty.reason == "not enough data (n = 0 items: no answer to model)"
    assert math.isnan(empty.log_likelihood)
    json.dumps(empty.to_json(), allow_nan=False)


def test_labels_outside_the_classes_are_refused() -> None:
    answers = pd.DataFrame({"unit": [1], "rater": ["x"], "label": ["maybe"]})
    with pytest.raises(ValueError, match="outside the classes"):
        dawid_skene(answers, classes=["A", "B"])


def test_two_annotators_per_item_are_not_told_apart_and_not_judged() -> None:
    """With two answers per item the model cannot say which of a disagreeing pair is wrong: a 0.9 and a
    0.6 annotator come out alike, so neither is judged; a third annotator on the items makes them judged."""
    rng = np.random.default_rng(1)
    truth = rng.integers(0, 2, 200)
    rows = []
    for j, acc in enumerate((0.9, 0.6, 0.9)):
        for i in range(200):
            rows.append((i, f"r{j}", "AB"[truth[i] if rng.random() < acc else 1 - truth[i]]))
    answers = pd.DataFrame(rows, columns=["unit", "rater", "label"])
    pair = dawid_skene(answers.loc[answers["rater"] != "r2"])
    first, second = pair.annotators
    assert abs(first.accuracy - second.accuracy) < 0.05  # not identified: the truth is 0.9 against 0.6
    assert pair.max_raters == 2 and pair.flagged == () and first.flagged is None and first.n_checked == 0
    assert first.reason == "not enough data (n = 0 answers: fewer than 10 on items with 3+ annotators)"
    three = dawid_skene(answers)
    got = {a.rater: a for a in three.annotators}
    assert got["r1"].flagged and got["r1"].n_checked == 200 and three.flagged == ("r1",)
    assert got["r1"].accuracy == pytest.approx(0.6, abs=0.06)
    assert min(got["r0"].accuracy, got["r2"].accuracy) > got["r1"].accuracy + 0.15
    assert json.loads(json.dumps(three.to_json(), allow_nan=False))["max_raters_per_item"] == 3


def test_items_with_the_same_answers_are_fitted_as_one_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    """EM on the distinct answer patterns (each weighted by its items) gives the fit of EM on every item:
    the same rounds, labels and flags, and the same accuracies, priors and posteriors but for rounding."""
    from annotate.analysis import dawid_skene as module

    rng = np.random.default_rng(11)
    truth = rng.integers(0, 3, size=3000)
    rows = []
    for rater, accuracy in enumerate((0.9, 0.8, 0.7, 0.4)):
        right = rng.random(truth.size) < accuracy
        answers = np.where(right, truth, rng.integers(0, 3, size=truth.size))
        answered = rng.random(truth.size) < 0.9
        rows += [(f"item-{i}", f"r{rater}", "abc"[a]) for i, a in enumerate(answers) if answered[i]]
    rows += [("item-0", "r0", "b")]  # a repeat: counts of 2 in one pattern
    labels = pd.DataFrame(rows, columns=["unit", "rater", "label"])
    grouped = dawid_skene(labels)
    seen = []
    real = module._patterns
    monkeypatch.setattr(module, "_patterns", lambda *a: seen.append(real(*a)) or None)
    plain = dawid_skene(labels)
    assert seen[0] is not None and seen[0][1].size <= 4 ** 4 + 1  # at most 257 patterns for 3000 items
    assert (grouped.n_iter, grouped.labels, grouped.majority, grouped.flagged) == \
        (plain.n_iter, plain.labels, plain.majority, plain.flagged)
    np.testing.assert_allclose(grouped.posteriors, plain.posteriors, rtol=0, atol=1e-9)
    np.testing.assert_allclose(grouped.priors, plain.priors, rtol=0, atol=1e-12)
    assert [a.accuracy for a in grouped.annotators] == pytest.approx([a.accuracy for a in plain.annotators], abs=1e-12)
    assert grouped.log_likelihood == pytest.approx(plain.log_likelihood, rel=1e-12)


def test_a_crowds_json_lists_the_judged_annotators_and_summarises_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    import annotate.analysis.dawid_skene as ds

    # five judged annotators on 40 items, then 30 crowd annotators with one answer each on items of their own
    answers, _truth = simulated(40, [0.9, 0.85, 0.9, 0.35, 0.3], missing=0.0)
    crowd = pd.DataFrame({"unit": [f"c{k}" for k in range(30)], "rater": [f"crowd{k}" for k in range(30)],
                          "label": ["A", "B", "C"] * 10})
    fit = dawid_skene(pd.concat([answers, crowd], ignore_index=True), classes=["A", "B", "C"])
    monkeypatch.setattr(ds, "JSON_MAX_ANNOTATORS", 8)
    monkeypatch.setattr(ds, "JSON_MAX_DIFFER", 2)
    document = fit.to_json()
    listed = [a["rater"] for a in document["annotators"]]
    assert listed[:5] == [f"rater{j}" for j in range(5)] and len(listed) == 8
    assert document["n_annotators"] == 35
    assert document["annotators_left_out"]["n"] == 27
    assert document["annotators_left_out"]["n_answers"] == 27
    assert set(document["flagged"]) == {"rater3", "rater4"}
    assert len(document["differ"]) == document["n_differ_listed"] == min(2, fit.n_differ)
    assert document["n_items_differ_from_majority"] == fit.n_differ
    json.dumps(document, allow_nan=False)
    monkeypatch.setattr(ds, "JSON_MAX_ANNOTATORS", 1000)
    assert fit.to_json()["annotators_left_out"] is None and len(fit.to_json()["annotators"]) == 35
