"""Annotator competence over time: how each annotator's answers change along their queue.

Per annotator and per block of queue positions (positions 1-20, 21-40, ...: ``block`` positions
each, by the assignment's place in the annotator's queue), four measures:

* **gold accuracy**: of their answers on items with a gold label (attention checks excluded), the
  share equal to it;
* **attention failures**: of their attention-check answers, the share *not* equal to the expected
  label;
* **fast answers**: the share of their answers whose active time (idle gaps removed; submit time
  where missing) is under ``fast_ms`` (default 3 s, `annotate.analysis.quality.FAST_MS`);
* **agreement with the rest**: for each of their answers on an item that other annotators also
  answered, the share of those others' answers with the same label, averaged over their answers
  (attention checks excluded; one answer per other annotator and item, the first).

A row for all annotators together (``rater`` None) per block pools the same answers.  Every share
carries its k and n and a 95 % percentile bootstrap interval whose unit is the item (items
resampled with all their answers in the cell, `annotate.analysis.bootstrap`); a measure with no
answer in a cell has a reason (``not enough data (n = 0 ...)``) instead of a number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.cell_ratios import cell_ratios
from annotate.analysis.estimate import json_number
from annotate.analysis.quality import FAST_MS
from annotate.analysis.reasons import not_enough
from annotate.frame_codes import factorize, filled

__all__ = ["BLOCK", "MAX_BLOCKS", "CompetenceCell", "Measure", "block_size", "competence_over_time",
           "rest_agreement_per_vote"]

BLOCK = 20
"""Queue positions per block, at least (queues of up to BLOCK x MAX_BLOCKS positions)."""
MAX_BLOCKS = 100
"""Blocks per annotator, at most: a longer queue gets longer blocks, so the cells (and the report) stay
bounded however long the queues grow (1M positions: blocks of 10,000)."""

MEASURES = ("gold", "attention_failures", "fast", "rest")


@dataclass(frozen=True)
class Measure:
    """A share in one cell: k of n (n answers; k hits, or the summed agreement for ``rest``), with an
    item-bootstrap interval and the number of items; reason when n is 0."""

    k: float
    n: int
    share: float
    ci_low: float
    ci_high: float
    n_items: int
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"k": json_number(round(self.k, 6)), "n": self.n, "share": json_number(self.share),
                "ci": [json_number(self.ci_low), json_number(self.ci_high)], "n_items": self.n_items,
                "unit": "items", "reason": self.reason}


@dataclass(frozen=True)
class CompetenceCell:
    """One annotator (None: all) in one block of queue positions (first..last, 1-based)."""

    rater: Any
    block: int
    first: int
    last: int
    n_answers: int
    gold: Measure
    attention_failures: Measure
    fast: Measure
    rest: Measure

    def to_json(self) -> dict[str, Any]:
        return {"rater": self.rater, "block": self.block, "positions": [self.first, self.last],
                "n_answers": self.n_answers, **{m: getattr(self, m).to_json() for m in MEASURES}}


def rest_agreement_per_vote(votes: pd.DataFrame) -> pd.Series:
    """For each vote (columns item, rater, label), the share of the *other* raters' votes on the
    same item with the same label (one vote per other rater, the first); NaN when nobody else voted.

    >>> v = pd.DataFrame({"item": [1, 1, 1, 2], "rater": ["x", "y", "z", "x"], "label": ["A", "A", "B", "A"]})
    >>> rest_agreement_per_vote(v).tolist()
    [0.5, 0.5, 0.0, nan]
    """
    items = factorize(votes, "item")[0].astype(np.int64)
    raters, rater_values = factorize(votes, "rater")
    labels, label_values = pd.factorize(votes["label"])  # -1: no label, never the same as another's
    n_raters, n_labels = max(len(rater_values), 1), len(label_values) + 1
    pair = items * n_raters + raters
    _, first, which = np.unique(pair, return_index=True, return_inverse=True)  # the first vote per item and rater
    first_item, first_label = items[first], labels[first]
    labelled = first_label >= 0
    per_label = np.bincount(first_item[labelled] * n_labels + first_label[labelled],
                            minlength=(int(items.max(initial=0)) + 1) * n_labels)
    per_item = np.bincount(first_item, minlength=int(items.max(initial=0)) + 1)
    same = np.where(labels >= 0, per_label[items * n_labels + np.maximum(labels, 0)], 0).astype(float)
    total = per_item[items].astype(float)
    # the vote's own rater is among the counted firsts once (their first answer on the item)
    own = first_label[which.ravel()]
    same -= ((own == labels) & (labels >= 0)).astype(float)
    others = total - 1.0
    out = np.full(len(votes), np.nan)
    np.divide(same, others, out=out, where=others > 0)
    return pd.Series(out, index=votes.index)


def block_size(positions: pd.Series, *, least: int = BLOCK, most_blocks: int = MAX_BLOCKS) -> int:
    """Positions per block for queues answered up to these 0-based positions: ``least``, or more when the
    furthest answered position would need more than ``most_blocks`` blocks of it (ceil(queue / most_blocks)).

    >>> block_size(pd.Series([0, 1999])), block_size(pd.Series([2000])), block_size(pd.Series([999_999]))
    (20, 21, 10000)
    """
    known = pd.to_numeric(positions, errors="coerce").dropna()
    queue = int(known.max()) + 1 if len(known) else 0
    return max(least, -(-queue // most_blocks))


def competence_over_time(
    votes: pd.DataFrame, *, block: int = BLOCK, fast_ms: int = FAST_MS, n_boot: int = 0, seed: int | None = 0,
) -> tuple[CompetenceCell, ...]:
    """Cells per (annotator, block), all annotators first within each block, blocks in queue order.

    votes: the session's own judgments, one row each, columns item, rater, label, gold, purpose,
    active_ms, submit_ms, position (0-based place in the annotator's queue).  Rows without a label
    or a position are left out.
    """
    if block < 1:
        raise ValueError("block must be at least 1 position")
    v = votes.loc[votes["label"].notna() & votes["position"].notna()].copy()
    if v.empty:
        return ()
    v["purpose"] = filled(v["purpose"], "main")
    v["_block"] = (pd.to_numeric(v["position"]).astype(int) // block).astype(int)
    label, gold = v["label"].astype(str), v["gold"]
    attention = (v["purpose"] == "attention").to_numpy()
    has_gold = gold.notna().to_numpy()
    hit = (label == gold.astype(str)).to_numpy()
    v["_gold"] = np.where(has_gold & ~attention, hit.astype(float), np.nan)
    v["_fail"] = np.where(has_gold & attention, (~hit).astype(float), np.nan)
    active = pd.to_numeric(v["active_ms"], errors="coerce")
    ms = active.fillna(pd.to_numeric(v["submit_ms"], errors="coerce")).to_numpy(np.float64)
    v["_fast"] = np.where(np.isnan(ms), np.nan, (ms < fast_ms).astype(float))
    main = v.loc[~attention]
    rest = pd.Series(np.nan, index=v.index)
    rest.loc[main.index] = rest_agreement_per_vote(main)
    v["_rest"] = rest
    whys = {"gold": "no gold item", "attention_failures": "no attention check",
            "fast": "no answer with a time", "rest": "no one else on its items"}
    columns = {"gold": "_gold", "attention_failures": "_fail", "fast": "_fast", "rest": "_rest"}
    blocks, raters, whole, own = _cells(v)
    n_cells = int(max(whole.max(), own.max())) + 1
    n_answers = np.bincount(np.concatenate([whole, own]), minlength=n_cells)
    units = _Units.of(pd.factorize(v["item"])[0], whole, own)
    measures = dict(zip(MEASURES, _measures([v[columns[m]].to_numpy(np.float64) for m in MEASURES], units, n_cells,
                                            [whys[m] for m in MEASURES], n_boot, seed), strict=True))
    cells = []
    for c in range(n_cells):
        b = int(blocks[c])
        cells.append(CompetenceCell(raters[c], b + 1, b * block + 1, (b + 1) * block, int(n_answers[c]),
                                    **{m: measures[m][c] for m in MEASURES}))
    return tuple(cells)


def _cells(v: pd.DataFrame) -> tuple[np.ndarray, list[Any], np.ndarray, np.ndarray]:
    """The cells in report order (blocks in queue order; in each, all annotators, then each annotator in
    sorted order): each cell's block and rater (None: all), and each answer's two cells (all, its own)."""
    block_codes, block_values = pd.factorize(v["_block"], sort=True)
    rater_codes, rater_values = factorize(v, "rater", sort=True)
    width = len(rater_values) + 1
    whole_key = block_codes.astype(np.int64) * width
    own_key = whole_key + rater_codes + 1
    keys = np.unique(np.concatenate([whole_key, own_key]))
    raters = [None if key % width == 0 else rater_values[key % width - 1] for key in keys.tolist()]
    blocks = np.asarray(block_values, dtype=np.int64)[keys // width]
    return blocks, raters, np.searchsorted(keys, whole_key), np.searchsorted(keys, own_key)


@dataclass(frozen=True, eq=False)
class _Units:
    """Every answer twice (in its all-annotators cell and its own), sorted by cell, a cell's answers in the
    votes' order, and each of these entries' (cell, item) unit: computed once for all the measures, which keep
    some of the entries each (`_measures`)."""

    order: np.ndarray
    """The entries (the answers' positions, then the same positions again) in that order."""
    cell: np.ndarray
    unit: np.ndarray
    """Each sorted entry's (cell, item) unit, 0 .. n_units - 1."""
    n_units: int

    @classmethod
    def of(cls, items: np.ndarray, whole: np.ndarray, own: np.ndarray) -> _Units:
        cell = np.concatenate([whole, own])
        order = np.argsort(cell, kind="stable")  # by cell, each cell's answers in the votes' order
        cell, item = cell[order], np.concatenate([items, items])[order]
        keys, unit = np.unique(cell * (int(items.max(initial=0)) + 1) + item, return_inverse=True)
        return cls(order, cell, unit.ravel(), int(keys.size))


def _measures(values: list[np.ndarray], units: _Units, n_cells: int, whats: list[str], n_boot: int,
              seed: int | None) -> list[list[Measure]]:
    """Each measure in every cell: the mean of the answers' ``values`` (NaN: not counted) with an interval
    resampling the cell's items, each with its answers in the cell (`cell_ratios`, one call for all the
    measures' cells: a cell's figures depend on its own units only, and cells of one size share the draws).
    A cell's items are numbered in the order their first counted answer comes in it."""
    parts = [_units_kept(v, units, n_cells) for v in values]
    unit_cell = np.concatenate([part[0] + n_cells * m for m, part in enumerate(parts)])
    ratios = cell_ratios(unit_cell, np.concatenate([part[1] for part in parts]),
                         np.concatenate([part[2] for part in parts]), n_cells * len(parts), n_boot=n_boot, seed=seed)
    out = []
    for m, ((_, _, _, k, n), what) in enumerate(zip(parts, whats, strict=True)):
        empty = Measure(0.0, 0, float("nan"), float("nan"), float("nan"), 0, not_enough(0, "answers", what))
        at = n_cells * m
        out.append([Measure(float(k[c]), int(n[c]), float(ratios.share[at + c]), float(ratios.ci_low[at + c]),
                            float(ratios.ci_high[at + c]), int(ratios.n_units[at + c])) if n[c] else empty
                    for c in range(n_cells)])
    return out


def _units_kept(values: np.ndarray, units: _Units, n_cells: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                          np.ndarray, np.ndarray]:
    """One measure's units: each unit's cell, sum of values and count (units sorted by cell, numbered by
    their first counted entry), and each cell's sum and count of counted entries."""
    value = np.concatenate([values, values])[units.order]
    keep = np.flatnonzero(~np.isnan(value))
    cell, value, of_unit = units.cell[keep], value[keep], units.unit[keep]
    first = np.full(units.n_units, keep.size, dtype=np.int64)  # each unit's first kept entry
    np.minimum.at(first, of_unit, np.arange(keep.size, dtype=np.int64))
    opening = first[of_unit] == np.arange(keep.size)
    rank = np.empty(units.n_units, dtype=np.int64)  # the units kept, in the order they first appear
    n_kept = int(opening.sum())
    rank[of_unit[opening]] = np.arange(n_kept)
    unit = rank[of_unit]
    k_i = np.bincount(unit, value, minlength=n_kept)
    n_i = np.bincount(unit, minlength=n_kept).astype(np.float64)
    unit_cell = np.empty(n_kept, dtype=np.int64)
    unit_cell[unit] = cell
    return unit_cell, k_i, n_i, np.bincount(cell, value, minlength=n_cells), np.bincount(cell, minlength=n_cells)
