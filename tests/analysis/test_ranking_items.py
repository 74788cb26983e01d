"""Ranking intervals resample items (clusters of votes), and win rates per vote and per item."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from annotate.analysis.battles import pair_counts
from annotate.analysis.majority import verdicts
from annotate.analysis.ranking import fit_bradley_terry, rank_models, to_rating


def by_model(rows) -> dict[str, object]:
    return {r.model: r for r in rows}


def three_votes_per_item(n_items: int, seed: int, agree: float = 0.9) -> pd.DataFrame:
    """Items among 4 models; each item gets 3 votes that mostly repeat the item's own outcome, as three
    annotators judging the same two answers do."""
    rng = np.random.default_rng(seed)
    theta = np.array([0.8, 0.3, -0.2, -0.9])
    names = np.array(["m0", "m1", "m2", "m3"])
    a = rng.integers(0, 4, n_items)
    b = (a + rng.integers(1, 4, n_items)) % 4
    p = 1 / (1 + np.exp(-(theta[a] - theta[b])))
    item_winner = np.where(rng.random(n_items) < p, "model_a", "model_b")
    rows = []
    for n in range(n_items):
        for _ in range(3):
            flip = rng.random() > agree
            winner = item_winner[n] if not flip else ("model_b" if item_winner[n] == "model_a" else "model_a")
            rows.append((f"i{n}", names[a[n]], names[b[n]], winner))
    return pd.DataFrame(rows, columns=["item", "model_a", "model_b", "winner"])


def test_item_level_interval_is_wider_than_vote_level_with_three_votes_per_item() -> None:
    """The issue's test: with 3 correlated votes per item, resampling votes treats them as 3 independent
    pieces of evidence; resampling items does not, so its interval is wider (about sqrt(3) times when
    the votes agree fully)."""
    battles = three_votes_per_item(400, seed=1)
    votes = by_model(rank_models(battles, n_boot=1000, seed=2))
    items = by_model(rank_models(battles, n_boot=1000, seed=2, item="item"))
    for model in ("m0", "m1", "m2", "m3"):
        vote_width = votes[model].ci_high - votes[model].ci_low
        item_width = items[model].ci_high - items[model].ci_low
        assert item_width > 1.3 * vote_width, model
        assert votes[model].rating == pytest.approx(items[model].rating)  # the point estimate is the same
        lo, hi = items[model].win_rate_ci
        vlo, vhi = votes[model].win_rate_ci
        assert hi - lo > 1.3 * (vhi - vlo)


def test_item_bootstrap_matches_a_plain_loop_over_items() -> None:
    """The multinomial draw over item patterns is the same distribution as drawing item ids with
    replacement and rebuilding the counts from all their votes (Monte Carlo tolerance)."""
    battles = three_votes_per_item(150, seed=3, agree=0.7)
    rows = by_model(rank_models(battles, n_boot=2000, seed=5, item="item"))
    models = pair_counts(battles).models
    groups = dict(tuple(battles.groupby("item")))
    ids = np.array(sorted(groups))
    rng = np.random.default_rng(0)
    loop = []
    for _ in range(400):
        sample = pd.concat([groups[i] for i in ids[rng.integers(0, ids.size, ids.size)]])
        counts = pair_counts(sample)
        if counts.models != models:
            continue
        loop.append(to_rating(fit_bradley_terry(counts)))
    loop_arr = np.array(loop)
    for m, name in enumerate(models):
        lo, hi = np.quantile(loop_arr[:, m], [0.025, 0.975])
        width = rows[name].ci_high - rows[name].ci_low
        assert width == pytest.approx(hi - lo, rel=0.2)
        assert rows[name].ci_low == pytest.approx(lo, abs=0.25 * width)


def test_items_spanning_several_pairs_are_resampled_whole() -> None:
    """A cluster may hold battles of different pairs (one prompt, many model pairs): each cluster is then
    its own pattern, and the point estimate is unchanged."""
    battles = three_votes_per_item(120, seed=4)
    battles = battles.assign(prompt=battles["item"].str[1:].astype(int) // 4)
    plain = by_model(rank_models(battles, n_boot=0))
    clustered = by_model(rank_models(battles, n_boot=300, seed=1, item="prompt"))
    for model, row in clustered.items():
        assert row.rating == pytest.approx(plain[model].rating)
        assert row.ci_low < row.rating < row.ci_high


def test_per_item_win_rates_and_dropped_items_by_hand() -> None:
    """x vs y on three items: i1 votes x x y (x wins), i2 votes x y (no plurality: dropped), i3 votes
    y tie tie (plurality tie; mean: y)."""
    battles = pd.DataFrame({
        "item": ["i1", "i1", "i1", "i2", "i2", "i3", "i3", "i3"],
        "model_a": ["x"] * 8, "model_b": ["y"] * 8,
        "winner": ["model_a", "model_a", "model_b", "model_a", "model_b", "model_b", "tie", "tie"],
    })
    plurality = by_model(rank_models(battles, n_boot=0, item="item"))
    x = plurality["x"]
    assert (x.wins, x.losses, x.ties, x.n_battles) == (3, 3, 2, 8)
    assert x.win_rate == pytest.approx((3 + 1) / 8)
    assert x.n_items == 3 and x.items_dropped == 1
    assert x.item_win_rate == pytest.approx((1 + 0.5) / 2)  # i1 won, i3 tied; i2 dropped
    mean = by_model(rank_models(battles, n_boot=0, item="item", majority="mean"))["x"]
    assert mean.items_dropped == 0
    assert mean.item_win_rate == pytest.approx((1 + 0.5) / 3)  # i1 won, i2 tied (0), i3 lost
    # without item ids every battle is its own item: per item = per vote
    votes = by_model(rank_models(battles, n_boot=0))["x"]
    assert votes.n_items == 8 and votes.item_win_rate == pytest.approx(votes.win_rate)


def test_majority_rules() -> None:
    counts = np.array([[2, 1, 0], [1, 1, 0], [1, 0, 2], [1, 1, 1], [0, 0, 0], [2, 2, 3]])
    assert verdicts(counts, "plurality").tolist() == [0, -1, 2, -1, -1, 2]
    assert verdicts(counts, "mean").tolist() == [0, 2, 0, 2, -1, 2]
    with pytest.raises(ValueError, match="majority rule"):
        verdicts(counts, "median")
