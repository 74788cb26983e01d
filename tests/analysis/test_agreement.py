"""Agreement coefficients against published values, the krippendorff package and hand computation."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from annotate.analysis.agreement import (
    LEVELS,
    agreement_table,
    cohen_kappa,
    fleiss_kappa,
    gwet_ac1,
    interpret_alpha,
    krippendorff_alpha,
    percent_agreement,
    ratings_matrix,
)

NAN = np.nan

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C (nominal data, any
# number of observers, missing data): 4 observers x 12 units, values 1..5.  Rows = units here.
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
).T

# irrCAC's cac.raw4raters (Gwet 2014, Handbook of Inter-Rater Reliability, 4th ed., p. 120): the same
# data except that unit 12's single rating "3" is attributed to rater 3 instead of rater 2, which
# changes no coefficient (a single rating is never paired and has the same category).
CAC_RAW4RATERS = np.array(
    [
        [1, 1, NAN, 1],
        [2, 2, 3, 2],
        [3, 3, 3, 3],
        [3, 3, 3, 3],
        [2, 2, 2, 2],
        [1, 2, 3, 4],
        [4, 4, 4, 4],
        [1, 1, 2, 1],
        [2, 2, 2, 2],
        [NAN, 5, 5, 5],
        [NAN, NAN, 1, 1],
        [NAN, NAN, 3, NAN],
    ]
)


def matrix_from_counts(counts: list[list[int]]) -> np.ndarray:
    """A units x raters matrix (codes 0..q-1) from per-unit category counts; rater identity is arbitrary."""
    counts_arr = np.asarray(counts)
    width = int(counts_arr.sum(axis=1).max())
    m = np.full((len(counts_arr), width), NAN)
    for u, row in enumerate(counts_arr):
        values = np.repeat(np.arange(len(row)), row)
        m[u, : values.size] = values
    return m


def matrix_from_table(table: list[list[int]]) -> np.ndarray:
    """A units x 2 matrix from a two-rater contingency table (rows: rater 1's category)."""
    rows = [(i, j) for i, line in enumerate(table) for j, n in enumerate(line) for _ in range(n)]
    return np.asarray(rows, dtype=float)


# ----------------------------------------------------------------------------------------------
# Krippendorff's alpha
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_alpha_krippendorff_2011_worked_example(level: str, published: float) -> None:
    """Krippendorff (2011), section C and its level-of-measurement sequel: alpha = 0.743 (nominal),
    0.815 (ordinal), 0.849 (interval), 0.797 (ratio) on the 4 x 12 example with missing data.
    Also equal to the krippendorff package (0.9) to 1e-12, and 11 pairable units / 40 pairable values
    (Krippendorff's n = 40 in the worked example)."""
    e = krippendorff_alpha(KRIPPENDORFF_2011, level, n_boot=0)
    assert round(e.estimate, 3) == published
    assert e.estimate == pytest.approx(krippendorff.alpha(KRIPPENDORFF_2011.T, level_of_measurement=level), abs=1e-12)
    assert (e.n_units, e.n_raters, e.n_pairable) == (11, 4, 40)


def test_alpha_with_string_labels_and_explicit_order() -> None:
    """The krippendorff package's docstring example: the same data written as words with an ordered
    value domain gives ordinal alpha 0.815 and nominal 0.743 (Krippendorff 2011)."""
    words = ["very low", "low", "mid", "high", "very high"]
    rows = [
        (u, r, words[int(v) - 1]) for u in range(12) for r in range(4) if not np.isnan(v := KRIPPENDORFF_2011[u, r])
    ]
    long_df = pd.DataFrame(rows, columns=["unit", "rater", "label"])
    matrix, units, raters, categories = ratings_matrix(long_df, order=words)
    assert categories == tuple(words)
    assert len(units) == 12 and len(raters) == 4
    assert round(krippendorff_alpha(matrix, "ordinal", categories, n_boot=0).estimate, 3) == 0.815
    assert round(krippendorff_alpha(matrix, "nominal", categories, n_boot=0).estimate, 3) == 0.743


def _random_matrix(rng: np.random.Generator) -> np.ndarray:
    n_units, n_raters = int(rng.integers(2, 60)), int(rng.integers(2, 8))
    n_values = int(rng.integers(2, 9))
    values = rng.choice(rng.uniform(0.5, 20.0, size=n_values).round(2), size=(n_units, n_raters))
    values[rng.random(values.shape) < rng.uniform(0.0, 0.6)] = NAN
    return values


@pytest.mark.parametrize("level", LEVELS)
def test_alpha_matches_krippendorff_package_on_random_data(level: str) -> None:
    """300 random matrices with missing values and non-integer values: |ours - krippendorff.alpha| < 1e-9."""
    rng = np.random.default_rng(20240501)
    checked = 0
    for _ in range(300):
        m = _random_matrix(rng)
        present = m[~np.isnan(m)]
        pairable = ((~np.isnan(m)).sum(axis=1) >= 2).any()
        if np.unique(present).size < 2 or not pairable:
            continue
        with np.errstate(all="ignore"):
            ref = krippendorff.alpha(m.T, level_of_measurement=level)
        ours = krippendorff_alpha(m, level, n_boot=0).estimate
        if np.isfinite(ref):
            assert ours == pytest.approx(ref, abs=1e-9)
            checked += 1
        else:
            assert np.isnan(ours)
    assert checked > 250


@st.composite
def small_matrices(draw: st.DrawFn) -> np.ndarray:
    """Units x raters matrices with values 0..4 and missing cells."""
    n_units, n_raters = draw(st.integers(2, 25)), draw(st.integers(2, 5))
    cells = draw(
        st.lists(st.one_of(st.none(), st.integers(0, 4)), min_size=n_units * n_raters, max_size=n_units * n_raters)
    )
    return np.array([NAN if v is None else v for v in cells], dtype=float).reshape(n_units, n_raters)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=small_matrices(), level=st.sampled_from(LEVELS))
