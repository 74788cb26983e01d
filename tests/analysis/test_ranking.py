"""Bradley-Terry ratings: hand cases, an independent MM fit, recovery of known strengths, bootstrap."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from annotate.analysis.ranking import (
    PairCounts,
    fit_bradley_terry,
    pair_counts,
    pair_counts_from_arrays,
    rank_models,
    to_rating,
)

ARENA = Path(__file__).resolve().parents[3] / "shared" / "data" / "arena_pair_counts_20240814.json"
SCALE = 400 / math.log(10)


def by_model(rows) -> dict[str, object]:
    return {r.model: r for r in rows}


def test_three_models_by_hand() -> None:
    """Strengths 4 : 2 : 1 and battles whose win shares equal the BT probabilities exactly
    (A-B 2:1, B-C 2:1, A-C 4:1), so the MLE reproduces them: ratings = 1000 + 400 log10(s / geomean(s))
    = 1120.41, 1000.00, 879.59; win rates (6/8, 3/6, 2/8)."""
    counts = pair_counts_from_arrays(["A", "B", "C"], [[0, 1], [1, 2], [0, 2]], [[2, 1, 0], [2, 1, 0], [4, 1, 0]])
    rows = by_model(rank_models(counts, n_boot=0, ridge=0.0))
    ridged = by_model(rank_models(counts, n_boot=0))
    expected = {"A": 1000 + 400 * math.log10(2), "B": 1000.0, "C": 1000 - 400 * math.log10(2)}
    for model, rating in expected.items():
        assert rows[model].rating == pytest.approx(rating, abs=1e-9)
        assert ridged[model].rating == pytest.approx(rating, abs=1e-3)  # the default ridge is negligible
    assert [rows[m].win_rate for m in "ABC"] == [0.75, 0.5, 0.25]
    assert [rows[m].rank for m in "ABC"] == [1, 2, 3]  # no intervals: ranks by rating


def test_ties_count_as_half_wins() -> None:
    """A-B: 1 win for A and 2 ties (both_bad is a tie) == A beats B 2:1 -> gap 400 log10 2 = 120.41."""
    battles = pd.DataFrame(
        {"model_a": ["A", "B", "A"], "model_b": ["B", "A", "B"], "winner": ["model_a", "tie", "both_bad"]}
    )
    rows = by_model(rank_models(battles, n_boot=0, ridge=0.0))
    assert rows["A"].rating - rows["B"].rating == pytest.approx(400 * math.log10(2), abs=1e-9)
    assert (rows["A"].wins, rows["A"].losses, rows["A"].ties, rows["A"].n_battles) == (1, 0, 2, 3)
    assert rows["A"].win_rate == pytest.approx(2 / 3)


def test_pair_counts_aggregates_and_orients_pairs() -> None:
    battles = pd.DataFrame(
        {
            "model_a": ["y", "x", "x", "z", "y"],
            "model_b": ["x", "y", "y", "x", "z"],
            "winner": ["model_a", "model_a", "tie (bothbad)", "model_b", "tie"],
        }
    )
    c = pair_counts(battles)
    assert c.models == ("x", "y", "z")
    table = {tuple(p): tuple(o) for p, o in zip(c.pairs.tolist(), c.outcomes.tolist(), strict=True)}
    assert table == {(0, 1): (1.0, 1.0, 1.0), (0, 2): (1.0, 0.0, 0.0), (1, 2): (0.0, 0.0, 1.0)}
    assert c.n_battles == 5
    with pytest.raises(ValueError, match="unknown winner"):
        pair_counts(battles.assign(winner="draw"))
    with pytest.raises(ValueError, match="cannot battle itself"):
        pair_counts(pd.DataFrame({"model_a": ["x"], "model_b": ["x"], "winner": ["tie"]}))


def mm_fit(counts: PairCounts, iters: int = 20000) -> np.ndarray:
    """Hunter (2004), "MM algorithms for generalized Bradley-Terry models", eq. (3): p_i <- W_i /
    sum_j n_ij / (p_i + p_j), ties as half wins; returns log-strengths with mean 0."""
    k = len(counts.models)
    w = np.zeros((k, k))
    i, j = counts.pairs[:, 0], counts.pairs[:, 1]
    a, b, t = counts.outcomes.T
    w[i, j] += a + t / 2
    w[j, i] += b + t / 2
    n = w + w.T
    wins = w.sum(axis=1)
    p = np.ones(k)
    for _ in range(iters):
        new = wins / (n / (p[:, None] + p[None, :])).sum(axis=1)
        new /= np.exp(np.log(new).mean())
        if np.abs(new - p).max() < 1e-14:
            break
        p = new
    return np.log(p) - np.log(p).mean()


def simulate(n_models: int, n_battles: int, seed: int, tie_share: float = 0.0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, n_models)
    a = rng.integers(0, n_models, n_battles)
    b = (a + rng.integers(1, n_models, n_battles)) % n_models
    p = 1 / (1 + np.exp(-(theta[a] - theta[b])))
    outcome = np.where(rng.random(n_battles) < p, "model_a", "model_b")
    outcome = np.where(rng.random(n_battles) < tie_share, "tie", outcome)
    names = np.array([f"m{i:02d}" for i in range(n_models)])
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": outcome}), theta - theta.mean()


def test_newton_matches_independent_mm_fit() -> None:
    battles, _ = simulate(8, 3000, seed=4, tie_share=0.2)
    counts = pair_counts(battles)
    assert fit_bradley_terry(counts) == pytest.approx(mm_fit(counts), abs=1e-6)


def test_recovers_known_strengths() -> None:
    """200,000 battles among 20 models (no ties): ratings within 4 SE of the truth, and the 95 %
    intervals cover the true rating for nearly all models."""
    battles, theta = simulate(20, 200_000, seed=7)
    rows = by_model(rank_models(battles, n_boot=200, seed=1))
    truth = to_rating(theta)
    names = [f"m{i:02d}" for i in range(20)]
    est = np.array([rows[m].rating for m in names])
    se = SCALE / np.sqrt(np.array([rows[m].n_battles for m in names]) * 0.15)
    assert np.all(np.abs(est - truth) < 4 * se)
    covered = sum(rows[m].ci_low <= t <= rows[m].ci_high for m, t in zip(names, truth, strict=True))
    assert covered >= 17
    assert np.corrcoef(est, truth)[0, 1] > 0.999


def test_bootstrap_matches_resampling_battle_rows() -> None:
    """The multinomial draw over (pair, outcome) cells is the same distribution as resampling battle
    rows: compare interval widths with a plain loop over 400 row resamples (Monte Carlo tolerance)."""
    battles, _ = simulate(4, 600, seed=3, tie_share=0.1)
    rows = by_model(rank_models(battles, n_boot=2000, seed=5))
    rng = np.random.default_rng(0)
    models = pair_counts(battles).models
    loop = []
    for _ in range(400):
        sample = battles.iloc[rng.integers(0, len(battles), len(battles))]
        counts = pair_counts(sample)
        assert counts.models == models
        loop.append(to_rating(fit_bradley_terry(counts)))
    loop_arr = np.array(loop)
    for m, name in enumerate(models):
        lo, hi = np.quantile(loop_arr[:, m], [0.025, 0.975])
        width = rows[name].ci_high - rows[name].ci_low
        assert width == pytest.approx(hi - lo, rel=0.2)
        assert rows[name].ci_low == pytest.approx(lo, abs=0.25 * width)


def test_rank_is_one_plus_models_wholly_above() -> None:
    """Three clearly separated tiers with two near-equal models in the middle tier."""
    rng = np.random.default_rng(2)
    strengths = {"top": 2.0, "mid1": 0.0, "mid2": 0.02, "low": -2.0}
    names = list(strengths)
    rows_ = []
    for _ in range(20000):
        a, b = rng.choice(4, 2, replace=False)
        p = 1 / (1 + math.exp(-(strengths[names[a]] - strengths[names[b]])))
        rows_.append((names[a], names[b], "model_a" if rng.random() < p else "model_b"))
    battles = pd.DataFrame(rows_, columns=["model_a", "model_b", "winner"])
    rows = rank_models(battles, n_boot=300, seed=0)
    ranks = {r.model: r.rank for r in rows}
    assert ranks["top"] == 1 and ranks["mid1"] == 2 and ranks["mid2"] == 2 and ranks["low"] == 4
    for r in rows:
        above = sum(o.ci_low > r.ci_high for o in rows)
        assert r.rank == 1 + above


def test_separable_data_stays_finite_and_unplayed_models_are_dropped() -> None:
    """A won every battle (no MLE exists): the vanishing ridge keeps its rating finite and on top.
    A model listed without battles gets no row."""
    counts = pair_counts_from_arrays(
        ["A", "B", "C", "idle"], [[0, 1], [0, 2], [1, 2]], [[10, 0, 0], [7, 0, 0], [5, 4, 1]]
    )
    rows = rank_models(counts, n_boot=100, seed=0)
    assert [r.model for r in rows][:1] == ["A"] and "idle" not in {r.model for r in rows}
    assert all(math.isfinite(r.rating) for r in rows)
    assert rows[0].rating > rows[1].ci_high
    json.dumps([r.to_json() for r in rows], allow_nan=False)


@pytest.mark.skipif(not ARENA.exists(), reason="shared Chatbot Arena pair counts not present")
def test_arena_pair_counts_fit() -> None:
    """Chatbot Arena counts of 2024-08-14 (129 models, 1,670,250 battles): the fit runs on aggregated
    counts; the public leaderboard of that date had chatgpt-4o-latest first, ahead of
    gemini-1.5-pro-exp-0801 and gpt-4o-2024-05-13."""
    data = json.loads(ARENA.read_text())
    counts = pair_counts_from_arrays(data["models"], data["X"], data["Y"])
    assert counts.n_battles == 1_670_250
    rows = rank_models(counts, n_boot=0)
    assert len(rows) == 129
    assert [r.model for r in rows[:3]] == ["chatgpt-4o-latest", "gemini-1.5-pro-exp-0801", "gpt-4o-2024-05-13"]
    assert sum(r.n_battles for r in rows) == 2 * 1_670_250
