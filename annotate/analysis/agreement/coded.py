"""Ratings as integer codes, one entry per rating (unit, rater, category index): the representation every
agreement coefficient is computed from, whatever the number of raters.

A dense units x raters matrix costs ``n_units * n_raters`` cells, almost all empty when a crowd of tens of
thousands of raters each rates a few units (1.67M Arena battles x 40,000 judges would be 498 GiB); the codes
cost three integers per rating.  Every coefficient is a sum of per-unit statistics (category counts per
unit, by ``bincount``; the cells of a rater pair on the units both rated, by intersecting their sorted
units), and the rater pairs that share units are found among the units with two ratings or more, so
nothing here grows with units x raters or with raters x raters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from annotate.analysis.agreement.matrix import _categories_for, _factorize, _is_number, _plain, value_domain
from annotate.frame_codes import code_columns

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CodedRatings", "RowCodes", "coded_from_matrix", "coded_labels", "coded_ratings", "coded_rows",
           "coded_subset"]

_PAIR_CHUNK = 1 << 22
"""Rater pairs enumerated per step when counting the units pairs share (`CodedRatings.overlaps`)."""


@dataclass(frozen=True)
class CodedRatings:
    """Ratings of ``n_units`` units by ``n_raters`` raters as parallel arrays sorted by (unit, rater).

    unit, rater: int64 codes (positions among the units and raters); value: int64 index into
    ``domain`` (the value domain, float64 ``(V,)``: numbers for numeric categories, else ``0 .. V - 1``).
    At most one rating per (unit, rater).  Units and raters without any rating may exist (they count in
    ``n_units`` / ``n_raters``: the bootstrap resamples all ``n_units``).
    """

    unit: np.ndarray
    rater: np.ndarray
    value: np.ndarray
    domain: np.ndarray
    n_units: int
    n_raters: int

    @property
    def n_values(self) -> int:
        return int(self.domain.size)

    def counts(self) -> np.ndarray:
        """Per-unit category counts, shape ``(n_units, V)`` float64 (Krippendorff's n_uc)."""
        v = self.n_values
        flat = self.unit * v + self.value
        return np.bincount(flat, minlength=self.n_units * v).reshape(self.n_units, v).astype(np.float64)

    def ratings_per_unit(self) -> np.ndarray:
        """How many ratings each unit has, ``(n_units,)`` int64."""
        return np.bincount(self.unit, minlength=self.n_units)

    def raters_in(self, units: np.ndarray) -> int:
        """Raters with at least one rating in the units selected by the boolean mask ``units``."""
        return int(np.count_nonzero(np.bincount(self.rater[units[self.unit]], minlength=self.n_raters)))

    @cached_property
    def _by_rater(self) -> tuple[np.ndarray, np.ndarray]:
        """The ratings' positions sorted by (rater, unit), and where each rater's run starts ``(n_raters + 1,)``."""
        order = np.lexsort((self.unit, self.rater))
        starts = np.searchsorted(self.rater[order], np.arange(self.n_raters + 1))
        return order, starts

    def by_rater_order(self) -> np.ndarray:
        """The ratings' positions sorted by (rater, unit)."""
        return self._by_rater[0]

    def of_rater(self, r: int) -> tuple[np.ndarray, np.ndarray]:
        """Rater ``r``'s units (ascending) and category indices."""
        order, starts = self._by_rater
        mine = order[starts[r]:starts[r + 1]]
        return self.unit[mine], self.value[mine]

    def pair(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The units raters ``a`` and ``b`` both rated (ascending) and each one's category index there."""
        units_a, values_a = self.of_rater(a)
        units_b, values_b = self.of_rater(b)
        common, ia, ib = np.intersect1d(units_a, units_b, assume_unique=True, return_indices=True)
        return common, values_a[ia], values_b[ib]

    def without_rater(self, r: int) -> CodedRatings:
        """The same units and raters with rater ``r``'s ratings left out."""
        keep = self.rater != r
        return CodedRatings(self.unit[keep], self.rater[keep], self.value[keep], self.domain, self.n_units,
                            self.n_raters)

    def overlaps(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every pair of raters ``a < b`` that rated a unit in common, and how many: ``(a, b, shared)``,
        sorted by ``(a, b)`` (read-only arrays, computed once: a report's tables and pair counts ask for
        them several times).

        Pairs are enumerated within the units with two ratings or more only (grouped by their number of
        ratings), so the cost is the sum over those units of r_u (r_u - 1) / 2, never raters x raters.
        """
        return self._overlaps

    @cached_property
    def _overlaps(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        first, second, shared = self._pairs_sharing_units()
        for array in (first, second, shared):
            array.setflags(write=False)
        return first, second, shared

    def _pairs_sharing_units(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`overlaps`, computed."""
        per_unit = self.ratings_per_unit()
        multi = per_unit[self.unit] >= 2
        units, raters = self.unit[multi], self.rater[multi]  # sorted by (unit, rater)
        sizes = per_unit[units]
        keys: list[np.ndarray] = []
        for size in np.flatnonzero(np.bincount(sizes)):  # the distinct sizes, ascending (as np.unique)
            block = raters[sizes == size].reshape(-1, size)  # one row per unit, raters ascending
            first, second = np.triu_indices(int(size), k=1)
            step = max(1, _PAIR_CHUNK // max(1, first.size))
            for start in range(0, block.shape[0], step):
                rows = block[start:start + step]
                found = rows[:, first].astype(np.int64) * self.n_raters + rows[:, second]
                keys.append(np.unique(found.ravel(), return_counts=True))  # type: ignore[arg-type]
        if not keys:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        pair_keys = np.concatenate([k for k, _ in keys])  # type: ignore[misc]
        pair_counts = np.concatenate([c for _, c in keys])  # type: ignore[misc]
        uniq, inverse = np.unique(pair_keys, return_inverse=True)
        shared = np.bincount(inverse.ravel(), weights=pair_counts, minlength=uniq.size).astype(np.int64)
        return uniq // self.n_raters, uniq % self.n_raters, shared

    def to_matrix(self) -> np.ndarray:
        """The dense ``(n_units, n_raters)`` matrix of domain values, NaN where missing (small data only)."""
        matrix = np.full((self.n_units, self.n_raters), np.nan)
        matrix[self.unit, self.rater] = self.domain[self.value]
        return matrix


def _sorted(unit: np.ndarray, rater: np.ndarray, value: np.ndarray, domain: np.ndarray, n_units: int,
            n_raters: int) -> CodedRatings:
    unit, rater, value = (np.asarray(codes, dtype=np.int64) for codes in (unit, rater, value))
    key = unit * max(1, n_raters) + rater
    if not (key[1:] < key[:-1]).any():  # in order already (a file's reader sorts them): lexsort would keep it
        return CodedRatings(unit, rater, value, domain, n_units, n_raters)
    order = np.lexsort((rater, unit))
    return CodedRatings(unit[order], rater[order], value[order], domain, n_units, n_raters)


def coded_from_matrix(matrix: np.ndarray, categories: Sequence[Any] | None) -> CodedRatings:
    """The codes of a dense ``(n_units, n_raters)`` ratings matrix (NaN for missing).

    The value domain is ``value_domain(categories)``, or the sorted distinct values when
    ``categories`` is None; a value outside it is a ValueError.
    """
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2:
        raise ValueError(f"the ratings matrix must be 2-D (units x raters), got shape {m.shape}")
    units, raters = np.nonzero(~np.isnan(m))
    vals = m[units, raters]
    domain = np.unique(vals) if categories is None else value_domain(categories)
    return _sorted(units, raters, _domain_index(vals, domain), domain, m.shape[0], m.shape[1])


def _distinct(values: np.ndarray) -> bool:
    """Whether no value of 1-D ``values`` repeats (``np.unique`` without its options would import numpy.ma)."""
    ranked = np.sort(values)
    return not (ranked[1:] == ranked[:-1]).any()


def _domain_index(vals: np.ndarray, domain: np.ndarray) -> np.ndarray:
    """Each value's position in ``domain``; ValueError for duplicate categories or values outside them."""
    if not _distinct(domain):
        raise ValueError("categories contain duplicate values")
    if vals.size == 0:
        return np.zeros(0, dtype=np.int64)
    if domain.size == 0:
        raise ValueError("the ratings matrix holds values but categories is empty")
    sorter = np.argsort(domain, kind="stable")
    sorted_domain = domain[sorter]
    pos = np.clip(np.searchsorted(sorted_domain, vals), 0, domain.size - 1)
    outside = sorted_domain[pos] != vals
    if outside.any():
        raise ValueError(f"ratings matrix holds values outside the categories, e.g. {vals[outside][:3].tolist()}")
    return sorter[pos]


@dataclass(frozen=True, eq=False)
class RowCodes:
    """What `coded_ratings` made of each labelled rating of a frame, in the frame's order: the rows' index,
    their unit, rater and value codes, and the ids, categories and domain coded on. `coded_subset` codes
    some of these rows from them as `coded_ratings` codes those rows, without factorizing their texts again
    (a report codes the headline votes, then each category's)."""

    index: pd.Index
    unit: np.ndarray
    rater: np.ndarray
    value: np.ndarray
    unit_ids: tuple[Any, ...]
    rater_ids: tuple[Any, ...]
    categories: tuple[Any, ...]
    domain: np.ndarray
    ordered: bool
    """Units and raters were coded in sorted order with an ``order`` of categories given: a subset's codes
    are then its own sorted ones (a first-seen order, or categories from the labels, are not)."""


def coded_ratings(
    long_df: pd.DataFrame,
    unit: str = "unit",
    rater: str = "rater",
    label: str = "label",
    order: Sequence[Any] | None = None,
) -> tuple[CodedRatings, tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]:
    """Long judgments as codes: ``(coded, unit_ids, rater_ids, categories)``, as `ratings_matrix` but
    without the dense matrix (same units, raters, categories, checks and errors)."""
    return coded_rows(long_df, unit, rater, label, order)[0]


def coded_subset(rows: RowCodes, index: pd.Index) -> tuple[CodedRatings, tuple[Any, ...], tuple[Any, ...],
                                                             tuple[Any, ...]] | None:
    """`coded_ratings` of the labelled ratings at ``index`` (in that order), all among ``rows``, from their
    codes: each unit and rater recoded among those present, in the same sorted order; None when ``rows``
    cannot give them (not `RowCodes.ordered`, or a rating not among them)."""
    if not rows.ordered:
        return None
    at = rows.index.get_indexer(index)
    if (at < 0).any():
        return None
    unit, rater = rows.unit[at], rows.rater[at]
    units, unit_codes = np.unique(unit, return_inverse=True)
    raters, rater_codes = np.unique(rater, return_inverse=True)
    coded = _sorted(unit_codes.ravel(), rater_codes.ravel(), rows.value[at], rows.domain, units.size, raters.size)
    return (coded, tuple(rows.unit_ids[u] for u in units.tolist()), tuple(rows.rater_ids[r] for r in raters.tolist()),
            rows.categories)


def coded_rows(
    long_df: pd.DataFrame,
    unit: str = "unit",
    rater: str = "rater",
    label: str = "label",
    order: Sequence[Any] | None = None,
) -> tuple[tuple[CodedRatings, tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]], RowCodes]:
    """`coded_ratings`, and the codes of each labelled row (`RowCodes`)."""
    import pandas as pd

    missing_cols = [c for c in (unit, rater, label) if c not in long_df.columns]
    if missing_cols:
        raise ValueError(f"ratings are missing columns {missing_cols}")
    df = long_df.loc[long_df[label].notna(), [unit, rater, label, *code_columns(long_df, unit, rater)]]
    observed = [_plain(v) for v in pd.unique(df[label])]
    categories = _categories_for(observed, order)
    (unit_codes, unit_ids), unit_sorted = _factorize_sorted(df, unit)
    (rater_codes, rater_ids), rater_sorted = _factorize_sorted(df, rater)
    unit_codes, rater_codes = unit_codes.astype(np.int64), rater_codes.astype(np.int64)
    domain = value_domain(categories)
    if all(_is_number(c) for c in categories) and categories:
        values = _domain_index(df[label].astype(np.float64).to_numpy(), domain)
    else:
        if np.unique(domain).size != domain.size:
            raise ValueError("categories contain duplicate values")
        values = pd.Categorical(df[label], categories=list(categories)).codes.astype(np.int64)
    key = unit_codes * max(1, len(rater_ids)) + rater_codes
    uniq, counts = np.unique(key, return_counts=True)
    if (counts > 1).any():
        first = int(uniq[counts > 1][0])
        raise ValueError(
            f"unit {unit_ids[first // len(rater_ids)]!r} has more than one rating by rater "
            f"{rater_ids[first % len(rater_ids)]!r}; keep one judgment per (unit, rater)"
        )
    coded = _sorted(unit_codes, rater_codes, values, domain, len(unit_ids), len(rater_ids))
    ordered = (order is not None and unit_sorted and rater_sorted and bool((unit_codes >= 0).all())
               and bool((rater_codes >= 0).all()))
    rows = RowCodes(df.index, unit_codes, rater_codes, np.asarray(values, dtype=np.int64), unit_ids, rater_ids,
                    categories, domain, ordered)
    return (coded, unit_ids, rater_ids, categories), rows


def _factorize_sorted(df: pd.DataFrame, column: str) -> tuple[tuple[np.ndarray, tuple[Any, ...]], bool]:
    """`_factorize` of ``df[column]``, and whether its codes are in sorted order (the values sort); from the
    column's codes where `df` carries them (`annotate.frame_codes`)."""
    import pandas as pd

    from annotate.frame_codes import factorized

    fast = factorized(df, column, sort=True)
    if fast is not None:
        return (fast[0], tuple(_plain(u) for u in fast[1].tolist())), True
    values = df[column]
    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:
        return _factorize(values), False
    return (codes, tuple(_plain(u) for u in uniques.tolist())), True


def coded_labels(
    unit_codes: np.ndarray, rater_codes: np.ndarray, label_codes: np.ndarray, labels: Sequence[Any], n_units: int,
    n_raters: int, order: Sequence[Any] | None = None,
) -> tuple[CodedRatings, tuple[Any, ...]]:
    """Ratings already coded by unit and rater (at most one per pair), their labels coded on the categories:
    ``(coded, categories)``, what `coded_ratings` gives for the same ratings, without pandas.

    label_codes: each rating's position in `labels`, the distinct labels in the order they first occur in
    the ratings (each coded once); labels: all text or all numbers (float, finite); categories: ``order``
    if given (it must hold every label), else the sorted distinct labels (``1.0`` and ``-0.0`` / ``0.0``
    count once, as the first seen, as `pandas.unique` counts them).
    """
    categories = _categories_for([_plain(v) for v in dict.fromkeys(labels)], order)
    domain = value_domain(categories)
    if categories and all(_is_number(c) for c in categories):
        index = _domain_index(np.asarray(labels, dtype=np.float64), domain)
    else:
        if not _distinct(domain):
            raise ValueError("categories contain duplicate values")
        position = {category: k for k, category in enumerate(categories)}
        index = np.fromiter(map(position.__getitem__, labels), dtype=np.int64, count=len(labels))
    return _sorted(np.asarray(unit_codes), np.asarray(rater_codes), index[label_codes], domain, n_units,
                   n_raters), categories


def as_coded(ratings: np.ndarray | CodedRatings, categories: Sequence[Any] | None) -> CodedRatings:
    """``ratings`` as codes: a `CodedRatings` as it is (its domain stands), a dense matrix encoded on
    ``categories`` (`coded_from_matrix`)."""
    if isinstance(ratings, CodedRatings):
        return ratings
    return coded_from_matrix(ratings, categories)
