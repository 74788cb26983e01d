"""Shares with the item as the unit: bootstrap over items, design effect, Holm's correction."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from annotate.analysis.bias import binomial_test, holm, length_bias, wilson_interval
from annotate.analysis.clustered import clustered_share, design_effect


def correlated_votes(n_items: int, per_item: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Each item has its own chance of a hit (0.1 or 0.9); its votes share it, as raters of one item do."""
    rng = np.random.default_rng(seed)
    p = np.where(rng.random(n_items) < 0.5, 0.1, 0.9)
    hits = rng.random((n_items, per_item)) < p[:, None]
    items = np.repeat(np.arange(n_items), per_item)
    return hits.ravel(), items


def test_item_interval_is_wider_than_the_vote_interval_with_three_votes_per_item() -> None:
    hits, items = correlated_votes(200, 3, seed=1)
    counted = np.ones_like(hits)
    clustered = clustered_share(hits, counted, items, n_boot=2000, seed=2)
    lo, hi = wilson_interval(int(hits.sum()), hits.size)  # treating 600 votes as independent
    assert clustered.unit == "items" and clustered.n_items == 200 and clustered.n == 600
    assert clustered.ci_high - clustered.ci_low > 1.4 * (hi - lo)
    assert clustered.design_effect > 2.0  # strong within-item correlation: 3 votes are worth about one


def test_item_bootstrap_matches_a_plain_loop_over_items() -> None:
    """The vectorised interval against an independent loop: draw item ids with replacement, pool their votes."""
    hits, items = correlated_votes(120, 3, seed=3)
    result = clustered_share(hits, np.ones_like(hits), items, n_boot=4000, seed=4)
    rng = np.random.default_rng(0)
    per_item = hits.reshape(120, 3)
    loop = [per_item[rng.integers(0, 120, 120)].mean() for _ in range(4000)]
    lo, hi = np.quantile(loop, [0.025, 0.975])
    width = hi - lo
    assert result.ci_low == pytest.approx(lo, abs=0.1 * width)
    assert result.ci_high == pytest.approx(hi, abs=0.1 * width)


def test_one_vote_per_item_is_the_classic_wilson_and_exact_test() -> None:
    hits = np.array([1, 1, 1, 0, 1, 1, 1, 1, 0, 1], dtype=bool)
    result = clustered_share(hits, np.ones(10, dtype=bool), np.arange(10), n_boot=500, seed=0)
    assert result.unit == "votes" and result.design_effect == 1.0
    assert (result.ci_low, result.ci_high) == wilson_interval(8, 10)
    assert result.p_value == binomial_test(8, 10)


def test_design_effect_by_hand() -> None:
    # two items: 2 of 2 and 0 of 2 -> R = 0.5; cluster variance 2/1 * (1 + 1) / 16 = 0.25; binomial 0.25/4
    assert design_effect(np.array([2.0, 0.0]), np.array([2.0, 2.0])) == pytest.approx(4.0)
    # votes spread evenly within items: no inflation (never below 1)
    assert design_effect(np.array([1.0, 1.0, 1.0]), np.array([2.0, 2.0, 2.0])) == 1.0
    assert design_effect(np.array([3.0]), np.array([3.0])) == 1.0


def test_few_items_never_narrower_than_the_effective_wilson() -> None:
    """Two items give three possible resamples: the bootstrap alone would be far too narrow."""
    hits = np.array([1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0], dtype=bool)
    items = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    result = clustered_share(hits, np.ones_like(hits), items, n_boot=500, seed=0)
    lo, hi = wilson_interval(9, 11)
    assert result.ci_low <= lo and result.ci_high >= hi


def test_pooled_length_bias_uses_items_and_raters_their_votes() -> None:
    votes = pd.DataFrame({
        "item": ["a", "a", "a", "b", "b", "b"], "rater": ["x", "y", "z", "x", "y", "z"],
        "label": ["A", "A", "A", "B", "A", "A"], "len_a": [10] * 6, "len_b": [5] * 6,
    })
    report = length_bias(votes, item="item", n_boot=200, seed=0)
    assert report.overall.unit == "items" and report.overall.n_items == 2 and report.overall.k == 5
    assert {p.rater: p.unit for p in report.per_rater} == {"x": "votes", "y": "votes", "z": "votes"}
    plain = length_bias(votes)
    assert plain.overall.unit == "votes" and plain.overall.p_value == binomial_test(5, 6)


def test_holm_by_hand() -> None:
    # sorted 0.01, 0.03, 0.04 times 3, 2, 1: 0.03, 0.06, 0.04 -> running max 0.03, 0.06, 0.06
    assert holm([0.04, 0.01, 0.03]).tolist() == pytest.approx([0.06, 0.03, 0.06])
    assert np.isnan(holm([np.nan, 0.2])[0]) and holm([np.nan, 0.2])[1] == pytest.approx(0.2)
    assert holm([0.5, 0.9]).tolist() == pytest.approx([1.0, 1.0])


def test_many_items_with_few_count_patterns_are_resampled_by_pattern(monkeypatch) -> None:
    """Items with at most five votes have few distinct (k, n): the resamples are drawn per pattern (no draw
    per item), with the interval of the item bootstrap within Monte Carlo error."""
    import annotate.analysis.bootstrap as bootstrap
    from annotate.analysis.clustered import share_of_items

    rng = np.random.default_rng(4)
    n_i = rng.integers(1, 6, 20_000)
    k_i = rng.binomial(n_i, 0.3)
    by_units = bootstrap.estimate_from_features(np.column_stack([k_i, n_i]).astype(float),
                                                lambda s: s[:, 0] / s[:, 1], n_boot=400, seed=1,
                                                n_units=n_i.size, n_raters=0, n_pairable=int(n_i.sum()))

    def no_unit_draws(*args, **kwargs):
        raise AssertionError("drew units")

    monkeypatch.setattr(bootstrap, "resample_counts", no_unit_draws)
    got = share_of_items(k_i, n_i, n_boot=400, seed=1)
    assert got.share == k_i.sum() / n_i.sum()
    width = by_units.ci_high - by_units.ci_low
    assert abs(got.ci_low - by_units.ci_low) < 0.15 * width and abs(got.ci_high - by_units.ci_high) < 0.15 * width
