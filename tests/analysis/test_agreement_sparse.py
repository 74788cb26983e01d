"""Agreement from integer codes per rating (`CodedRatings`): the same tables as the dense matrix gives, and
crowd-shaped data (tens of thousands of raters, one rating each) without a units x raters matrix."""

from __future__ import annotations

import tracemalloc
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from annotate.analysis.agreement import LEVELS, agreement_table, krippendorff_alpha, ratings_matrix
from annotate.analysis.agreement.coded import coded_from_matrix, coded_ratings
from annotate.analysis.cohorts import pooled_agreement_table, rest_agreement
from annotate.report.sections.agreement import _pairs_sharing


def _random_long(rng: np.random.Generator, text: bool) -> tuple[pd.DataFrame, list]:
    """Long ratings with unrated raters' gaps, single-rated units, fully rated units and missing labels."""
    n_units, n_raters = int(rng.integers(2, 40)), int(rng.integers(2, 9))
    cats = ["bad", "ok", "good", "great"] if text else [1, 2, 3, 5, 8]
    cats = cats[: int(rng.integers(2, len(cats) + 1))]
    rows = []
    for u in range(n_units):
        k = int(rng.choice([1, 1, 2, 3, n_raters]))
        for r in rng.choice(n_raters, size=min(k, n_raters), replace=False):
            rows.append((f"u{u}", f"r{r}", cats[int(rng.integers(len(cats)))] if rng.random() > 0.05 else None))
    return pd.DataFrame(rows, columns=["unit", "rater", "label"]), cats


def _dense_overlaps(matrix: np.ndarray) -> dict[tuple[int, int], int]:
    present = ~np.isnan(matrix)
    shared = {(a, b): int((present[:, a] & present[:, b]).sum()) for a, b in combinations(range(matrix.shape[1]), 2)}
    return {pair: n for pair, n in shared.items() if n}


