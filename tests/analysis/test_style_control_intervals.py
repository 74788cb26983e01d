"""The style-controlled ranking's two interval methods: the item-clustered sandwich against the item
bootstrap on simulated battles with known strengths, a style effect and correlated votes per item, and
the automatic switch between them.

Tolerance: 1000 resamples estimate a 95 % percentile interval's width with a Monte Carlo error of
about 3 % (each bound is a 2.5 % quantile, whose standard error is sqrt(0.025 * 0.975 / 1000) /
phi(1.96) = 0.085 standard deviations, against a width of 3.92), and with several thousand items the
sandwich and the bootstrap differ by O(1 / n) besides: 12 % per rating or coefficient is four such
errors, 6 % on the mean width of all of them.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from annotate.analysis.style_control import (
    SANDWICH_ABOVE,
    StyleControl,
    choose_interval_method,
    fit_style_control,
    style_design_from_arrays,
)

STRENGTHS = np.linspace(0.8, -0.8, 6)
GAMMA = 2.0


def clustered_battles(seed: int, n_items: int, votes_per_item: int, item_sd: float):
    """Items between six models (true log-strengths 0.8 .. -0.8, the weaker writing longer); every vote
    on an item follows logistic(theta_a - theta_b + GAMMA d + u_item), u_item ~ N(0, item_sd) shared by
    the item's voters (one prompt favours one side for everybody), so the votes of an item are correlated."""
    rng = np.random.default_rng(seed)
    k = STRENGTHS.size
    a = rng.integers(0, k, n_items)
    b = (a + rng.integers(1, k, n_items)) % k
    verbose = np.geomspace(100, 400, k)
    length_a, length_b = rng.lognormal(np.log(verbose[a]), 0.3), rng.lognormal(np.log(verbose[b]), 0.3)
    d = (length_a - length_b) / (length_a + length_b)
    p = 1 / (1 + np.exp(-(STRENGTHS[a] - STRENGTHS[b] + GAMMA * d + rng.normal(0, item_sd, n_items))))
    wins = rng.binomial(votes_per_item, p)
    votes = np.column_stack([wins, votes_per_item - wins, np.zeros(n_items)])
    headers_a, headers_b = rng.integers(0, 3, n_items), rng.integers(0, 3, n_items)
    zeros = np.zeros(n_items)
    return {"models": [f"m{i}" for i in range(k)], "model_a": a, "model_b": b,
            "counts_a": np.column_stack([length_a, headers_a, zeros, zeros]),
            "counts_b": np.column_stack([length_b, headers_b, zeros, zeros]), "votes": votes}


def design_of(data: dict, per_vote: bool = False):
    """The design of ``data``; per_vote: every vote its own item (the votes taken as independent)."""
    if not per_vote:
        return style_design_from_arrays(**data)
    n = data["votes"].sum(axis=1).astype(int)
    repeat = {key: np.repeat(data[key], n, axis=0) for key in ("model_a", "model_b", "counts_a", "counts_b")}
    row = np.repeat(np.arange(n.size), n)
    first = np.r_[0, np.cumsum(n)[:-1]]
    rank = np.arange(row.size) - first[row]  # 0 .. n - 1 within the item
    votes = np.zeros((row.size, 3))
    votes[np.arange(row.size), np.where(rank < data["votes"][row, 0], 0, 1)] = 1.0
    return style_design_from_arrays(data["models"], **repeat, votes=votes)


def widths(result: StyleControl) -> dict[str, np.ndarray]:
    return {"controlled": np.array([r.ci[1] - r.ci[0] for r in result.rows]),
            "plain": np.array([r.plain_ci[1] - r.plain_ci[0] for r in result.rows]),
            "coefficients": np.array([c.ci_high - c.ci_low for c in result.coefficients if c.reason is None])}


def test_sandwich_intervals_agree_with_the_item_bootstrap() -> None:
    """4,000 items with three correlated votes each: per rating (plain and controlled) and per
    coefficient the sandwich's width is within 12 % of the bootstrap's, 6 % on the mean; the estimates
    are the same fit, the intervals are centred on them, and the ranks agree."""
    design = design_of(clustered_battles(1, 4000, 3, 1.0))
    boot = fit_style_control(design, n_boot=1000, seed=0, intervals="bootstrap")
    sand = fit_style_control(design, n_boot=1000, seed=0, intervals="sandwich")
    assert boot.interval_method == "bootstrap" and sand.interval_method == "sandwich"
    wb, ws = widths(boot), widths(sand)
    assert wb["coefficients"].size == 2  # tokens and headers
    for key in wb:
        ratio = ws[key] / wb[key]
        assert np.all(np.abs(ratio - 1) < 0.12), (key, ratio)
        assert abs(ratio.mean() - 1) < 0.06, (key, ratio)
    for rb, rs in zip(boot.rows, sand.rows, strict=True):
        assert (rb.model, rb.rating, rb.plain_rating) == (rs.model, rs.rating, rs.plain_rating)
        assert (rs.ci[0] + rs.ci[1]) / 2 == pytest.approx(rs.rating)
        assert (rb.rank, rb.plain_rank) == (rs.rank, rs.plain_rank)
    assert [r.model for r in sand.rows] == [f"m{i}" for i in range(6)]  # the true order
    assert [r.rank for r in sand.rows] != [1] * 6  # the ranks come from the sandwich bounds: some are told apart
    tokens, headers = sand.coefficients[:2]
    assert tokens.ci_low > 0 and headers.ci_low < 0 < headers.ci_high  # length matters, headers do not


