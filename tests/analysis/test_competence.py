"""Competence over time: blocks of queue positions counted by hand, agreement with the rest against a
loop, and a simulated annotator who tires half-way through the queue."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from annotate.analysis.competence import competence_over_time, rest_agreement_per_vote


def test_blocks_counted_by_hand() -> None:
    """x answers 5 items at positions 0-4 (blocks of 3: positions 1-3 and 4-6); y answers items 1 and 2."""
    votes = pd.DataFrame({
        "item": ["g1", "g2", "a1", "i1", "i2", "g1", "i1"],
        "rater": ["x", "x", "x", "x", "x", "y", "y"],
        "label": ["A", "B", "A", "A", "B", "A", "B"],
        "gold": ["A", "A", "B", None, None, "A", None],
        "purpose": ["gold", "gold", "attention", "main", "main", "gold", "main"],
        "active_ms": [5000, 1000, None, 2500, 8000, 4000, 4000],
        "submit_ms": [6000, 1500, 9000, 3000, 9000, 4500, 4500],
        "position": [0, 1, 2, 3, 4, 0, 1],
    })
    cells = {(c.rater, c.block): c for c in competence_over_time(votes, block=3, n_boot=0)}
    x1, x2 = cells["x", 1], cells["x", 2]
    assert (x1.first, x1.last, x1.n_answers) == (1, 3, 3)
    assert (x1.gold.k, x1.gold.n, x1.gold.share) == (1, 2, 0.5)  # g1 right, g2 wrong; a1 is an attention check
    assert (x1.attention_failures.k, x1.attention_failures.n) == (1, 1)  # a1: answered A, expected B
    assert (x1.fast.k, x1.fast.n) == (1, 3)  # 1000 ms; a1 has no active time, its submit time 9000 counts
    assert x1.rest.share == 1.0 and x1.rest.n == 1  # g1: y answered A too
    assert x2.gold.reason == "not enough data (n = 0 answers: no gold item)"
    assert (x2.fast.k, x2.fast.n) == (1, 2)  # 2500 ms
    assert x2.rest.share == 0.0 and x2.rest.n == 1  # i1: y said B; i2 nobody else
    everyone = cells[None, 1]
    assert (everyone.n_answers, everyone.gold.k, everyone.gold.n) == (5, 2, 3)  # x: g1, g2; y: g1
    assert everyone.rest.share == pytest.approx((1 + 1 + 0) / 3)  # x on g1, y on g1, y on i1
    json.dumps([c.to_json() for c in cells.values()], allow_nan=False)


def test_rest_agreement_against_a_loop() -> None:
    rng = np.random.default_rng(0)
    votes = pd.DataFrame({"item": rng.integers(0, 30, 300), "rater": rng.integers(0, 8, 300),
                          "label": rng.choice(["A", "B", "tie"], 300)})
    got = rest_agreement_per_vote(votes).to_numpy()
    first = votes.drop_duplicates(["item", "rater"])
    for k, (item, rater, label) in enumerate(votes.itertuples(index=False)):
        others = first.loc[(first["item"] == item) & (first["rater"] != rater), "label"]
        expected = (others == label).mean() if len(others) else np.nan
        assert got[k] == pytest.approx(expected, nan_ok=True)


def test_a_tiring_annotator_shows_in_the_later_blocks() -> None:
    """Five annotators answer 100 gold items in their own orders; 'tired' is right 90 % of the time for
    the first 40 positions and 40 % after, answering ever faster; the others stay at 90 %."""
    rng = np.random.default_rng(1)
    rows = []
    for rater in ["a", "b", "c", "d", "tired"]:
        for position, item in enumerate(rng.permutation(100)):
            late = rater == "tired" and position >= 40
            right = rng.random() < (0.4 if late else 0.9)
            rows.append({"item": f"i{item}", "rater": rater, "label": "A" if right else "B", "gold": "A",
                         "purpose": "main", "active_ms": 1500 if late else 6000, "submit_ms": None,
                         "position": position})
    cells = {(c.rater, c.block): c for c in competence_over_time(pd.DataFrame(rows), block=40, n_boot=200)}
    early, late = cells["tired", 1], cells["tired", 2]
    assert (early.first, early.last, late.first, late.last) == (1, 40, 41, 80)
    assert early.gold.share > 0.7 and late.gold.share < 0.5  # 31 of 40 right, then 13 of 40
    assert late.gold.ci_high < early.gold.ci_low
    assert late.fast.share == 1.0 and early.fast.share == 0.0
    assert late.rest.share < cells["a", 2].rest.share


def test_blocks_grow_with_the_queue_so_an_annotator_has_at_most_100() -> None:
    from annotate.analysis.competence import BLOCK, MAX_BLOCKS, block_size

    assert block_size(pd.Series([0, 5, BLOCK * MAX_BLOCKS - 1])) == BLOCK  # up to 2,000 positions: blocks of 20
    assert block_size(pd.Series([BLOCK * MAX_BLOCKS])) == BLOCK + 1
    assert block_size(pd.Series([None, 4999.0])) == 50
    assert block_size(pd.Series([], dtype=float)) == BLOCK
    rng = np.random.default_rng(2)
    n = 5_000
    votes = pd.DataFrame({"item": np.tile(np.arange(n), 2), "rater": np.repeat(["x", "y"], n),
                          "label": rng.choice(["A", "B"], 2 * n), "gold": None, "purpose": "main",
                          "active_ms": 4000, "submit_ms": None, "position": np.tile(np.arange(n), 2)})
    block = block_size(votes["position"])
    cells = competence_over_time(votes, block=block, n_boot=0)
    x = [c for c in cells if c.rater == "x"]
    assert block == 50 and len(x) == MAX_BLOCKS
    assert (x[0].first, x[0].last, x[-1].first, x[-1].last) == (1, 50, 4951, 5000)
    assert all(c.n_answers == 50 for c in x)


def test_a_cell_of_thousands_of_items_is_resampled_by_pattern(monkeypatch) -> None:
    """A cell above PATTERN_UNITS items (long blocks) draws how many of its draws fall on each distinct
    (k, n), not a weight per item; its interval agrees with the item bootstrap within Monte Carlo error."""
    import annotate.analysis.cell_ratios as cell_ratios_module
    from annotate.analysis.bootstrap import estimate_from_features
    from annotate.analysis.cell_ratios import PATTERN_UNITS, cell_ratios

    rng = np.random.default_rng(5)
    m = PATTERN_UNITS + 3000
    n = rng.integers(1, 4, m).astype(float)
    k = rng.binomial(n.astype(int), 0.7).astype(float)
    expected = estimate_from_features(np.column_stack([k, n]), lambda s: s[:, 0] / s[:, 1], n_boot=400, seed=2,
                                      n_units=m, n_raters=0, n_pairable=int(n.sum()))

    def no_unit_draws(*args, **kwargs):
        raise AssertionError("drew units")

    monkeypatch.setattr(cell_ratios_module, "resample_counts", no_unit_draws)
    got = cell_ratios(np.zeros(m, dtype=np.int64), k, n, 1, n_boot=400, seed=2)
    assert got.share[0] == k.sum() / n.sum() and got.n_units[0] == m
    width = expected.ci_high - expected.ci_low
    assert abs(got.ci_low[0] - expected.ci_low) < 0.15 * width and abs(got.ci_high[0] - expected.ci_high) < 0.15 * width


def test_rest_agreement_counts_each_other_raters_first_vote_once() -> None:
    """A rater's repeat on an item counts against the others' first votes, never against their repeats."""
    votes = pd.DataFrame({"item": ["i", "i", "i", "i"], "rater": ["x", "y", "y", "z"],
                          "label": ["A", "B", "A", "A"]})
    # x: others' firsts are y's B and z's A; y's repeat (A) is y's own: against x's A and z's A
    assert rest_agreement_per_vote(votes).tolist() == [0.5, 0.0, 1.0, 0.5]


def test_large_cells_match_one_unique_and_one_interval_per_cell() -> None:
    """Several large cells (their patterns by lexsort, their intervals taken in one call) give, bit for bit,
    what a cell alone gives with ``np.unique(axis=0)`` and its own interval, the way it was computed before."""
    from annotate.analysis.bootstrap import safe_ratio
    from annotate.analysis.cell_ratios import PATTERN_UNITS, _intervals, cell_ratios

    rng = np.random.default_rng(11)
    sizes = [PATTERN_UNITS + 1, 40, PATTERN_UNITS + 700, 3, PATTERN_UNITS + 50]
    cell = np.repeat(np.arange(len(sizes)), sizes)
    n = rng.integers(1, 5, cell.size).astype(float)
    k = np.where(rng.random(cell.size) < 0.5, rng.binomial(n.astype(int), 0.6), rng.random(cell.size) * n)
    k[cell == 4] = np.round(k[cell == 4])  # few patterns in one cell, many in the others
    got = cell_ratios(cell, k, n, len(sizes), n_boot=300, seed=4)
    for c in (0, 2, 4):
        kc, nc = k[cell == c], n[cell == c]
        patterns, counts = np.unique(np.column_stack([kc, nc]), axis=0, return_counts=True)
        drawn = np.random.default_rng(4).multinomial(kc.size, counts / kc.size, size=300).astype(np.float64)
        sums = drawn @ patterns
        lo, hi = _intervals(safe_ratio(sums[:, :1], sums[:, 1:]))
        assert (got.ci_low[c], got.ci_high[c]) == (lo[0], hi[0])
        assert got.share[c] == safe_ratio(np.array([kc.sum()]), np.array([nc.sum()]))[0]
