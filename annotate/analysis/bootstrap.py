"""Vectorised nonparametric bootstrap over units, shared by every statistic in `annotate.analysis`.

Every statistic here is a function of *sums of per-unit sufficient statistics* (features).  One
bootstrap resample of units is therefore a weight vector ``w`` (how often each unit was drawn) and
its feature sums are ``w @ features``.  The weights of ``B`` resamples come from an index matrix of
shape ``(B, n_units)`` drawn with ``numpy.random.default_rng(seed).integers`` and counted with one
``bincount``; the sums of all resamples are one matrix product.  No Python loop runs over units or
(for memory, only over blocks of) resamples.

Reference: Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 6 and 13 (percentile
interval).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from annotate.analysis.estimate import Estimate

__all__ = [
    "DEFAULT_N_BOOT",
    "MIN_UNITS_FOR_INTERVAL",
    "Part",
    "bootstrap_sums",
    "estimate_from_features",
    "estimates_from_features",
    "estimates_on_shared_resamples",
    "percentile_interval",
    "resample_counts",
    "safe_ratio",
]

DEFAULT_N_BOOT = 1000
"""Default number of bootstrap resamples."""

_MAX_CELLS = 1 << 22
"""Upper bound on ``block_rows * n_units`` so one block of weights stays around 32 MiB."""

_MIN_DEFINED_SHARE = 0.5
"""An interval is reported only if at least this share of resamples gave a finite statistic."""

MIN_UNITS_FOR_INTERVAL = 2
"""No interval from fewer units than this: every resample of one unit is that unit, so the
"interval" would be the point estimate twice (e.g. ``[-1.000, -1.000]``), which reads as certainty."""


def resample_counts(rng: np.random.Generator, n_units: int, n_boot: int) -> Iterator[np.ndarray]:
    """Yield blocks of bootstrap weights, shape ``(block, n_units)``, float64, rows summing to ``n_units``.

    Row ``b`` counts how often each unit was drawn in resample ``b`` (units drawn with replacement,
    ``n_units`` draws).  Blocks are consecutive draws from ``rng``, so the stream of resamples does
    not depend on the block size.
    """
    if n_units <= 0 or n_boot <= 0:
        return
    rows = max(1, _MAX_CELLS // n_units)
    done = 0
    while done < n_boot:
        block = min(rows, n_boot - done)
        idx = rng.integers(0, n_units, size=(block, n_units))
        idx += (np.arange(block, dtype=idx.dtype) * n_units)[:, None]
        counts = np.bincount(idx.ravel(), minlength=block * n_units).reshape(block, n_units)
        yield counts.astype(np.float64)
        done += block


def bootstrap_sums(features: np.ndarray, n_boot: int, seed: int | None) -> np.ndarray:
    """Feature sums of ``n_boot`` resamples of the rows of ``features``.

    features: ``(n_units, k)`` per-unit sufficient statistics.
    Returns ``(n_boot, k)``; empty ``(0, k)`` when ``n_boot == 0`` or there are no units.
    """
    features = np.asarray(features, dtype=np.float64)
    n_units, k = features.shape
    if n_boot <= 0 or n_units == 0:
        return np.empty((0, k))
    rng = np.random.default_rng(seed)
    return np.concatenate([w @ features for w in resample_counts(rng, n_units, n_boot)], axis=0)


def percentile_interval(samples: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of bootstrap ``samples`` (1-D), ignoring non-finite resamples.

    The quantiles at ``(1 - level) / 2`` and ``(1 + level) / 2`` with linear interpolation, computed as
    ``numpy.quantile`` computes them, to the bit (`_quantiles`), without its import of numpy.ma.
    Returns ``(nan, nan)`` when fewer than half the resamples are finite.
    """
    samples = np.asarray(samples, dtype=np.float64).ravel()
    finite = samples[np.isfinite(samples)]
    if samples.size == 0 or finite.size < _MIN_DEFINED_SHARE * samples.size:
        return (float("nan"), float("nan"))
    tail = (1.0 - level) / 2.0
    lo, hi = _quantiles(finite, np.array([tail, 1.0 - tail])).tolist()
    return (lo, hi)