@pytest.mark.parametrize("seed", range(12))
def test_codes_give_the_dense_matrix_table_exactly(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for text in (True, False):
        df, cats = _random_long(rng, text)
        matrix, _units, raters, categories = ratings_matrix(df, order=cats)
        coded, _u, raters_coded, categories_coded = coded_ratings(df, order=cats)
        assert (raters_coded, categories_coded) == (raters, categories)
        np.testing.assert_array_equal(coded.to_matrix(), matrix)
        from_matrix = coded_from_matrix(matrix, categories)
        for name in ("unit", "rater", "value"):
            np.testing.assert_array_equal(getattr(from_matrix, name), getattr(coded, name))
        first, second, shared = coded.overlaps()
        assert dict(zip(zip(first.tolist(), second.tolist(), strict=True), shared.tolist(), strict=True)) \
            == _dense_overlaps(matrix)
        for level in LEVELS if not text else ("nominal", "ordinal"):
            dense = agreement_table(matrix, level, categories, list(raters), n_boot=200, seed=3).to_json()
            assert agreement_table(coded, level, categories, list(raters), n_boot=200, seed=3).to_json() == dense
            capped = pooled_agreement_table(matrix, level, categories, list(raters), n_boot=100, max_pairs=2)
            assert pooled_agreement_table(coded, level, categories, list(raters), n_boot=100,
                                          max_pairs=2).to_json() == capped.to_json()


def test_the_pairs_kept_are_those_with_most_shared_units() -> None:
    # raters 0-1 share 3 units, 2-3 share 2, 0-2 share 1: with two pairs allowed, 0-1 and 2-3
    rows = [(u, r, "x") for u in range(3) for r in (0, 1)] + [(u, r, "y") for u in (3, 4) for r in (2, 3)]
    rows += [(5, 0, "x"), (5, 2, "x")]
    df = pd.DataFrame(rows, columns=["unit", "rater", "label"])
    coded, _units, raters, cats = coded_ratings(df)
    table = pooled_agreement_table(coded, "nominal", cats, list(raters), n_boot=0, max_pairs=2)
    assert [(p.raters, p.n_units) for p in table.cohen_kappa] == [((0, 1), 3), ((2, 3), 2)]


def _crowd(n_raters: int, n_twice: int) -> pd.DataFrame:
    """``n_raters`` raters rating one unit each, and ``n_twice`` more units rated by two of them."""
    labels = np.array(["A", "B", "tie"])
    rng = np.random.default_rng(5)
    single = pd.DataFrame({"unit": np.arange(n_raters), "rater": np.arange(n_raters),
                           "label": labels[rng.integers(0, 3, n_raters)]})
    first = np.arange(n_twice) * 7 % n_raters
    second = (first + 1) % n_raters
    shared_label = labels[rng.integers(0, 3, n_twice)]
    twice = pd.DataFrame({"unit": np.repeat(n_raters + np.arange(n_twice), 2),
                          "rater": np.column_stack([first, second]).ravel(),
                          "label": np.column_stack([shared_label, np.where(np.arange(n_twice) % 4, shared_label,
                                                                            "B")]).ravel()})
    return pd.concat([single, twice], ignore_index=True)


def test_a_crowd_of_raters_with_one_rating_each_needs_no_dense_matrix() -> None:
    # 100,000 raters on 100,030 units: the dense matrix would be 80 GB, and raters x raters as much
    df = _crowd(100_000, 30)
    tracemalloc.start()
    try:
        coded, _units, raters, cats = coded_ratings(df, order=["A", "B", "tie"])
        table = pooled_agreement_table(coded, "nominal", cats, list(raters), n_boot=200, seed=1, max_pairs=10)
        rest = rest_agreement(df, "nominal", ["A", "B", "tie"], n_boot=50)
        n_pairs = _pairs_sharing(df)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 400 * 2**20
    assert n_pairs == 30 and len(table.cohen_kappa) == 10
    alpha = table.krippendorff_alpha
    assert (alpha.n_units, alpha.n_raters, alpha.n_pairable) == (30, 60, 60)
    # the pairable units alone give alpha and percent agreement; Fleiss' chance term uses every rated unit
    twice = df.iloc[100_000:]
    matrix, _u, _r, c = ratings_matrix(twice, order=["A", "B", "tie"])
    assert alpha.estimate == pytest.approx(krippendorff_alpha(matrix, "nominal", c, n_boot=0).estimate, abs=1e-12)
    agree = twice.groupby("unit")["label"].nunique().eq(1).mean()
    assert table.percent_agreement.estimate == pytest.approx(agree, abs=1e-12)
    pi = (df.groupby("unit")["label"].value_counts(normalize=True).groupby("label").sum() / df["unit"].nunique())
    p_e = float((pi**2).sum())
    assert table.fleiss_kappa.estimate == pytest.approx((agree - p_e) / (1 - p_e), abs=1e-12)
    # each rater of a unit rated twice has one comparison: the other rating is the consensus of the others
    assert len(rest) == 60 and all(r.n == 1 for r in rest)
    assert sum(r.agree for r in rest) == 2 * int(twice.groupby("unit")["label"].nunique().eq(1).sum())


def test_ordinal_alpha_without_a_pairable_unit_is_nan_not_an_error() -> None:
    # every unit rated once: no coincidences (this raised "cannot reshape array of size 0")
    matrix = np.array([[1.0, np.nan], [np.nan, 2.0], [3.0, np.nan]])
    table = agreement_table(matrix, "ordinal", [1, 2, 3], ["a", "b"], n_boot=50)
    assert np.isnan(table.krippendorff_alpha.estimate) and table.krippendorff_alpha.n_units == 0
    assert np.isnan(krippendorff_alpha(matrix, "ordinal", [1, 2, 3], n_boot=0).estimate)


@pytest.mark.parametrize("seed", range(16))
def test_a_subset_coded_from_the_rows_codes_is_coded_as_anew(seed: int) -> None:
    """`coded_subset` of some rows of coded ratings (shuffled, text or number labels, missing labels, whole
    units and raters left out) gives what `coded_ratings` gives for those rows, arrays, ids and categories."""
    from annotate.analysis.agreement.coded import coded_rows, coded_subset

    rng = np.random.default_rng(seed)
    long_df, cats = _random_long(rng, text=seed % 2 == 0)
    long_df = long_df.sample(frac=1.0, random_state=seed)  # rows not in unit order
    _, rows = coded_rows(long_df, order=cats)
    assert rows.ordered
    keep = rng.random(len(long_df)) < rng.choice([0.2, 0.5, 0.9])
    part = long_df.loc[keep]
    expected = coded_ratings(part, order=cats)
    got = coded_subset(rows, part.index[part["label"].notna().to_numpy()])
    assert got is not None
    for name in ("unit", "rater", "value", "domain"):
        assert np.array_equal(getattr(got[0], name), getattr(expected[0], name)), name
    assert (got[0].n_units, got[0].n_raters) == (expected[0].n_units, expected[0].n_raters)
    assert got[1:] == expected[1:]
    assert [type(c) for c in got[3]] == [type(c) for c in expected[3]]
    other = pd.Index([long_df.index.max() + 1])  # a rating not among the rows: no codes for it
    assert coded_subset(rows, other) is None


def test_pairs_sharing_from_known_codes_is_counted_as_on_the_ratings() -> None:
    """The count of rater pairs sharing a unit read from the codes equals the count on the ratings."""
    from annotate.report.sections.agreement import _known

    for seed in range(8):
        long_df, cats = _random_long(np.random.default_rng(seed), text=True)
        labelled = long_df.loc[long_df["label"].notna()]
        assert _pairs_sharing(labelled, _known(labelled, cats)) == _pairs_sharing(labelled)
