"""Many ratio statistics at once: k of n summed over the units of each *cell*, every cell bootstrapped
over its own units, as `estimate_from_features` bootstraps one (`annotate.analysis.bootstrap`).

A report asks for thousands of small shares (per annotator and block of their queue, per category ...),
each a ratio sum(k_i) / sum(n_i) over a few dozen items with its own item bootstrap.  One resample of a
cell of m units with the session's seed is the same weight matrix whatever the cell: `resample_counts`
from ``default_rng(seed)`` depends on m and the number of resamples only.  So the weights are drawn once
per unit count m and every cell of m units is summed with them in one matrix product, the ratios and
percentiles taken along the resamples of all those cells at once.  The figures are those of one
`estimate_from_features` call per cell, resample for resample (the same draws, the same sums); a cell of
more than `PATTERN_UNITS` units is resampled by the patterns of its units' values instead (the same
distribution, other draws).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from annotate.analysis.bootstrap import MIN_UNITS_FOR_INTERVAL, percentile_interval, resample_counts, safe_ratio

__all__ = ["CellRatios", "cell_ratios"]

PATTERN_UNITS = 2_000
"""A cell of more units than this is resampled by the patterns of its units' values (`_by_pattern`):
competence cells of long queues hold thousands of items (blocks of 10,000 positions at 1M), whose
weights drawn unit by unit would cost n_boot x units per distinct cell size."""

_MAX_BLOCK_CELLS = 1 << 22
"""Upper bound on ``n_boot * cells`` of one block of resampled sums (about 32 MiB)."""


@dataclass(frozen=True, eq=False)
class CellRatios:
    """Per cell: the ratio of the sums, its 95 % percentile interval (NaN without one) and its units."""

    share: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    n_units: np.ndarray


def cell_ratios(cell: np.ndarray, k: np.ndarray, n: np.ndarray, n_cells: int, *, n_boot: int,
                seed: int | None) -> CellRatios:
    """The ratio sum(k) / sum(n) of every cell with an interval resampling its units.

    cell: the cell of each unit (``0 .. n_cells - 1``), non-decreasing, a cell's units in the order its
    bootstrap numbers them; k, n: each unit's sums.  A cell with no unit has a NaN share; one with fewer
    than `MIN_UNITS_FOR_INTERVAL` units, or ``n_boot`` 0, NaN intervals.
    """
    cell = np.asarray(cell, dtype=np.int64)
    k, n = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    if cell.size and (np.diff(cell) < 0).any():
        raise ValueError("units must be sorted by cell")
    sizes = np.bincount(cell, minlength=n_cells) if cell.size else np.zeros(n_cells, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    share, low, high = (np.full(n_cells, np.nan) for _ in range(3))
    large = sizes > PATTERN_UNITS
    big = np.flatnonzero(large)
    drawn = []  # the large cells' resampled ratios, one column each, their intervals taken in one call
    for c in big:
        share[c], ratios = _by_pattern(k[starts[c]:starts[c] + sizes[c]], n[starts[c]:starts[c] + sizes[c]],
                                       n_boot, seed)
        drawn.append(ratios)
    if n_boot > 0 and big.size:
        low[big], high[big] = _intervals(np.column_stack(drawn))
    for m in np.unique(sizes[(sizes > 0) & ~large]):
        cells = np.flatnonzero(sizes == m)
        at = starts[cells][:, None] + np.arange(m)[None, :]
        features = np.stack([k[at], n[at]], axis=2)  # (cells, m, 2): each cell's features, units in order
        total = features.sum(axis=1)
        share[cells] = safe_ratio(total[:, 0], total[:, 1])
        if n_boot <= 0 or m < MIN_UNITS_FOR_INTERVAL:
            continue
        weights = np.concatenate(list(resample_counts(np.random.default_rng(seed), int(m), n_boot)), axis=0)
        table = np.ascontiguousarray(features.transpose(1, 0, 2).reshape(int(m), 2 * cells.size))
        step = max(1, _MAX_BLOCK_CELLS // (2 * n_boot))
        for begin in range(0, cells.size, step):
            sums = weights @ np.ascontiguousarray(table[:, 2 * begin : 2 * (begin + step)])
            ratios = safe_ratio(sums[:, 0::2], sums[:, 1::2])
            lo, hi = _intervals(ratios)
            low[cells[begin : begin + step]], high[cells[begin : begin + step]] = lo, hi
    return CellRatios(share, low, high, sizes)


def _by_pattern(k: np.ndarray, n: np.ndarray, n_boot: int, seed: int | None) -> tuple[float, np.ndarray]:
    """One cell of many units: its ratio, and the ratios of resamples drawn as how many of the cell's
    draws fall on each distinct (k, n) of its units (multinomial with their shares), the distribution
    of drawing units at a cost that grows with the distinct values, not the units (none when ``n_boot``
    is 0)."""
    ratio = float(safe_ratio(np.array([k.sum()]), np.array([n.sum()]))[0])
    if n_boot <= 0:
        return ratio, np.empty(0)
    patterns, counts = _patterns(k, n)
    drawn = np.random.default_rng(seed).multinomial(k.size, counts / k.size, size=n_boot).astype(np.float64)
    sums = drawn @ patterns
    return ratio, safe_ratio(sums[:, 0], sums[:, 1])


def _patterns(k: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (k, n) rows in lexicographic order and how many units have each: what
    ``np.unique(np.column_stack([k, n]), axis=0, return_counts=True)`` gives (the same rows, compared by
    value), by one lexsort instead of its sort of a structured view (about 50 times slower)."""
    order = np.lexsort((n, k))
    ks, ns = k[order], n[order]
    starts = np.flatnonzero(np.r_[True, (ks[1:] != ks[:-1]) | (ns[1:] != ns[:-1])])
    return np.column_stack([ks[starts], ns[starts]]), np.diff(np.r_[starts, k.size])


def _intervals(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`percentile_interval` of every column of ``(n_boot, cells)``, the finite columns in one call."""
    finite = np.isfinite(samples).all(axis=0)
    low, high = np.full(samples.shape[1], np.nan), np.full(samples.shape[1], np.nan)
    if finite.any():
        tail = (1.0 - 0.95) / 2.0
        bounds = np.quantile(samples[:, finite], [tail, 1.0 - tail], axis=0)
        low[finite], high[finite] = bounds[0], bounds[1]
    for c in np.flatnonzero(~finite):
        low[c], high[c] = percentile_interval(samples[:, c])
    return low, high
