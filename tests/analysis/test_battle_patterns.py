"""The items' vote patterns (annotate.analysis.battles._patterns): merged from the clusters as they are
when every item compares one pair, the same patterns as when the items are numbered first."""

from __future__ import annotations

import numpy as np
import pytest

from annotate.analysis.battles import _one_pair_patterns, _patterns


def _fields(patterns) -> list[np.ndarray]:
    return [patterns.multiplicity, patterns.entry_pattern, patterns.entry_pair, patterns.entry_votes]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("spread", [1, 7, 1000])
def test_merged_from_the_clusters_as_they_are(seed: int, spread: int) -> None:
    rng = np.random.default_rng(seed)
    n_items, n_pairs = 300, 5
    item_pair = rng.integers(0, n_pairs, n_items)
    clusters = rng.integers(0, n_items, 2000)
    clusters = np.unique(clusters, return_inverse=True)[1] * spread  # sparse codes, in no order
    pair = item_pair[clusters // spread]
    out = np.zeros((clusters.size, 3))
    out[np.arange(clusters.size), rng.integers(0, 3, clusters.size)] = 1.0
    fast = _one_pair_patterns(clusters, pair, out, n_pairs)
    assert fast is not None
    numbered = _patterns(clusters.astype(str).astype(object), pair, out, n_pairs)  # texts: numbered first
    for got, expected in zip(_fields(fast), _fields(numbered), strict=True):
        np.testing.assert_array_equal(got, expected)
    for got, expected in zip(_fields(_patterns(clusters, pair, out, n_pairs)), _fields(numbered), strict=True):
        np.testing.assert_array_equal(got, expected)


def test_items_spanning_pairs_are_numbered_as_before() -> None:
    """An item that compares two pairs: each item its own pattern, numbered by first appearance."""
    clusters = np.array([5, 5, 2, 9, 9])
    pair = np.array([0, 1, 1, 0, 0])
    out = np.eye(3)[[0, 1, 2, 0, 1]]
    assert _one_pair_patterns(clusters, pair, out, 2) is None
    got = _patterns(clusters, pair, out, 2)
    expected = _patterns(np.array(["5", "5", "2", "9", "9"], dtype=object), pair, out, 2)
    for a, b in zip(_fields(got), _fields(expected), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(got.multiplicity, [1.0, 1.0, 1.0])


def test_negative_or_huge_clusters_are_numbered_first() -> None:
    out = np.eye(3)[[0, 1]]
    assert _one_pair_patterns(np.array([-1, 3]), np.array([0, 0]), out, 1) is None
    assert _one_pair_patterns(np.array([0, 2**61]), np.array([0, 0]), out, 4) is None
    assert _one_pair_patterns(np.array([], dtype=np.int64), np.array([], dtype=np.int64), out[:0], 1) is None