def _quantiles(values: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``numpy.quantile(values, q)`` (method "linear") of a 1-D float64 array without NaN: the same steps
    (the virtual indexes ``(n - 1) * q``, a partition at the same positions, the same interpolation), so
    the same bits, zeros' signs included; `values` is partitioned in place.

    (``numpy.quantile`` picks its partition positions with ``np.unique``, which imports numpy.ma, about 20 ms.)
    """
    if ((q < 0) | (q > 1)).any():
        raise ValueError("Quantiles must be in the range [0, 1]")
    n = values.size
    at = (n - 1) * q
    below = np.floor(at)
    above = below + 1
    last = at >= n - 1  # past the last value: the last value
    below[last] = -1
    above[last] = -1
    low, high = below.astype(np.intp), above.astype(np.intp)
    values.partition(np.array(sorted({0, -1, *low.tolist(), *high.tolist()}), dtype=np.intp))
    a, b = values[low], values[high]
    gamma = at - below
    step = b - a
    out = a + step * gamma
    np.subtract(b, step * (1 - gamma), out=out, where=gamma >= 0.5)
    return out


def estimate_from_features(
    features: np.ndarray,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    n_boot: int,
    seed: int | None,
    n_units: int,
    n_raters: int,
    n_pairable: int,
    by_pattern: bool = False,
) -> Estimate:
    """Point estimate and percentile interval of one statistic of feature sums.

    features: ``(n_units, k)``; statistic maps sums of shape ``(m, k)`` to ``(m,)`` values (NaN where
    undefined).  The point estimate is ``statistic`` of the column sums of ``features``.  by_pattern:
    as `estimates_on_shared_resamples` has it.
    """
    return estimates_from_features(
        features,
        {"value": statistic},
        n_boot=n_boot,
        seed=seed,
        n_units=n_units,
        n_raters=n_raters,
        n_pairable=n_pairable,
        by_pattern=by_pattern,
    )["value"]


def estimates_from_features(
    features: np.ndarray,
    statistics: Mapping[str, Callable[[np.ndarray], np.ndarray]],
    *,
    n_boot: int,
    seed: int | None,
    n_units: int,
    n_raters: int,
    n_pairable: int,
    by_pattern: bool = False,
) -> dict[str, Estimate]:
    """Several statistics of the same feature sums, all evaluated on the *same* resamples.

    Returns one `Estimate` per key of ``statistics``, with the given counts.  With fewer than
    `MIN_UNITS_FOR_INTERVAL` units (``n_units``: the units the statistic is about) the intervals are
    NaN: there is nothing to resample.  by_pattern: as `estimates_on_shared_resamples` has it.
    """
    features = np.asarray(features, dtype=np.float64)
    part = Part(features, None, statistics, n_units, n_raters, n_pairable)
    return estimates_on_shared_resamples([part], features.shape[0], n_boot=n_boot, seed=seed,
                                         by_pattern=by_pattern)[0]


@dataclass(frozen=True)
class Part:
    """Statistics of one feature matrix over some of the units of a table (`estimates_on_shared_resamples`).

    features: ``(len(rows), k)`` per-unit sufficient statistics of the units at ``rows`` (positions
    among the table's units; None: every unit, in order); statistics: name -> function of feature
    sums ``(m, k) -> (m,)``; n_units, n_raters, n_pairable: the counts the estimates carry.
    """

    features: np.ndarray
    rows: np.ndarray | None
    statistics: Mapping[str, Callable[[np.ndarray], np.ndarray]]
    n_units: int
    n_raters: int
    n_pairable: int


def estimates_on_shared_resamples(
    parts: Sequence[Part], n_units: int, *, n_boot: int, seed: int | None, by_pattern: bool = False
) -> list[dict[str, Estimate]]:
    """Every part's estimates on the same ``n_boot`` resamples of a table's ``n_units`` units, drawn once.

    One resample of the table's units gives every part the weights of the units it uses (its
    ``rows``), so the coefficients and rater pairs of one table share their draws, and the weights
    are drawn once per table, not once per statistic: the parts' features stand side by side in one
    table over the units (zero where a part does not use a unit), a block of resamples is drawn and
    multiplied by it once, and the next block replaces it (memory: one block, ~32 MiB, and the table;
    a table above `_MAX_TABLE_CELLS` is read in several passes over the same resamples).  A part with
    fewer than `MIN_UNITS_FOR_INTERVAL` units of its own, or no features, gets NaN intervals.

    by_pattern: units whose features are the same in every part are one *pattern* (a units x raters
    table of a few categories has a few hundred, whatever its size); when the patterns are at most a
    quarter of the units, a resample is drawn as how many of its ``n_units`` draws fall on each
    pattern (multinomial with the patterns' shares, `_pattern_counts`), which is the distribution of
    the same counts under drawing units, at a cost that does not grow with the units.
    """
    features = [np.asarray(part.features, dtype=np.float64) for part in parts]
    boots: list[list[np.ndarray]] = [[] for _ in parts]
    wanted = [i for i, (part, f) in enumerate(zip(parts, features, strict=True))
              if f.shape[0] > 0 and part.n_units >= MIN_UNITS_FOR_INTERVAL]
    patterns = _patterns([features[i] for i in wanted], [parts[i].rows for i in wanted], n_units) \
        if by_pattern and n_boot > 0 and wanted else None
    if patterns is not None:
        shares, tables = patterns
        rng = np.random.default_rng(seed)
        for counts in _pattern_counts(rng, n_units, shares, n_boot):
            for i, table in zip(wanted, tables, strict=True):
                boots[i].append(counts @ table)
    elif n_boot > 0 and n_units > 0:
        for group in _groups([features[i].shape[1] for i in wanted], n_units):
            chosen = [wanted[g] for g in group]
            table, offsets = _feature_table([features[i] for i in chosen], [parts[i].rows for i in chosen], n_units)
            rng = np.random.default_rng(seed)  # every group reads the same resamples
            for weights in resample_counts(rng, n_units, n_boot):
                sums = weights @ table
                for i, (start, stop) in zip(chosen, offsets, strict=True):
                    boots[i].append(sums[:, start:stop])
    out = []
    for part, f, drawn in zip(parts, features, boots, strict=True):
        if f.shape[0] == 0:
            out.append({name: Estimate.undefined(part.n_units, part.n_raters, part.n_pairable)
                        for name in part.statistics})
            continue
        total = f.sum(axis=0, keepdims=True)
        sums = np.concatenate(drawn, axis=0) if drawn else None
        estimates = {}
        for name, statistic in part.statistics.items():
            point = float(statistic(total)[0])
            lo, hi = percentile_interval(statistic(sums)) if sums is not None else (float("nan"), float("nan"))
            estimates[name] = Estimate(point, lo, hi, part.n_units, part.n_raters, part.n_pairable)
        out.append(estimates)
    return out


def _patterns(
    features: Sequence[np.ndarray], rows: Sequence[np.ndarray | None], n_units: int
) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """The units' distinct feature patterns over all parts: each pattern's share of the units and, per
    part, its features per pattern ``(P, k)`` (zero where the part does not use the pattern's units).
    None when the patterns are more than a quarter of the units (drawing units is then as cheap).

    Units are grouped by a random projection of their features and every unit is then checked
    against its group's first unit, so a chance collision of projections falls back to drawing units.
    """
    placed = [np.arange(n_units) if r is None else np.asarray(r) for r in rows]
    projector = np.random.default_rng(0x5EED)
    key = np.zeros(n_units)
    for f, r in zip(features, placed, strict=True):
        key[r] += f @ projector.random(f.shape[1])  # a part's rows are distinct units
    _, first, pattern = np.unique(key, return_index=True, return_inverse=True)
    pattern = pattern.ravel()
    if first.size * 4 > n_units:
        return None
    tables = []
    for f, r in zip(features, placed, strict=True):
        where = np.full(n_units, -1, dtype=np.int64)
        where[r] = np.arange(r.size)
        at_first = where[first]
        table = np.zeros((first.size, f.shape[1]))
        table[at_first >= 0] = f[at_first[at_first >= 0]]
        if not np.array_equal(table[pattern[r]], f):
            return None
        outside = np.ones(n_units, dtype=bool)
        outside[r] = False
        if table[pattern[outside]].any():
            return None
        tables.append(table)
    shares = np.bincount(pattern, minlength=first.size) / n_units
    return shares, tables


def _pattern_counts(rng: np.random.Generator, n_units: int, shares: np.ndarray, n_boot: int) -> Iterator[np.ndarray]:
    """Blocks of ``(block, P)`` float counts: how many of a resample's ``n_units`` draws fall on each pattern."""
    rows = max(1, _MAX_CELLS // shares.size)
    done = 0
    while done < n_boot:
        block = min(rows, n_boot - done)
        yield rng.multinomial(n_units, shares, size=block).astype(np.float64)
        done += block


_MAX_TABLE_CELLS = 1 << 24
"""Upper bound on the cells of the feature table one pass over the resamples multiplies (128 MiB):
more features than that are read in several passes, each over the same resamples drawn again."""


def _groups(widths: Sequence[int], n_units: int) -> list[list[int]]:
    """Consecutive runs of parts (by their feature widths) whose table stays under `_MAX_TABLE_CELLS`."""
    groups: list[list[int]] = []
    cells = 0
    for k, width in enumerate(widths):
        if groups and cells + width * n_units <= _MAX_TABLE_CELLS:
            groups[-1].append(k)
            cells += width * n_units
        else:
            groups.append([k])
            cells = width * n_units
    return groups


def _feature_table(
    features: Sequence[np.ndarray], rows: Sequence[np.ndarray | None], n_units: int
) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """The parts' features side by side over all ``n_units`` units (zero where a part does not use a
    unit), so one matrix product per block of resamples gives every part's sums; and each part's columns."""
    if len(features) == 1 and rows[0] is None:
        return features[0], [(0, features[0].shape[1])]
    table = np.zeros((n_units, sum(f.shape[1] for f in features)))
    offsets = []
    start = 0
    for f, r in zip(features, rows, strict=True):
        stop = start + f.shape[1]
        table[slice(None) if r is None else r, start:stop] = f
        offsets.append((start, stop))
        start = stop
    return table, offsets


def safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Elementwise ``num / den`` with NaN where ``den == 0``."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out
