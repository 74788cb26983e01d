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

from annotate.analysis.bootstrap import estimate_from_features, safe_ratio
from annotate.analysis.estimate import json_number
from annotate.analysis.quality import FAST_MS
from annotate.analysis.reasons import not_enough

__all__ = ["BLOCK", "CompetenceCell", "Measure", "competence_over_time", "rest_agreement_per_vote"]

BLOCK = 20
"""Queue positions per block."""

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
    firsts = votes.drop_duplicates(["item", "rater"])[["item", "rater", "label"]]
    per_label = firsts.groupby(["item", "label"], sort=False).size()
    per_item = firsts.groupby("item", sort=False).size()
    keys = pd.MultiIndex.from_arrays([votes["item"], votes["label"]])
    same = per_label.reindex(keys).fillna(0).to_numpy(float, copy=True)
    total = per_item.reindex(votes["item"]).fillna(0).to_numpy(float)
    # the vote's own rater is among the counted firsts once (their first answer on the item)
    own_first = firsts.set_index(["item", "rater"])["label"]
    own = own_first.reindex(pd.MultiIndex.from_arrays([votes["item"], votes["rater"]])).to_numpy(dtype=object)
    same -= (own == votes["label"].to_numpy(dtype=object)).astype(float)
    others = total - 1.0
    out = np.full(len(votes), np.nan)
    np.divide(same, others, out=out, where=others > 0)
    return pd.Series(out, index=votes.index)


def _measure(values: np.ndarray, items: np.ndarray, what: str, n_boot: int, seed: int | None) -> Measure:
    """Mean of per-answer ``values`` with an interval resampling ``items`` (each with its answers)."""
    keep = ~np.isnan(values)
    values, items = values[keep], items[keep]
    if values.size == 0:
        return Measure(0.0, 0, float("nan"), float("nan"), float("nan"), 0, not_enough(0, "answers", what))
    codes, _ = pd.factorize(pd.Series(items, dtype=object))
    k_i = np.bincount(codes, values)
    n_i = np.bincount(codes).astype(np.float64)
    est = estimate_from_features(np.column_stack([k_i, n_i]), lambda s: safe_ratio(s[:, 0], s[:, 1]), n_boot=n_boot,
                                 seed=seed, n_units=int(k_i.size), n_raters=0, n_pairable=int(values.size))
    return Measure(float(values.sum()), int(values.size), est.estimate, est.ci_low, est.ci_high, int(k_i.size))


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
    v["purpose"] = v["purpose"].fillna("main")
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
    cells = []
    for b, in_block in v.groupby("_block", sort=True):
        groups = [(None, in_block), *in_block.groupby("rater", sort=True)]
        for rater, part in groups:
            items = part["item"].to_numpy(dtype=object)
            measures = {m: _measure(part[columns[m]].to_numpy(np.float64), items, whys[m], n_boot, seed)
                        for m in MEASURES}
            cells.append(CompetenceCell(rater, int(b) + 1, int(b) * block + 1, (int(b) + 1) * block, len(part),
                                        **measures))
    return tuple(cells)
