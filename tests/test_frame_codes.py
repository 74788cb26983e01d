"""Integer codes of item and rater carried beside the votes (annotate.frame_codes): the analyses give the same
results with them and without, codes that do not match their texts are ignored, and the report's votes carry
them from the read."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import make_item

from annotate import frame_codes
from annotate.analysis.agreement.coded import coded_rows
from annotate.analysis.battles import pair_counts
from annotate.analysis.bias import length_bias, position_bias
from annotate.analysis.cohorts import battles_from_votes
from annotate.analysis.competence import rest_agreement_per_vote
from annotate.analysis.dawid_skene import dawid_skene
from annotate.analysis.pairwise import type_agreement
from annotate.analysis.quality import repeat_consistency, timing
from annotate.analysis.style_control import style_design
from annotate.model import Assignment, ExternalLabel, Judgment, Timings
from annotate.report.context import cohort_of_raters, long_votes, raters_per_cohort, unique_votes
from annotate.store import Store
from annotate.store.frames import votes_frame


def _votes(n: int = 400, seed: int = 3) -> pd.DataFrame:
    """Votes of 9 raters on 60 items (ids not in sorted order of first appearance), repeats included."""
    rng = np.random.default_rng(seed)
    items = np.array([f"it-{k:03d}" for k in rng.permutation(60)], dtype=object)
    raters = np.array(["zed", "amy", "bob", "Cy", "dan", "eve", "fay", "gus", "hal"], dtype=object)
    pick = rng.integers(0, 60, n)
    who = rng.integers(0, 9, n)
    frame = pd.DataFrame({
        "item": pd.array(items[pick], dtype="str"), "rater": pd.array(raters[who], dtype="str"),
        "cohort": pd.array(np.where(who < 6, "expert", "crowd").astype(object), dtype="str"),
        "label": pd.array(rng.choice(np.array(["A", "B", "tie"], dtype=object), n), dtype="str"),
        "label_side": pd.array(rng.choice(np.array(["left", "right", "tie"], dtype=object), n), dtype="str"),
        "model_a": pd.array(np.array(["m1", "m2", "m3"], dtype=object)[pick % 3], dtype="str"),
        "model_b": pd.array(np.array(["m2", "m3", "m4"], dtype=object)[pick % 3], dtype="str"),
        "len_a": rng.integers(1, 50, n).astype(float), "len_b": rng.integers(1, 50, n).astype(float),
        "active_ms": rng.integers(500, 9000, n), "submit_ms": rng.integers(500, 9000, n),
        "purpose": pd.array(np.where(rng.random(n) < 0.1, "attention", "main").astype(object), dtype="str"),
    })
    return frame


def _coded(frame: pd.DataFrame) -> pd.DataFrame:
    coded = frame_codes.with_codes_of(frame, "item", "rater")
    assert all(frame_codes.checked_codes(coded, column) is not None for column in ("item", "rater"))
    return coded


@pytest.mark.parametrize("sort", [False, True])
@pytest.mark.parametrize("column", ["item", "rater"])
def test_factorize_from_codes_is_factorize_of_the_texts(column: str, sort: bool) -> None:
    votes = _coded(_votes())
    part = votes.loc[votes["purpose"] == "main"].iloc[7:]  # a filter keeps both columns
    fast = frame_codes.factorized(part, column, sort=sort)
    assert fast is not None  # the codes were used
    codes, uniques = pd.factorize(part[column], sort=sort)
    np.testing.assert_array_equal(fast[0], codes)
    pd.testing.assert_index_equal(fast[1], uniques, exact=True)
    plain = frame_codes.factorize(part.drop(columns=[frame_codes.code_column(column)]), column, sort=sort)
    np.testing.assert_array_equal(plain[0], codes)


@pytest.mark.parametrize("column", ["item", "rater"])
def test_nunique_from_codes_is_nunique_of_the_texts(column: str) -> None:
    votes = _votes()
    part = _coded(votes).iloc[:25]  # a filter keeps the codes of its rows (and every label of the column)
    assert frame_codes.nunique(part, column) == part[column].nunique()
    stale = _coded(votes).assign(**{column: votes[column].str.upper()})  # codes of other texts: ignored
    assert frame_codes.nunique(stale, column) == stale[column].nunique()
    with_missing = votes.assign(**{column: votes[column].where(votes.index % 5 > 0)})  # no codes; NA not counted
    assert frame_codes.nunique(with_missing, column) == with_missing[column].nunique()


@pytest.mark.parametrize("dtype", ["str", "string", object])
@pytest.mark.parametrize("mapping", [{"A": 0, "B": 1, "tie": 2}, {"A": "model_a", "B": "model_b"}, {"tie": 0.5}])
def test_mapped_is_map(dtype: object, mapping: dict[str, object]) -> None:
    labels = _votes()["label"].astype(dtype)
    labels.index = labels.index * 7 + 3
    labels.name = "label"
    with_missing = labels.where(labels.index % 11 > 0)
    for series in (labels, with_missing, labels.iloc[:1], labels.iloc[:0]):
        pd.testing.assert_series_equal(frame_codes.mapped(series, mapping), series.map(mapping))
    distinct = pd.Series([f"v{k}" for k in range(50)], dtype=dtype)  # more distinct values than half: mapped by map
    pd.testing.assert_series_equal(frame_codes.mapped(distinct, {"v1": 1}), distinct.map({"v1": 1}))


def test_codes_that_do_not_match_their_texts_are_ignored() -> None:
    votes = _coded(_votes())
    renamed = votes.assign(rater=votes["cohort"])  # the texts changed, the codes did not
    assert frame_codes.checked_codes(renamed, "rater") is None
    codes, uniques = frame_codes.factorize(renamed, "rater")
    np.testing.assert_array_equal(codes, pd.factorize(renamed["rater"])[0])
    assert uniques.tolist() == ["expert", "crowd"] or uniques.tolist() == ["crowd", "expert"]
    # one row's code changed: the check reads every row
    name = frame_codes.code_column("item")
    shifted = votes[name].cat.codes.to_numpy().copy()
    shifted[-1] = (shifted[-1] + 1) % len(votes[name].cat.categories)
    wrong = votes.assign(**{name: pd.Categorical.from_codes(shifted, categories=votes[name].cat.categories)})
    assert frame_codes.checked_codes(wrong, "item") is None
    np.testing.assert_array_equal(frame_codes.factorize(wrong, "item", sort=True)[0],
                                  pd.factorize(wrong["item"], sort=True)[0])


def test_codes_need_distinct_sorted_labels_in_range() -> None:
    frame = pd.DataFrame({"item": ["b", "a"]})
    with pytest.raises(ValueError, match="sorted"):
        frame_codes.with_codes(frame, "item", np.array([0, 1]), ["b", "a"])
    with pytest.raises(ValueError, match="range"):
        frame_codes.with_codes(frame, "item", np.array([0, 2]), ["a", "b"])
    assert frame_codes.checked_codes(frame_codes.with_codes(frame, "item", np.array([1, 0]), ["a", "b"]),
                                     "item") is not None


def _results(votes: pd.DataFrame) -> list[str]:
    """What the analyses that read the codes give on `votes`, as text (NaN equal to NaN)."""
    long = long_votes(unique_votes(votes))
    with_types = votes.assign(rater_type=votes["cohort"])
    battles = battles_from_votes(unique_votes(votes))
    ids = sorted(set(votes["item"]))
    counts = pd.DataFrame({"item": ids, "tokens_a": np.arange(len(ids)) % 7, "tokens_b": np.arange(len(ids)) % 5})
    counts = pd.concat([counts, counts.iloc[:3].assign(tokens_a=99)], ignore_index=True)  # an item twice: the first
    coded = frame_codes.checked_codes(battles, "item")
    if coded is not None:  # the counts with the codes of the same labels, as the report's style counts carry them
        counts = frame_codes.with_codes(counts, "item", coded[1].get_indexer(counts["item"]), coded[1])
    out = [
        position_bias(votes, item="item", n_boot=20), length_bias(votes, item="item", n_boot=20),
        type_agreement(with_types, "expert", "crowd", n_boot=20),
        type_agreement(with_types, "expert", "expert", n_boot=20),
        coded_rows(long)[0][1:], coded_rows(long)[1].unit.tolist(), coded_rows(long)[1].rater.tolist(),
        dawid_skene(long),
        pair_counts(battles, item="item"), style_design(battles, counts, ("tokens",)),
        timing(votes, n_boot=20), repeat_consistency(votes, n_boot=20),
        unique_votes(votes).index.tolist(), cohort_of_raters(votes), raters_per_cohort(votes),
        rest_agreement_per_vote(votes).tolist(),
    ]
    return [repr(r) for r in out]


def test_the_analyses_give_the_same_with_codes_and_without(monkeypatch) -> None:
    used: list[str] = []
    checked = frame_codes.checked_codes
    monkeypatch.setattr(frame_codes, "checked_codes",
                        lambda frame, column: ((found := checked(frame, column)) is not None and used.append(column))
                        or found)
    plain = _votes()
    coded = _coded(plain)
    used.clear()
    fast = _results(coded)
    assert len(used) >= 15 and {"item", "rater", "unit"} <= set(used)  # the codes were read at every site
    assert fast == _results(plain)
    # codes that do not match are ignored: the results are those of the texts
    other = _votes(seed=4)
    mixed = coded.assign(item=other["item"], rater=other["rater"])
    used.clear()
    assert _results(mixed) == _results(plain.assign(item=other["item"], rater=other["rater"]))
    assert not used


T = Timings("2026-11-30T10:00:00+00:00", 100, 2000, 1900)


def test_the_report_votes_carry_the_codes_from_the_read(store: Store) -> None:
    store.add_items([make_item(f"i{k}") for k in (3, 1, 2)])
    assignments = store.add_assignments([Assignment(0, rater, item, k) for rater in ("zoe", "al")
                                         for k, item in enumerate(("i2", "i3", "i1"))])
    for a in assignments:
        store.submit(Judgment(a.id, "A", T))
    store.add_external_labels([ExternalLabel("arena", "v9", "crowd", "i1", "B", "B")])
    coded = votes_frame(store, codes=True)
    for column in ("item", "rater"):
        checked = frame_codes.checked_codes(coded, column)
        assert checked is not None and list(checked[1]) == sorted(checked[1])
    assert list(coded[frame_codes.code_column("item")].cat.categories) == ["i1", "i2", "i3"]  # every item, sorted
    plain = votes_frame(store)
    pd.testing.assert_frame_equal(coded.drop(columns=frame_codes.code_columns(coded, "item", "rater")), plain)


_TEXTS = [[None, None, None], [None, "attention", np.nan, "main", pd.NA], ["main", "gold"], []]


@pytest.mark.parametrize("values, dtype", [*((v, object) for v in [*_TEXTS, [1, None, "x"]]),
                                           *((v, "str") for v in _TEXTS)])
def test_filled_is_fillna_with_one_text(values: list, dtype: object) -> None:
    """`filled` gives what fillna gives (values, dtype, index, name), and every filled row holds the one text."""
    series = pd.Series(values, dtype=dtype, index=range(10, 10 + len(values)), name="purpose")
    expected = series.fillna("main")
    got = frame_codes.filled(series, "main")
    pd.testing.assert_series_equal(got, expected)
    if dtype is object:
        word = "main"
        assert all(v is word for v, was in zip(got.tolist(), series.isna().tolist(), strict=True) if was)


@pytest.mark.parametrize("sort", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_factorized_codes_is_pandas_factorize(sort: bool, seed: int) -> None:
    """Codes and uniques as `pd.factorize` gives them, first-appearance order or sorted, codes of any width."""
    rng = np.random.default_rng(seed)
    n_labels = int(rng.integers(1, 50))
    for dtype in (np.int8, np.int32, np.int64):
        codes = rng.integers(0, n_labels, int(rng.integers(0, 200))).astype(dtype)
        out, distinct = frame_codes.factorized_codes(codes, n_labels, sort)
        expected_out, expected_distinct = pd.factorize(codes.astype(np.int64), sort=sort)
        assert out.dtype == np.int64 and np.array_equal(out, expected_out)
        assert np.array_equal(distinct, expected_distinct)