def test_alpha_property_matches_krippendorff(m: np.ndarray, level: str) -> None:
    """Hypothesis: any small integer matrix with missing values agrees with krippendorff.alpha."""
    present = m[~np.isnan(m)]
    assume(np.unique(present).size >= 2 and ((~np.isnan(m)).sum(axis=1) >= 2).any())
    with np.errstate(all="ignore"):
        ref = krippendorff.alpha(m.T, level_of_measurement=level)
    ours = krippendorff_alpha(m, level, n_boot=0).estimate
    if np.isfinite(ref):
        assert ours == pytest.approx(ref, abs=1e-9)
    else:
        assert np.isnan(ours)


def test_alpha_bootstrap_equals_explicit_resampling() -> None:
    """The vectorised bootstrap equals a plain loop: resample the matrix's units with the same index
    matrix (default_rng(seed).integers(0, n, (B, n))), call krippendorff.alpha on each resample (it
    pairs the pairable units drawn), take the 2.5 / 97.5 percentiles."""
    m = KRIPPENDORFF_2011
    assert ((~np.isnan(m)).sum(axis=1) < 2).any()  # units that cannot be paired are drawn too
    n_boot, seed = 300, 11
    idx = np.random.default_rng(seed).integers(0, m.shape[0], size=(n_boot, m.shape[0]))
    for level in LEVELS:
        loop = []
        for row in idx:
            sample = m[row]
            sample = sample[(~np.isnan(sample)).sum(axis=1) >= 2]
            with np.errstate(all="ignore"):
                value = (
                    krippendorff.alpha(sample.T, level_of_measurement=level)
                    if np.unique(sample[~np.isnan(sample)]).size > 1
                    else NAN
                )
            loop.append(value)
        loop_arr = np.asarray(loop)
        expected = np.quantile(loop_arr[np.isfinite(loop_arr)], [0.025, 0.975])
        e = krippendorff_alpha(m, level, n_boot=n_boot, seed=seed)
        assert (e.ci_low, e.ci_high) == pytest.approx(tuple(expected), abs=1e-9)


