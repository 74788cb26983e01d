"""Agreement on rankings (annotate.analysis.rankings), checked independently:

* Kendall's W against a published worked example (ten projects ranked by four judges, sum of squared
  deviations 1048: Scribd, "The KENDALL's Coefficient of Concordance W", example 1), against a plain
  loop over the textbook definition (Kendall 1948, ch. 6) with the tie correction written out, and,
  without ties, against its identity with the mean Spearman correlation of the rater pairs
  (W = ((m - 1) mean_rho + 1) / m, Kendall 1948; rho from numpy's corrcoef of the ranks);
* alpha on ranks against `krippendorff.alpha` (level ordinal) on the (item, slot) x rater matrix;
* every item-bootstrap interval against a plain loop over the same resamples of items;
* position bias against pandas group means; implied pairs counted by hand.
"""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pandas as pd
import pytest

from annotate.analysis.ranking import rank_models
from annotate.analysis.rankings import battles_from_ranks, kendall_w, kendall_w_item, position_bias, rank_alpha
from annotate.design import Ranking

PROJECTS = np.array([  # ten projects (rows) ranked by judges A, B, C, D (columns)
    [1, 2, 3, 4], [3, 1, 2, 2], [4, 4, 1, 3], [5, 5, 5, 1], [2, 6, 7, 6],
    [8, 3, 4, 7], [6, 8, 6, 5], [7, 7, 8, 9], [10, 10, 9, 8], [9, 9, 10, 10],
], dtype=float)


def test_published_example_ten_projects_four_judges() -> None:
    assert all(sorted(column) == list(range(1, 11)) for column in PROJECTS.T)  # four proper rankings
    sums = PROJECTS.sum(axis=1)
    assert sums.tolist() == [10, 8, 12, 16, 21, 22, 25, 31, 37, 38]  # the example's sums of ranks
    assert ((sums - sums.mean()) ** 2).sum() == 1048  # its sum of squared deviations
    # W = 12 S / (m^2 (n^3 - n)) = 12 * 1048 / (16 * 990) = 0.7939
    assert kendall_w_item(PROJECTS.T) == pytest.approx(12 * 1048 / (16 * 990))
    assert round(kendall_w_item(PROJECTS.T), 4) == 0.7939


def reference_w(matrix: np.ndarray) -> float:
    """Kendall's W by the definition, one loop per term, ties corrected (Siegel & Castellan 1988, 9.18)."""
    m, k = len(matrix), len(matrix[0])
    totals = [sum(matrix[j][i] for j in range(m)) for i in range(k)]
    mean = sum(totals) / k
    s = sum((t - mean) ** 2 for t in totals)
    t_sum = 0.0
    for row in matrix:
        for value in set(row):
            t = list(row).count(value)
            t_sum += t**3 - t
    return 12 * s / (m * m * (k**3 - k) - m * t_sum)


def random_rankings(rng: np.random.Generator, n_items: int, raters: list[str], k: int, ties: bool,
                    overlap: int) -> pd.DataFrame:
    q = Ranking(k=k, ties=ties)
    values = q.values
    rows = []
    for i in range(n_items):
        truth = rng.permutation(k)
        for rater in rng.choice(raters, size=overlap, replace=False):
            if rng.random() < 0.6:  # near the item's own order, so agreement is neither 0 nor 1
                noisy = truth + rng.normal(0, 0.8, k)
                order = np.argsort(noisy)
                groups = [[q.slots[order[0]]]]
                for a, b in itertools.pairwise(order):
                    if ties and abs(noisy[a] - noisy[b]) < 0.3:
                        groups[-1].append(q.slots[b])
                    else:
                        groups.append([q.slots[b]])
                text = ">".join("=".join(g) for g in groups)
            else:
                text = values[rng.integers(len(values))]
            for slot, rank in q.ranks(q.parse(text)).items():
                rows.append({"item": f"i{i:03d}", "rater": str(rater), "slot": slot, "rank": rank})
    return pd.DataFrame(rows)