def test_the_sandwich_clusters_votes_by_item() -> None:
    """Five votes per item that lean together (item effect sd 1.5): the bootstrap, which resamples items,
    is much wider than the same votes taken as independent (every vote its own item: the same fit), and
    the sandwich follows the bootstrap.  A sandwich summed over votes instead of items would land near
    the independent one and fail here."""
    data = clustered_battles(2, 3000, 5, 1.5)
    clustered, separate = design_of(data), design_of(data, per_vote=True)
    boot = fit_style_control(clustered, n_boot=1000, seed=0, intervals="bootstrap")
    sand = fit_style_control(clustered, n_boot=1000, seed=0, intervals="sandwich")
    alone = fit_style_control(separate, n_boot=1000, seed=0, intervals="sandwich")
    for r1, r5 in zip(sand.rows, alone.rows, strict=True):
        assert r1.rating == pytest.approx(r5.rating, abs=1e-6)
    wb, ws, wa = widths(boot), widths(sand), widths(alone)
    for key in wb:
        assert abs((ws[key] / wb[key]).mean() - 1) < 0.06, key
        assert (wa[key] / wb[key]).mean() < 0.8, key  # votes taken as independent: far too narrow


def test_auto_takes_the_sandwich_above_the_threshold_and_says_so() -> None:
    design = design_of(clustered_battles(3, 3000, 2, 0.5))
    above = fit_style_control(design, n_boot=200, seed=0, sandwich_above=2999)
    at = fit_style_control(design, n_boot=200, seed=0, sandwich_above=3000)
    asked = fit_style_control(design, n_boot=200, seed=0, intervals="bootstrap")
    assert above.interval_method == "sandwich" and at.interval_method == "bootstrap"
    assert [r.ci for r in at.rows] == [r.ci for r in asked.rows]  # the bootstrap as it always was
    assert [r.ci for r in above.rows] == [r.ci for r in fit_style_control(design, 200, 0, intervals="sandwich").rows]
    data = json.loads(json.dumps(above.to_json(), allow_nan=False))
    assert data["interval_method"] == "sandwich" and data["n_boot"] == 200  # asked for, not drawn
    assert data["interval_method_reason"].startswith("3,000 items > 2,999: normal approximation")
    assert "item-clustered sandwich" in data["interval_method_reason"]
    data = at.to_json()
    assert data["interval_method"] == "bootstrap" and data["n_boot"] == 200
    assert data["interval_method_reason"] == "3,000 items <= 3,000: 200 item resamples, both fits refitted on each"
    assert fit_style_control(design, n_boot=0).interval_method == "none"


def test_the_default_threshold_and_the_choices() -> None:
    assert choose_interval_method("auto", SANDWICH_ABOVE, 1000)[0] == "bootstrap"
    assert choose_interval_method("auto", SANDWICH_ABOVE + 1, 1000)[0] == "sandwich"
    assert choose_interval_method("bootstrap", 10 * SANDWICH_ABOVE, 1000)[0] == "bootstrap"
    assert choose_interval_method("sandwich", 5, 1000) == ("sandwich", choose_interval_method("sandwich", 9, 10)[1])
    assert choose_interval_method("sandwich", 1, 1000)[0] == "none"  # one item: no interval by either
    with pytest.raises(ValueError, match="intervals must be one of auto, bootstrap, sandwich"):
        choose_interval_method("jackknife", 10, 10)


def test_sandwich_with_models_never_compared() -> None:
    """Two groups of models never compared: each group's strengths can shift together without changing
    the likelihood, which the sandwich must not turn into huge (or NaN) intervals."""
    one = clustered_battles(4, 2000, 2, 0.5)
    two = clustered_battles(5, 2000, 2, 0.5)
    data = {"models": [*one["models"], *(f"n{i}" for i in range(6))],
            **{key: np.concatenate([one[key], two[key] + (6 if key.startswith("model_") else 0)])
               for key in ("model_a", "model_b", "counts_a", "counts_b", "votes")}}
    design = design_of(data)
    sand = fit_style_control(design, n_boot=500, seed=0, intervals="sandwich")
    boot = fit_style_control(design, n_boot=500, seed=0, intervals="bootstrap")
    assert {r.component for r in sand.rows} == {1, 2}
    ratio = widths(sand)["controlled"] / widths(boot)["controlled"]
    assert np.all(np.isfinite(ratio)) and np.all(np.abs(ratio - 1) < 0.2), ratio