def test_a_tables_coefficients_and_pairs_share_one_draw() -> None:
    """agreement_table draws its resamples of the matrix's units once (60 units, as many patterns: units
    are drawn): a pair's kappa interval is a plain loop over those resamples, each kappa from the jointly
    rated units drawn, and every estimate
    is the function of the same name's."""
    rng = np.random.default_rng(4)
    m = rng.integers(0, 3, size=(60, 4)).astype(float)
    m[rng.random(m.shape) < 0.3] = NAN
    n_boot, seed = 150, 9
    table = agreement_table(m, "nominal", [0, 1, 2], ["a", "b", "c", "d"], n_boot=n_boot, seed=seed)
    idx = np.random.default_rng(seed).integers(0, m.shape[0], size=(n_boot, m.shape[0]))

    def kappa(x: np.ndarray, y: np.ndarray) -> float:
        p_o = float(np.mean(x == y))
        p_e = sum(float(np.mean(x == c)) * float(np.mean(y == c)) for c in (0, 1, 2))
        return (p_o - p_e) / (1 - p_e) if p_e < 1 else NAN

    for pair in table.cohen_kappa:
        a, b = ("abcd".index(r) for r in pair.raters)
        both = ~np.isnan(m[:, a]) & ~np.isnan(m[:, b])
        assert both.sum() < m.shape[0]
        loop = np.array([kappa(m[row][both[row], a], m[row][both[row], b]) for row in idx])
        expected = np.quantile(loop[np.isfinite(loop)], [0.025, 0.975])
        assert (pair.estimate.ci_low, pair.estimate.ci_high) == pytest.approx(tuple(expected), abs=1e-9)
        assert pair.estimate.estimate == cohen_kappa(m, a, b, [0, 1, 2], n_boot=0).estimate


def test_alpha_bootstrap_is_seeded() -> None:
    a = krippendorff_alpha(KRIPPENDORFF_2011, "interval", n_boot=200, seed=3)
    b = krippendorff_alpha(KRIPPENDORFF_2011, "interval", n_boot=200, seed=3)
    c = krippendorff_alpha(KRIPPENDORFF_2011, "interval", n_boot=200, seed=4)
    assert a == b
    assert a.ci != c.ci
    assert a.ci_low <= a.estimate <= a.ci_high <= 1.0


def test_alpha_undefined_cases_are_nan() -> None:
    """No variation (D_e = 0) or no pairable unit: alpha is undefined, reported as NaN / None."""
    same = np.array([[1.0, 1.0], [1.0, 1.0]])
    assert np.isnan(krippendorff_alpha(same, n_boot=10).estimate)
    lonely = np.array([[1.0, NAN], [NAN, 2.0]])
    e = krippendorff_alpha(lonely, n_boot=10)
    assert np.isnan(e.estimate) and e.n_units == 0
    assert e.to_json() == {"estimate": None, "ci": [None, None], "n_units": 0, "n_raters": 0, "n_pairable": 0}


def test_values_outside_categories_are_rejected() -> None:
    with pytest.raises(ValueError, match="outside the categories"):
        krippendorff_alpha(np.array([[1.0, 7.0]]), "nominal", categories=[1, 2, 3])
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha(KRIPPENDORFF_2011, "cardinal")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------------------------
# Percent agreement, Fleiss' kappa, Gwet's AC1
# ----------------------------------------------------------------------------------------------


def _exact_count_family(m: np.ndarray, q: int) -> tuple[Fraction, Fraction, Fraction]:
    """(p_a, Fleiss kappa, AC1) in exact rational arithmetic, straight from Gwet (2014) ch. 2 / irrCAC."""
    rows = [[int(v) for v in row if not np.isnan(v)] for row in m]
    rows = [r for r in rows if r]
    cats = sorted({v for r in rows for v in r})
    agree = [
        Fraction(sum(r.count(c) * (r.count(c) - 1) for c in cats), len(r) * (len(r) - 1)) for r in rows if len(r) >= 2
    ]
    p_a = sum(agree, Fraction(0)) / len(agree)
    pi = {c: sum((Fraction(r.count(c), len(r)) for r in rows), Fraction(0)) / len(rows) for c in cats}
    pe_fleiss = sum(p * p for p in pi.values())
    pe_gwet = sum(p * (1 - p) for p in pi.values()) / (q - 1)
    return p_a, (p_a - pe_fleiss) / (1 - pe_fleiss), (p_a - pe_gwet) / (1 - pe_gwet)


def test_count_family_irrcac_raw4raters() -> None:
    """irrCAC README (Gwet 2014 data cac.raw4raters): pa.coeff.raw 0.8181818, fleiss.kappa.raw 0.76117
    (p_e 0.2387153), gwet.ac1.raw 0.77544 (p_e 0.1903212), krippen.alpha.raw 0.74342.

    The brief quoted AC1 = 0.7754605 and Fleiss = 0.7605; neither survives exact computation: the
    rational-arithmetic values below are AC1 = 0.7754441 and kappa = 0.7611693, which round to the
    printed irrCAC outputs 0.77544 / 0.76117, so those two remembered figures are misquotes."""
    m = CAC_RAW4RATERS
    p_a, kappa, ac1 = _exact_count_family(m, q=5)
    assert float(p_a) == pytest.approx(0.8181818, abs=5e-8)
    assert round(float(kappa), 5) == 0.76117
    assert round(float(ac1), 5) == 0.77544
    assert percent_agreement(m, n_boot=0).estimate == pytest.approx(float(p_a), abs=1e-12)
    assert fleiss_kappa(m, n_boot=0).estimate == pytest.approx(float(kappa), abs=1e-12)
    assert gwet_ac1(m, n_boot=0).estimate == pytest.approx(float(ac1), abs=1e-12)
    assert round(krippendorff_alpha(m, n_boot=0).estimate, 5) == 0.74342