@pytest.mark.parametrize(("k", "ties"), [(3, False), (4, True), (6, True), (5, False)])
def test_w_per_item_matches_the_definition(k: int, ties: bool) -> None:
    ranks = random_rankings(np.random.default_rng(k), 30, ["a", "b", "c", "d", "e"], k, ties, overlap=4)
    result = kendall_w(ranks, n_boot=0)
    for item, part in ranks.groupby("item"):
        matrix = part.pivot(index="rater", columns="slot", values="rank").to_numpy()
        got = result.per_item.set_index("item").loc[item, "w"]
        assert got == pytest.approx(reference_w(matrix.tolist()))
    assert result.mean.estimate == pytest.approx(result.per_item["w"].mean())
    assert result.mean.n_units == 30 and result.mean.n_pairable == 120
    assert result.chance == pytest.approx(1 / 4)
    assert (result.tied_rankings > 0) is ties


def test_without_ties_w_is_the_mean_spearman_identity() -> None:
    rng = np.random.default_rng(3)
    for m, k in ((3, 4), (5, 6), (2, 3)):
        matrix = np.array([rng.permutation(k) + 1 for _ in range(m)], dtype=float)
        rho = np.corrcoef(matrix)[np.triu_indices(m, 1)].mean()
        assert kendall_w_item(matrix) == pytest.approx(((m - 1) * rho + 1) / m)


def test_the_tie_correction_makes_tied_unanimity_one() -> None:
    tied = np.array([[1, 2.5, 2.5, 4]] * 3)
    assert kendall_w_item(tied) == pytest.approx(1.0)
    sums = tied.sum(axis=0)
    uncorrected = 12 * ((sums - sums.mean()) ** 2).sum() / (9 * (64 - 4))
    assert uncorrected == pytest.approx(0.9)  # what the uncorrected formula would say
    assert np.isnan(kendall_w_item(np.array([[2.5] * 4] * 3)))  # everything tied: nothing to agree on
    assert np.isnan(kendall_w_item(np.array([[1, 2, 3, 4]])))  # one rater


def test_mean_w_interval_is_a_bootstrap_over_items() -> None:
    ranks = random_rankings(np.random.default_rng(7), 25, ["a", "b", "c"], 4, True, overlap=3)
    n_boot, seed = 200, 5
    got = kendall_w(ranks, n_boot=n_boot, seed=seed).mean
    per_item = kendall_w(ranks, n_boot=0).per_item["w"].to_numpy()
    idx = np.random.default_rng(seed).integers(0, per_item.size, size=(n_boot, per_item.size))
    loop = [per_item[row].mean() for row in idx]
    assert (got.ci_low, got.ci_high) == pytest.approx(tuple(np.quantile(loop, [0.025, 0.975])))


