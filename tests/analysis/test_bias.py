"""Position and length bias, exact binomial test and Wilson interval."""

from __future__ import annotations

import json
from fractions import Fraction
from math import comb

import pandas as pd
import pytest

from annotate.analysis.bias import binomial_test, length_bias, position_bias, wilson_interval


def exact_two_sided(k: int, n: int, p: Fraction) -> Fraction:
    """R binom.test's two-sided p-value in rational arithmetic: sum of P(X = i) <= P(X = k)."""
    pmf = [comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(n + 1)]
    return sum((x for x in pmf if x <= pmf[k]), Fraction(0))


def test_binomial_known_value() -> None:
    """n = 10, k = 9, p = 0.5: P = 2 * (C(10,9) + C(10,10)) / 2^10 = 22 / 1024 = 0.021484375."""
    assert binomial_test(9, 10) == pytest.approx(0.021484375, abs=1e-15)
    assert binomial_test(1, 10) == pytest.approx(0.021484375, abs=1e-15)
    assert binomial_test(5, 10) == 1.0


@pytest.mark.parametrize(
    ("k", "n", "p"),
    [(0, 1, "1/2"), (3, 7, "1/2"), (12, 40, "1/2"), (3, 20, "3/10"), (17, 25, "2/5"), (0, 30, "1/10"), (60, 60, "1/2")],
)
def test_binomial_matches_exact_rational(k: int, n: int, p: str) -> None:
    """Against the exact sum (R binom.test rule), including asymmetric nulls where doubling is wrong."""
    expected = float(min(Fraction(1), exact_two_sided(k, n, Fraction(p))))
    assert binomial_test(k, n, float(Fraction(p))) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_binomial_large_n_is_fast_and_sane() -> None:
    """n = 1e6: normal approximation z = 1.4 gives p ~ 0.1615; the exact test agrees to 1e-3."""
    assert binomial_test(500_700, 1_000_000) == pytest.approx(0.1615, abs=1e-3)
    assert binomial_test(0, 0) != binomial_test(0, 0)  # NaN when there is nothing to test


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)],
)
def test_wilson_newcombe_1998(k: int, n: int, low: float, high: float) -> None:
    """Newcombe (1998), "Two-sided confidence intervals for the single proportion", Stat. Med. 17:857,
    Table II, method 3 (Wilson score without continuity correction)."""
    lo, hi = wilson_interval(k, n)
    assert (round(lo, 4), round(hi, 4)) == (low, high)


def test_position_bias_overall_and_per_rater() -> None:
    judgments = pd.DataFrame(
        {
            "rater": ["a"] * 10 + ["b"] * 4,
            "label_side": ["left"] * 9 + ["right"] + ["tie", "left", "right", "both_bad"],
        }
    )
    report = position_bias(judgments)
    assert (report.overall.k, report.overall.n, report.overall.n_excluded) == (10, 12, 2)
    a, b = report.per_rater
    assert a.rater == "a" and a.share == 0.9 and a.p_value == pytest.approx(0.021484375)
    assert (b.k, b.n, b.n_excluded, b.share) == (1, 2, 2, 0.5)
    assert report.overall.ci_low < report.overall.share < report.overall.ci_high
    doc = json.loads(json.dumps(report.to_json(), allow_nan=False))
    assert doc["overall"]["rater"] is None and doc["per_rater"][0]["n"] == 10


def test_position_bias_rejects_unknown_sides() -> None:
    with pytest.raises(ValueError, match="unknown values"):
        position_bias(pd.DataFrame({"rater": ["a"], "label_side": ["middle"]}))


def test_length_bias_counts_only_decisive_unequal_votes() -> None:
    """Vote 1: A longer, A chosen (hit).  Vote 2: equal lengths (excluded).  Vote 3: tie (excluded).
    Vote 4: B longer, A chosen (miss).  Vote 5: B longer, B chosen (hit)."""
    votes = pd.DataFrame(
        {
            "rater": ["x", "x", "y", "y", "y"],
            "label": ["A", "B", "tie", "A", "B"],
            "len_a": [120, 50, 10, 30, 30],
            "len_b": [100, 50, 90, 300, 301],
        }
    )
    report = length_bias(votes)
    assert (report.overall.k, report.overall.n, report.overall.n_excluded) == (2, 3, 2)
    x, y = report.per_rater
    assert (x.k, x.n) == (1, 1) and (y.k, y.n) == (1, 2)
    assert report.kind == "length"
    only_overall = length_bias(votes.drop(columns="rater"))
    assert only_overall.per_rater == () and only_overall.overall.n == 3


def test_first_shown_bias_counts_picks_of_the_slot_shown_first() -> None:
    """Judge j saw A first on 8 items and B first on 2; it picked the first-shown response 9 times of 10
    non-tie votes: share 0.9, p = 22/1024 as in `test_binomial_known_value`; unknown order is dropped."""
    from annotate.analysis.bias import first_shown_bias

    votes = pd.DataFrame({
        "rater": ["j"] * 12 + ["k"] * 3,
        "label": ["A"] * 7 + ["B"] + ["B", "B"] + ["tie", "A"] + ["A", "B", "both_bad"],
        "shown_first": ["A"] * 8 + ["B", "B"] + ["A", None] + ["B", "B", "A"],
    })
    report = first_shown_bias(votes)
    j, k = report.per_rater
    assert (j.rater, j.k, j.n, j.n_excluded) == ("j", 7 + 2, 10, 1)  # 7 picks of A shown first, 2 of B shown first
    assert j.share == pytest.approx(0.9) and j.p_value == pytest.approx(0.021484375, abs=1e-15)
    assert (k.k, k.n, k.n_excluded) == (1, 2, 1)
    assert (report.overall.k, report.overall.n) == (10, 12) and report.kind == "first_shown"
    json.dumps(report.to_json(), allow_nan=False)


def test_per_rater_shares_equal_one_proportion_each_and_test_each_count_once(monkeypatch) -> None:
    """Raters with the same (k, n) share one interval and one exact test, the figures those of `Proportion.of`."""
    from dataclasses import replace

    import numpy as np
    import pandas as pd

    from annotate.analysis import bias

    rng = np.random.default_rng(4)
    raters = rng.integers(0, 300, size=4000)
    frame = pd.DataFrame({"rater": [f"r{r}" for r in raters], "label": rng.choice(["A", "B", "tie"], size=4000),
                          "len_a": rng.integers(1, 4, size=4000), "len_b": rng.integers(1, 4, size=4000)})
    calls: list[tuple[int, int]] = []
    exact = bias.binomial_test

    def counted(k: int, n: int, p: float = 0.5) -> float:
        calls.append((k, n))
        return exact(k, n, p)

    monkeypatch.setattr(bias, "binomial_test", counted)
    report = bias.length_bias(frame)
    per_rater = report.per_rater
    distinct = {(p.k, p.n) for p in per_rater}
    assert len(per_rater) == 300 and len(distinct) < 300
    assert len(calls) == len(distinct) + 1  # each (k, n) once, and the pooled share
    monkeypatch.setattr(bias, "binomial_test", exact)
    for p in per_rater:
        assert p == replace(bias.Proportion.of(p.rater, p.k, p.n, p.n_excluded), n_items=p.n)