def test_count_family_irrcac_distrib_6raters() -> None:
    """irrCAC README, distrib.6raters (15 patients x 6 psychiatrists x 5 diagnoses, from Fleiss 1971):
    fleiss.kappa.dist 0.4139265, gwet.ac1.dist 0.4448007, pa 0.5511111, krippen.alpha.dist 0.4204384.
    (Fleiss 1971 printed kappa = .430 for his table; irrCAC's transcription gives 0.4139, which we
    cannot check against the paper here, so we assert irrCAC's published outputs.)"""
    counts = [
        [0, 0, 0, 6, 0],
        [0, 3, 0, 0, 3],
        [0, 1, 4, 0, 1],
        [0, 0, 0, 0, 6],
        [0, 3, 0, 3, 0],
        [2, 0, 4, 0, 0],
        [0, 0, 4, 0, 2],
        [2, 0, 3, 1, 0],
        [2, 0, 0, 4, 0],
        [0, 0, 0, 0, 6],
        [1, 0, 0, 5, 0],
        [1, 1, 0, 4, 0],
        [0, 3, 3, 0, 0],
        [1, 0, 0, 5, 0],
        [0, 2, 0, 3, 1],
    ]
    m = matrix_from_counts(counts)
    assert fleiss_kappa(m, n_boot=0).estimate == pytest.approx(0.4139265, abs=5e-8)
    assert gwet_ac1(m, n_boot=0).estimate == pytest.approx(0.4448007, abs=5e-8)
    assert percent_agreement(m, n_boot=0).estimate == pytest.approx(0.5511111, abs=5e-8)
    assert krippendorff_alpha(m, n_boot=0).estimate == pytest.approx(0.4204384, abs=5e-8)


def test_fleiss_wikipedia_example() -> None:
    """Wikipedia "Fleiss' kappa" worked example: 10 subjects, 14 raters, 5 categories; P-bar = 0.378,
    P-bar_e = 0.213, kappa = 0.210."""
    counts = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    m = matrix_from_counts(counts)
    assert round(fleiss_kappa(m, n_boot=0).estimate, 3) == 0.210
    assert round(percent_agreement(m, n_boot=0).estimate, 3) == 0.378
    e = fleiss_kappa(m, n_boot=0)
    assert (e.n_units, e.n_raters, e.n_pairable) == (10, 14, 140)


def test_gwet_ac1_uses_the_number_of_categories() -> None:
    """AC1's chance term divides by q - 1: declaring unused categories (irrCAC categ.labels) changes it."""
    m = CAC_RAW4RATERS
    q5 = gwet_ac1(m, categories=[1, 2, 3, 4, 5], n_boot=0).estimate
    q7 = gwet_ac1(m, categories=[1, 2, 3, 4, 5, 6, 7], n_boot=0).estimate
    assert q5 == pytest.approx(_as_float(_exact_count_family(m, q=5)[2]))
    assert q7 == pytest.approx(_as_float(_exact_count_family(m, q=7)[2]))
    assert q7 != pytest.approx(q5)
    # Fleiss and percent agreement do not depend on unused categories.
    assert fleiss_kappa(m, categories=[1, 2, 3, 4, 5, 6, 7], n_boot=0).estimate == pytest.approx(0.7611692754)


def _as_float(x: Fraction) -> float:
    return float(x)


# ----------------------------------------------------------------------------------------------
# Cohen's kappa
# ----------------------------------------------------------------------------------------------


def test_cohen_wikipedia_50_proposals() -> None:
    """Wikipedia "Cohen's kappa" example: 50 grant proposals, yes/yes 20, yes/no 5, no/yes 10, no/no 15;
    p_o = 0.7, p_e = 0.5, kappa = 0.4."""
    m = matrix_from_table([[20, 5], [10, 15]])
    e = cohen_kappa(m, 0, 1, n_boot=0)
    assert e.estimate == pytest.approx(0.4, abs=1e-12)
    assert (e.n_units, e.n_raters, e.n_pairable) == (50, 2, 100)