def _alpha_matrix(ranks: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    wide = ranks.pivot_table(index=["item", "slot"], columns="rater", values="rank", aggfunc="first")
    return wide.to_numpy(np.float64), [i for i, _ in wide.index]


def test_alpha_on_ranks_matches_krippendorff_and_a_loop_over_items() -> None:
    ranks = random_rankings(np.random.default_rng(11), 20, ["a", "b", "c", "d"], 4, True, overlap=3)
    matrix, item_of_row = _alpha_matrix(ranks)
    got = rank_alpha(ranks, n_boot=0)
    assert got.estimate == pytest.approx(krippendorff.alpha(matrix.T, level_of_measurement="ordinal"))
    assert got.n_units == 20 and got.n_raters == 4 and got.n_pairable == int((~np.isnan(matrix)).sum())
    n_boot, seed = 150, 2
    boot = rank_alpha(ranks, n_boot=n_boot, seed=seed)
    items = list(dict.fromkeys(item_of_row))
    rows_of = {i: [r for r, it in enumerate(item_of_row) if it == i] for i in items}
    idx = np.random.default_rng(seed).integers(0, len(items), size=(n_boot, len(items)))
    domain = np.unique(matrix[~np.isnan(matrix)])
    loop = []
    for draw in idx:
        rows = [r for d in draw for r in rows_of[items[d]]]
        loop.append(krippendorff.alpha(matrix[rows].T, level_of_measurement="ordinal", value_domain=domain))
    assert (boot.ci_low, boot.ci_high) == pytest.approx(tuple(np.quantile(loop, [0.025, 0.975])))


def test_position_bias_by_display_position() -> None:
    rng = np.random.default_rng(0)
    q = Ranking(k=4)
    rows = []
    for i in range(60):
        for rater in ("a", "b", "c"):
            order = rng.permutation(list("ABCD"))  # the slots at positions 1..4
            best = order[0] if rng.random() < 0.7 else rng.choice(order)  # position 1 tends to win
            rest = [s for s in order if s != best]
            rng.shuffle(rest)
            text = ">".join([best, *rest])
            for slot, rank in q.ranks(text).items():
                rows.append({"item": f"i{i}", "rater": rater, "slot": slot, "rank": rank,
                             "position": list(order).index(slot) + 1})
    ranks = pd.DataFrame(rows)
    bias = position_bias(ranks, 4, n_boot=100, seed=1)
    means = ranks.groupby("position")["rank"].mean()
    assert [e.estimate for e in bias.mean_rank] == pytest.approx(means.tolist())
    assert bias.n_rankings == 180 and bias.expected_rank == 2.5
    first = bias.first[0]
    assert first.n == 180 and first.k == int(((ranks["position"] == 1) & (ranks["rank"] == 1)).sum())
    assert bias.p_holm[0] < 0.001 and first.share > 0.6
    assert all(s.share < 0.25 for s in bias.first[1:])  # the other positions win less than their 1 / 4
    assert bias.mean_rank[0].estimate < 2.0 < min(e.estimate for e in bias.mean_rank[1:])
    payload = bias.to_json()
    assert payload[0]["position"] == 1 and payload[0]["first"]["expected"] == 0.25


def test_implied_pairs_and_bradley_terry() -> None:
    q = Ranking(k=4)
    models = {"A": "alpha", "B": "beta", "C": "gamma", "D": "alpha"}  # two slots of one model: no battle
    rows = [{"item": "x", "rater": "r", "slot": s, "rank": r, "model": models[s], "cohort": "expert"}
            for s, r in q.ranks("C>A=B>D").items()]
    battles = battles_from_ranks(pd.DataFrame(rows))
    got = sorted(zip(battles["slot_a"], battles["slot_b"], battles["winner"], strict=True))
    assert got == [("A", "B", "tie"), ("A", "C", "model_b"), ("B", "C", "model_b"), ("B", "D", "model_a"),
                   ("C", "D", "model_a")]
    assert set(battles["cohort"]) == {"expert"}
    # many rankings of a known order: Bradley-Terry on the implied pairs puts the models in that order
    rng = np.random.default_rng(4)
    strength = {"A": 2.0, "B": 1.0, "C": 0.0, "D": -1.0}
    rows = []
    for i in range(80):
        noisy = {s: v + rng.gumbel() for s, v in strength.items()}
        text = ">".join(sorted(noisy, key=lambda s: -noisy[s]))
        for rater in ("a", "b"):
            rows += [{"item": f"i{i}", "rater": rater, "slot": s, "rank": r, "model": f"model-{s}"}
                     for s, r in q.ranks(text).items()]
    board = rank_models(battles_from_ranks(pd.DataFrame(rows)), n_boot=50, seed=0, item="item")
    assert [r.model for r in board] == ["model-A", "model-B", "model-C", "model-D"]
    # each ranking gives model-A three battles; "items" per model counts (item, pair) verdicts: 3 pairs x 80 items
    assert board[0].n_battles == 80 * 2 * 3 and board[0].n_items == 80 * 3


def test_alpha_on_ranks_with_one_rater_per_item_is_undefined_not_an_error() -> None:
    ranks = pd.DataFrame({"item": ["i1"] * 3 + ["i2"] * 3, "rater": ["r1"] * 3 + ["r2"] * 3,
                          "slot": ["A", "B", "C"] * 2, "rank": [1.0, 2.0, 3.0, 2.0, 1.0, 3.0]})
    got = rank_alpha(ranks, n_boot=10)
    assert not got.defined and got.n_units == 0 and got.n_pairable == 0
