"""MT-Bench style agreement between rater cohorts (Zheng et al. 2023, section 4.2)."""

from __future__ import annotations

import json
from itertools import combinations, product

import numpy as np
import pandas as pd
import pytest

from annotate.analysis.pairwise import LABEL_CLASSES, majority_agreement, type_agreement

LABELS = ["A", "B", "tie", "both_bad", "tie_inconsistent"]


def votes_frame(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item", "rater", "rater_type", "label"])


def brute_force(votes: pd.DataFrame, tx: str, ty: str) -> tuple[int, int, int, int]:
    """FastChat compute_agreement.py, literally: loop over vote pairs of different raters on an item.

    Returns (agree with ties, pairs with ties, agree without ties, pairs without ties).
    """
    recs = list(votes.itertuples(index=False))
    if tx == ty:
        candidates = [(x, y) for x, y in combinations(recs, 2) if x.rater_type == tx and y.rater_type == tx]
    else:
        candidates = [(x, y) for x, y in product(recs, recs) if x.rater_type == tx and y.rater_type == ty]
    a = n = a_nt = n_nt = 0
    for x, y in candidates:
        if x.item != y.item or x.rater == y.rater:
            continue
        cx, cy = LABEL_CLASSES[x.label], LABEL_CLASSES[y.label]
        n += 1
        a += cx == cy
        if cx < 2 and cy < 2:
            n_nt += 1
            a_nt += cx == cy
    return a, n, a_nt, n_nt


def random_votes(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for item in range(25):
        for r in range(9):
            kind = "expert" if r < 4 else ("crowd" if r < 7 else "llm")
            if rng.random() < 0.55:
                for _ in range(int(rng.integers(1, 3))):  # repeats by the same rater happen
                    rows.append((item, f"r{r}", kind, LABELS[int(rng.integers(0, 5))]))
    return votes_frame(rows)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("tx", "ty"), [("expert", "expert"), ("expert", "crowd"), ("crowd", "llm"), ("llm", "expert")])
def test_type_agreement_matches_pair_enumeration(seed: int, tx: str, ty: str) -> None:
    """Pooled agreement = agreeing pairs / pairs over every pair of votes by two different raters,
    as FastChat's compute_agreement.py counts them (ties merged, without-tie pairs both A/B)."""
    votes = random_votes(seed)
    a, n, a_nt, n_nt = brute_force(votes, tx, ty)
    result = type_agreement(votes, tx, ty, n_boot=0)
    assert result.n_pairs_with_ties == n and result.n_pairs_without_ties == n_nt
    assert result.with_ties.estimate == pytest.approx(a / n)
    assert result.without_ties.estimate == pytest.approx(a_nt / n_nt if n_nt else float("nan"), nan_ok=True)
    assert result.with_ties.n_pairable == n


def test_hand_example_with_ties() -> None:
    """One item, experts e1 = A, e2 = tie, e3 = both_bad, LLM g = A.

    expert-expert pairs: (e1,e2) no, (e1,e3) no, (e2,e3) yes (both ties) -> 1/3 with ties; without ties
    no pair has both A/B.  expert-llm pairs: (e1,g) yes, (e2,g) no, (e3,g) no -> 1/3; without ties 1/1.
    """
    votes = votes_frame(
        [(1, "e1", "expert", "A"), (1, "e2", "expert", "tie"), (1, "e3", "expert", "both_bad"), (1, "g", "llm", "A")]
    )
    ee = type_agreement(votes, "expert", "expert", n_boot=0)
    assert ee.with_ties.estimate == pytest.approx(1 / 3) and ee.n_pairs_with_ties == 3
    assert np.isnan(ee.without_ties.estimate) and ee.n_pairs_without_ties == 0
    el = type_agreement(votes, "expert", "llm", n_boot=0)
    assert el.with_ties.estimate == pytest.approx(1 / 3)
    assert el.without_ties.estimate == 1.0 and el.n_pairs_without_ties == 1
    assert el.n_items == 1 and el.with_ties.n_raters == 4


def test_same_rater_pairs_never_count() -> None:
    """A rater who voted twice on an item is not paired with themself."""
    votes = votes_frame([(1, "e1", "expert", "A"), (1, "e1", "expert", "A"), (1, "e2", "expert", "B")])
    r = type_agreement(votes, "expert", "expert", n_boot=0)
    assert r.n_pairs_with_ties == 2 and r.with_ties.estimate == 0.0


def test_bootstrap_over_items_is_seeded_and_brackets_estimate() -> None:
    votes = random_votes(5)
    a = type_agreement(votes, "expert", "crowd", n_boot=300, seed=9)
    b = type_agreement(votes, "expert", "crowd", n_boot=300, seed=9)
    assert a == b
    assert a.with_ties.ci_low < a.with_ties.estimate < a.with_ties.ci_high
    doc = json.loads(json.dumps(a.to_json(), allow_nan=False))
    assert doc["with_ties"]["n_pairable"] == a.n_pairs_with_ties


def test_majority_agreement() -> None:
    """Item 1: experts A,A,B -> A; crowd A,tie -> no majority (dropped).  Item 2: experts B,B -> B;
    crowd B -> B (agree).  Item 3: experts tie,tie_inconsistent,A -> tie; crowd A -> A (disagree with
    ties; not counted without ties).  Item 4: experts A; crowd B,B -> B (disagree)."""
    votes = votes_frame(
        [
            (1, "e1", "expert", "A"),
            (1, "e2", "expert", "A"),
            (1, "e3", "expert", "B"),
            (1, "c1", "crowd", "A"),
            (1, "c2", "crowd", "tie"),
            (2, "e1", "expert", "B"),
            (2, "e2", "expert", "B"),
            (2, "c1", "crowd", "B"),
            (3, "e1", "expert", "tie"),
            (3, "e2", "expert", "tie_inconsistent"),
            (3, "e3", "expert", "A"),
            (3, "c1", "crowd", "A"),
            (4, "e1", "expert", "A"),
            (4, "c1", "crowd", "B"),
            (4, "c2", "crowd", "B"),
        ]
    )
    r = majority_agreement(votes, "expert", "crowd", n_boot=0)
    assert r.n_items == 3 and r.n_pairs_with_ties == 3 and r.n_pairs_without_ties == 2
    assert r.with_ties.estimate == pytest.approx(1 / 3)
    assert r.without_ties.estimate == pytest.approx(1 / 2)
    with pytest.raises(ValueError, match="two different"):
        majority_agreement(votes, "expert", "expert")


def test_unknown_labels_and_missing_columns() -> None:
    with pytest.raises(ValueError, match="unknown vote labels"):
        type_agreement(votes_frame([(1, "a", "expert", "left")]), "expert", "expert")
    with pytest.raises(ValueError, match="missing columns"):
        type_agreement(pd.DataFrame({"item": [1]}), "expert", "expert")