SEXUAL_FUN = [[7, 7, 2, 3], [2, 8, 3, 7], [1, 5, 4, 9], [2, 8, 9, 14]]
"""vcd::SexualFun (Agresti 1990, from Hout et al. 1987): husband x wife, 91 couples, 4 ordered answers."""


def _exact_weighted_kappa(table: list[list[int]], power: int) -> Fraction:
    """Cohen (1968) with agreement weights 1 - (|i-j| / (q-1))^power, exactly (power 0 = unweighted)."""
    q = len(table)
    n = sum(map(sum, table))
    rows = [sum(r) for r in table]
    cols = [sum(table[i][j] for i in range(q)) for j in range(q)]

    def w(i: int, j: int) -> Fraction:
        if power == 0:
            return Fraction(int(i == j))
        return 1 - Fraction(abs(i - j), q - 1) ** power

    po = sum(w(i, j) * table[i][j] for i in range(q) for j in range(q)) / Fraction(n)
    pe = sum(w(i, j) * rows[i] * cols[j] for i in range(q) for j in range(q)) / Fraction(n * n)
    return (po - pe) / (1 - pe)


@pytest.mark.parametrize(("weights", "power", "published"), [("unweighted", 0, 0.1293), ("linear", 1, 0.2374)])
def test_cohen_vcd_sexualfun(weights: str, power: int, published: float) -> None:
    """vcd's Kappa(SexualFun) example (Friendly 2000, Visualizing Categorical Data, p. 91): unweighted
    kappa 0.1293, weighted ("Equal-Spacing" = linear) 0.2374.  By hand: p_o = 33/91, p_e = 2219/8281,
    kappa = 0.12933; the exact rational computation confirms both published figures."""
    m = matrix_from_table(SEXUAL_FUN)
    exact = float(_exact_weighted_kappa(SEXUAL_FUN, power))
    assert round(exact, 4) == published
    assert cohen_kappa(m, 0, 1, weights=weights, n_boot=0).estimate == pytest.approx(exact, abs=1e-12)  # type: ignore[arg-type]


def test_cohen_quadratic_by_hand() -> None:
    """Quadratic ("Fleiss-Cohen") weights 1 - (i-j)^2/(q-1)^2 on SexualFun; no published figure at hand, so
    checked against the exact rational computation of Cohen (1968): kappa_w = 0.3320456 (= 1 - sum v n_ij /
    sum v n_i. n_.j / n with v = (i-j)^2)."""
    m = matrix_from_table(SEXUAL_FUN)
    exact = float(_exact_weighted_kappa(SEXUAL_FUN, 2))
    assert exact == pytest.approx(0.3320456, abs=1e-7)
    assert cohen_kappa(m, 0, 1, weights="quadratic", n_boot=0).estimate == pytest.approx(exact, abs=1e-12)


def test_cohen_uses_only_jointly_rated_units_and_category_positions() -> None:
    """Units rated by only one of the two are dropped; weights follow the category order, not values."""
    base = matrix_from_table(SEXUAL_FUN)
    with_gaps = np.vstack([base, [[0.0, NAN], [NAN, 3.0]]])
    gaps, full = cohen_kappa(with_gaps, 0, 1, n_boot=0), cohen_kappa(base, 0, 1, n_boot=0)
    assert (gaps.estimate, gaps.n_units) == (full.estimate, full.n_units) == (pytest.approx(0.12933025), 91)
    spaced = np.array([1.0, 2.0, 5.0, 10.0])[base.astype(int)]
    for kind in ("unweighted", "linear", "quadratic"):
        a = cohen_kappa(base, 0, 1, weights=kind, n_boot=0).estimate  # type: ignore[arg-type]
        b = cohen_kappa(spaced, 0, 1, [1, 2, 5, 10], weights=kind, n_boot=0).estimate  # type: ignore[arg-type]
        assert a == pytest.approx(b, abs=1e-12)


# ----------------------------------------------------------------------------------------------
# ratings_matrix, agreement_table, interpret_alpha
# ----------------------------------------------------------------------------------------------


