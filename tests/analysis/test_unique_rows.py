"""`battles._unique_rows` is `np.unique(rows, axis=0, return_counts=True)`: the same rows, order, counts and types,
by one integer key a row where the rows fit one, by the rows themselves where not."""

from __future__ import annotations

import numpy as np
import pytest

from annotate.analysis.battles import _unique_rows


@pytest.mark.parametrize(("n", "columns", "high"), [
    (0, 4, 1), (1, 4, 1), (7, 2, 1), (1000, 4, 3), (20_000, 4, 60), (500, 3, 2**21), (300, 3, 2**40),
])
def test_the_same_as_numpys_unique_rows(n: int, columns: int, high: int) -> None:
    rows = np.random.default_rng(n + columns).integers(0, high, size=(n, columns), dtype=np.int64)
    expected = np.unique(rows, axis=0, return_counts=True)
    distinct, counts = _unique_rows(rows)
    assert np.array_equal(distinct, expected[0]) and np.array_equal(counts, expected[1])
    assert distinct.dtype == expected[0].dtype and counts.dtype == expected[1].dtype
    assert distinct.shape == expected[0].shape


def test_negative_values_are_left_to_numpy() -> None:
    rows = np.array([[2, -1], [0, 5], [2, -1], [-3, 0]], dtype=np.int64)
    distinct, counts = _unique_rows(rows)
    assert distinct.tolist() == [[-3, 0], [0, 5], [2, -1]] and counts.tolist() == [1, 1, 2]