def test_ratings_matrix_codes_and_numbers() -> None:
    long_df = pd.DataFrame(
        {
            "unit": ["u2", "u1", "u1", "u2", "u3"],
            "rater": ["b", "a", "b", "a", "a"],
            "label": ["tie", "A", "B", None, "A"],
        }
    )
    m, units, raters, cats = ratings_matrix(long_df)
    assert units == ("u1", "u2", "u3") and raters == ("a", "b") and cats == ("A", "B", "tie")
    np.testing.assert_array_equal(m, [[0, 1], [NAN, 2], [0, NAN]])

    numeric = pd.DataFrame({"unit": [1, 1, 2], "rater": ["x", "y", "x"], "label": [5, 3, 4]})
    m, _, _, cats = ratings_matrix(numeric)
    assert cats == (3, 4, 5)
    np.testing.assert_array_equal(m, [[5, 3], [4, NAN]])


def test_ratings_matrix_rejects_duplicates_and_unknown_order() -> None:
    dup = pd.DataFrame({"unit": [1, 1], "rater": ["a", "a"], "label": ["x", "y"]})
    with pytest.raises(ValueError, match="more than one rating"):
        ratings_matrix(dup)
    df = pd.DataFrame({"unit": [1], "rater": ["a"], "label": ["meh"]})
    with pytest.raises(ValueError, match="not in order"):
        ratings_matrix(df, order=["bad", "good"])
    with pytest.raises(ValueError, match="missing columns"):
        ratings_matrix(df.rename(columns={"label": "grade"}))


def test_agreement_table_json_shape_nominal_and_ordinal() -> None:
    raters = ["r1", "r2", "r3", "r4"]
    nominal = agreement_table(KRIPPENDORFF_2011, "nominal", [1, 2, 3, 4, 5], raters, n_boot=100, seed=1)
    doc = json.loads(json.dumps(nominal.to_json(), allow_nan=False))
    assert list(doc) == [
        "level",
        "krippendorff_alpha",
        "fleiss_kappa",
        "gwet_ac1",
        "percent_agreement",
        "cohen_kappa",
    ]
    assert doc["level"] == "nominal"
    assert set(doc["krippendorff_alpha"]) == {"estimate", "ci", "n_units", "n_raters", "n_pairable"}
    assert doc["krippendorff_alpha"]["estimate"] == pytest.approx(0.743421052631579)
    assert len(doc["cohen_kappa"]) == 6
    first = doc["cohen_kappa"][0]
    assert list(first) == [
        "raters",
        "estimate",
        "ci",
        "weighted_linear",
        "weighted_linear_ci",
        "weighted_quadratic",
        "weighted_quadratic_ci",
        "n_units",
    ]
    assert first["raters"] == ["r1", "r2"] and first["weighted_linear"] is None
    assert first["n_units"] == 9

    ordinal = agreement_table(KRIPPENDORFF_2011, "ordinal", [1, 2, 3, 4, 5], raters, n_boot=100, seed=1)
    pair = ordinal.cohen_kappa[0]
    assert pair.weighted_linear is not None and pair.weighted_quadratic is not None
    assert ordinal.krippendorff_alpha.estimate == pytest.approx(0.8153875, abs=1e-7)
    assert ordinal.fleiss_kappa == nominal.fleiss_kappa
    json.dumps(ordinal.to_json(), allow_nan=False)


def test_agreement_table_skips_pairs_without_common_units() -> None:
    m = np.array([[1.0, 1.0, NAN], [2.0, 2.0, NAN], [NAN, 1.0, 1.0], [NAN, 2.0, 1.0]])
    table = agreement_table(m, "nominal", None, ["a", "b", "c"], n_boot=0)
    assert [p.raters for p in table.cohen_kappa] == [("a", "b"), ("b", "c")]
    with pytest.raises(ValueError, match="one rater id per column"):
        agreement_table(m, "nominal", None, ["a", "b"], n_boot=0)


@pytest.mark.parametrize(
    ("alpha", "reading"),
    [(0.95, "reliable"), (0.8, "reliable"), (0.7999, "tentative"), (0.667, "tentative"), (0.66, "unreliable")],
)
def test_interpret_alpha(alpha: float, reading: str) -> None:
    """Krippendorff (2004, section 11.4.4): rely on alpha >= .800, tentative conclusions for .667-.800."""
    assert interpret_alpha(alpha) == reading
    assert interpret_alpha(float("nan")) == "unreliable"


# ----------------------------------------------------------------------------------------------
# Weighted kappa at the interval and ratio levels: weights on the label values
# ----------------------------------------------------------------------------------------------

GRADES_X = [1.0, 2.0, 2.0, 5.0, 10.0, 10.0, 1.0, 5.0, 2.0, 10.0, 5.0, 1.0]
GRADES_Y = [1.0, 2.0, 5.0, 5.0, 10.0, 5.0, 2.0, 10.0, 1.0, 10.0, 10.0, 2.0]


def _kappa_from_pairs(x: list[float], y: list[float], power: int) -> Fraction:
    """Cohen's (1968) weighted kappa straight from its definition on the raw pairs, exactly:
    1 - mean disagreement of the observed pairs / mean disagreement of all n^2 cross pairs, with
    disagreement |x - y|^power on the label values (no contingency table, no category list)."""
    fx, fy = [Fraction(v) for v in x], [Fraction(v) for v in y]
    n = len(fx)
    observed = sum(abs(a - b) ** power for a, b in zip(fx, fy, strict=True)) / n
    expected = sum(abs(a - b) ** power for a in fx for b in fy) / (n * n)
    return 1 - observed / expected


@pytest.mark.parametrize(("weights", "power"), [("linear", 1), ("quadratic", 2)])
@pytest.mark.parametrize("level", ["interval", "ratio"])
def test_weighted_kappa_on_values_matches_the_definition(weights: str, power: int, level: str) -> None:
    m = np.column_stack([GRADES_X, GRADES_Y])
    exact = float(_kappa_from_pairs(GRADES_X, GRADES_Y, power))
    got = cohen_kappa(m, 0, 1, [1, 2, 5, 10], weights=weights, level=level, n_boot=0).estimate  # type: ignore[arg-type]
    assert got == pytest.approx(exact, abs=1e-12)
    positions = cohen_kappa(m, 0, 1, [1, 2, 5, 10], weights=weights, level="ordinal", n_boot=0).estimate  # type: ignore[arg-type]
    assert abs(positions - exact) > 0.01  # the values' spacing matters: 1 -> 2 is not 5 -> 10


def test_quadratic_kappa_on_values_is_lins_concordance() -> None:
    """Quadratically weighted kappa on the values equals Lin's (1989) concordance correlation
    2 s_xy / (s_x^2 + s_y^2 + (mean_x - mean_y)^2) with 1/n moments (Fleiss & Cohen 1973)."""
    x, y = np.asarray(GRADES_X), np.asarray(GRADES_Y)
    ccc = 2 * np.cov(x, y, bias=True)[0, 1] / (x.var() + y.var() + (x.mean() - y.mean()) ** 2)
    got = cohen_kappa(np.column_stack([x, y]), 0, 1, weights="quadratic", level="interval", n_boot=0)
    assert got.estimate == pytest.approx(ccc, abs=1e-12)


@pytest.mark.parametrize("level", ["interval", "ratio"])
def test_a_third_rater_does_not_change_a_pairs_kappa(level: str) -> None:
    """Rater c uses values (3, 7, 20) that a and b never used; a-b's kappas and intervals stay the same."""
    pair = np.column_stack([GRADES_X, GRADES_Y])
    third = np.array([[3.0], [7.0], [20.0], [2.0], [10.0], [7.0], [3.0], [5.0], [1.0], [20.0], [NAN], [3.0]])
    alone = agreement_table(pair, level, None, ["a", "b"], n_boot=200, seed=5).cohen_kappa[0]  # type: ignore[arg-type]
    table = agreement_table(np.hstack([pair, third]), level, None, ["a", "b", "c"], n_boot=200, seed=5)  # type: ignore[arg-type]
    with_c = next(p for p in table.cohen_kappa if p.raters == ("a", "b"))
    for kind in ("estimate", "weighted_linear", "weighted_quadratic"):
        before, after = getattr(alone, kind), getattr(with_c, kind)
        assert after.estimate == pytest.approx(before.estimate, abs=1e-12)
        assert (after.ci_low, after.ci_high) == pytest.approx((before.ci_low, before.ci_high), abs=1e-12)
    assert alone.weighted_linear.estimate == pytest.approx(float(_kappa_from_pairs(GRADES_X, GRADES_Y, 1)))


def test_ordinal_kappa_keeps_the_declared_order() -> None:
    """At the ordinal level the weights are positions in --order, whatever labels the file holds."""
    long_df = pd.DataFrame({
        "unit": [1, 1, 2, 2, 3, 3, 4, 4],
        "rater": list("abababab"),
        "label": ["low", "low", "mid", "high", "high", "high", "low", "mid"],
    })
    m, _, raters, cats = ratings_matrix(long_df, order=["low", "mid", "high", "top"])
    got = agreement_table(m, "ordinal", cats, list(raters), n_boot=0).cohen_kappa[0].weighted_linear
    x, y = [0, 1, 2, 0], [0, 2, 2, 1]
    n, q = 4, 4
    po = sum(1 - Fraction(abs(a - b), q - 1) for a, b in zip(x, y, strict=True)) / n
    pe = sum(1 - Fraction(abs(a - b), q - 1) for a in x for b in y) / (n * n)
    assert got is not None and got.estimate == pytest.approx(float((po - pe) / (1 - pe)), abs=1e-12)
    with pytest.raises(ValueError, match="must be numbers"):
        cohen_kappa(m, 0, 1, cats, weights="linear", level="interval", n_boot=0)


def test_a_table_read_in_several_passes_gives_the_same_intervals(monkeypatch: pytest.MonkeyPatch) -> None:
    """Above the feature table's size limit each part is read in a pass of its own over the same resamples."""
    import annotate.analysis.bootstrap as bootstrap

    rng = np.random.default_rng(5)
    m = rng.integers(0, 4, size=(80, 5)).astype(float)
    m[rng.random(m.shape) < 0.25] = NAN
    one_pass = agreement_table(m, "ordinal", [0, 1, 2, 3], list("abcde"), n_boot=120, seed=2)
    monkeypatch.setattr(bootstrap, "_MAX_TABLE_CELLS", 1)
    assert bootstrap._groups([3, 4, 5], 80) == [[0], [1], [2]]
    passes = agreement_table(m, "ordinal", [0, 1, 2, 3], list("abcde"), n_boot=120, seed=2)
    def figures(t: Any) -> list[Any]:
        return [t.krippendorff_alpha, t.fleiss_kappa, *[p.weighted_linear for p in t.cohen_kappa]]

    for a, b in zip(figures(one_pass), figures(passes), strict=True):
        assert (a.estimate, a.ci_low, a.ci_high) == pytest.approx((b.estimate, b.ci_low, b.ci_high), abs=1e-12)


def test_resamples_drawn_as_pattern_counts_match_resampled_units(monkeypatch: pytest.MonkeyPatch) -> None:
    """3,000 units x 4 raters of 3 categories are a few dozen patterns: resamples drawn as pattern counts
    give every part the feature sums of its units, and intervals within Monte Carlo error of drawing units."""
    import annotate.analysis.bootstrap as bootstrap

    rng = np.random.default_rng(8)
    latent = rng.integers(0, 3, size=(3000, 1))
    m = np.where(rng.random((3000, 4)) < 0.7, latent, rng.integers(0, 3, size=(3000, 4))).astype(float)
    m[rng.random(m.shape) < 0.2] = NAN
    seen: list[int] = []
    patterns = bootstrap._patterns

    def counted(features, rows, n_units):  # type: ignore[no-untyped-def]
        found = patterns(features, rows, n_units)
        assert found is not None
        shares, tables = found
        seen.append(shares.size)
        for f, table in zip(features, tables, strict=True):
            assert (shares * n_units) @ table == pytest.approx(f.sum(axis=0), rel=1e-12)
        return found

    monkeypatch.setattr(bootstrap, "_patterns", counted)
    by_pattern = agreement_table(m, "nominal", [0, 1, 2], list("abcd"), n_boot=2000, seed=1)
    assert 0 < seen[0] * 4 <= 3000
    monkeypatch.setattr(bootstrap, "_patterns", lambda *args: None)
    by_unit = agreement_table(m, "nominal", [0, 1, 2], list("abcd"), n_boot=2000, seed=1)
    pairs = zip(by_pattern.cohen_kappa, by_unit.cohen_kappa, strict=True)
    for a, b in [(by_pattern.krippendorff_alpha, by_unit.krippendorff_alpha),
                 (by_pattern.gwet_ac1, by_unit.gwet_ac1), *((p.estimate, q.estimate) for p, q in pairs)]:
        assert a.estimate == pytest.approx(b.estimate, abs=1e-12)
        assert a.ci_low == pytest.approx(b.ci_low, abs=0.01) and a.ci_high == pytest.approx(b.ci_high, abs=0.01)
        assert a.ci_high - a.ci_low > 0.02
