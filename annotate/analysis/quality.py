"""Annotator quality: gold accuracy, attention checks, consistency on repeated items, time per item.

Pure functions over the votes frame (`annotate.store.frames.votes_frame`): one row per vote with
columns item, rater, label, gold, purpose, source, active_ms, submit_ms.  Rows with a missing label
(skips) are ignored everywhere.  Shares come with a 95 % interval and their n: Wilson (1927) when each
item contributes one vote (or pair) to the share, else a bootstrap over items, each with all its
votes (`annotate.analysis.clustered`): the "all raters" row pools votes that share items.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.bias import wilson_interval
from annotate.analysis.clustered import share_of_items
from annotate.analysis.estimate import json_number
from annotate.frame_codes import code_columns, factorize, groups
from annotate.quality_rules import FAST_MS  # re-exported: the report and the dashboard share one threshold

__all__ = ["FAST_MS", "Share", "Timing", "attention_pass_rate", "gold_accuracy", "repeat_consistency", "timing"]


@dataclass(frozen=True)
class Share:
    """k of n with a 95 % interval, for one rater (or None: all raters together).

    unit: what the interval resamples, ``"votes"`` (one per item: Wilson) or ``"items"`` (several
    share an item: item bootstrap); n_items: items behind the n (None when not known).
    """

    rater: Any
    k: int
    n: int
    share: float
    ci_low: float
    ci_high: float
    unit: str = "votes"
    n_items: int | None = None

    @classmethod
    def of(cls, rater: Any, k: int, n: int) -> Share:
        lo, hi = wilson_interval(k, n)
        return cls(rater, int(k), int(n), k / n if n else float("nan"), lo, hi)

    @classmethod
    def of_items(cls, rater: Any, k_i: Any, n_i: Any, n_boot: int, seed: int | None) -> Share:
        """From per-item counts (`share_of_items`): the item is the unit when items hold several."""
        c = share_of_items(k_i, n_i, n_boot=n_boot, seed=seed)
        return cls(rater, c.k, c.n, c.share, c.ci_low, c.ci_high, c.unit, c.n_items)

    def to_json(self) -> dict[str, Any]:
        return {
            "rater": self.rater, "share": json_number(self.share),
            "ci": [json_number(self.ci_low), json_number(self.ci_high)], "k": self.k, "n": self.n,
            "unit": self.unit, "n_items": self.n_items,
        }


def _per_item(table: pd.DataFrame) -> tuple[Any, Any]:
    """Per-item sums ``k`` and ``n`` of a frame with columns item, k, n, items in order of first appearance
    (a missing item is left out, as a groupby leaves it)."""
    return _sums_by(pd.factorize(table["item"])[0], table["k"].to_numpy(np.float64), table["n"].to_numpy(np.float64))


def _sums_by(codes: np.ndarray, *values: np.ndarray) -> list[np.ndarray]:
    """Sums of each of ``values`` per code (0, 1, ...; -1 left out)."""
    keep = codes >= 0
    size = int(codes.max(initial=-1)) + 1
    return [np.bincount(codes[keep], v[keep], minlength=size) for v in values]


def _shares_of(table: pd.DataFrame, n_boot: int, seed: int | None) -> tuple[Share, ...]:
    """Overall (rater None) first, then one Share per rater; table: rater, item, k, n (one row per vote or
    per (rater, item)).  A rater or the whole set with several rows on one item uses the item as unit."""
    if table.empty:
        return ()
    overall = Share.of_items(None, *_per_item(table), n_boot, seed)
    per_rater = []
    coded = table.assign(item=pd.factorize(table["item"])[0])  # the items as integers, in the same order
    coded.loc[coded["item"] < 0, "item"] = np.nan
    for rater, part in coded.groupby("rater", sort=True):
        if part["item"].duplicated().any():
            per_rater.append(Share.of_items(rater, *_per_item(part), n_boot, seed))
        else:
            per_rater.append(Share.of(rater, int(part["k"].sum()), int(part["n"].sum())))
    return (overall, *per_rater)


def _shares(df: pd.DataFrame, hit: pd.Series, n_boot: int, seed: int | None) -> tuple[Share, ...]:
    """Shares of votes that are hits (see `_shares_of`)."""
    if df.empty:
        return ()
    item = df["item"] if "item" in df.columns else pd.Series(np.arange(len(df)), index=df.index)
    table = pd.DataFrame({"rater": df["rater"], "item": item, "k": hit.astype(np.float64), "n": 1.0})
    return _shares_of(table, n_boot, seed)


def gold_accuracy(votes: pd.DataFrame, n_boot: int = 0, seed: int | None = 0) -> tuple[Share, ...]:
    """Share of votes on items with a gold label that equal it, overall then per rater.

    Every vote with a label on an item whose ``gold`` is set counts (gold-purpose assignments and
    ordinary items that happen to have gold alike), except attention checks (`attention_pass_rate`).
    Labels are compared as text in slot space (pairwise) or as the grade's text.
    Returns () when no vote is on a gold item.
    """
    v = votes.loc[votes["label"].notna() & votes["gold"].notna()]
    if "purpose" in v.columns:
        v = v.loc[v["purpose"].fillna("main") != "attention"]
    return _shares(v, v["label"].astype(str) == v["gold"].astype(str), n_boot, seed)


def attention_pass_rate(votes: pd.DataFrame, n_boot: int = 0, seed: int | None = 0) -> tuple[Share, ...]:
    """Share of attention-check judgments (purpose ``attention``) answered with the item's gold label,
    overall then per rater; () when there are none (or they have no gold)."""
    if "purpose" not in votes.columns:
        return ()
    v = votes.loc[votes["label"].notna() & votes["gold"].notna() & (votes["purpose"] == "attention")]
    return _shares(v, v["label"].astype(str) == v["gold"].astype(str), n_boot, seed)


def repeat_consistency(votes: pd.DataFrame, n_boot: int = 0, seed: int | None = 0) -> tuple[Share, ...]:
    """Intra-rater consistency: how often a rater gave the same label when shown an item again.

    For each rater and item with m >= 2 labelled votes (a repeat is usually shown with the sides
    swapped; labels are in slot space, so the same label is the same verdict), every one of the
    m (m - 1) / 2 pairs of votes counts; k = pairs with equal labels, n = pairs.  Overall first, then
    per rater with at least one pair.  A rater's interval is Wilson (one pair per item, the usual one
    repeat); the all-raters interval resamples items, each with the pairs of every rater on it.
    """
    v = votes.loc[votes["label"].notna(), ["rater", "item", "label", *code_columns(votes, "rater", "item")]]
    if v.empty:
        return ()
    v = v.loc[_repeated(v, "rater", "item")]  # only a rater's item seen twice or more makes a pair
    per_label = v.groupby(["rater", "item", "label"]).size()
    same = (per_label * (per_label - 1) / 2).groupby(level=["rater", "item"]).sum()
    m = v.groupby(["rater", "item"]).size()
    pairs = m * (m - 1) / 2
    table = pd.DataFrame({"k": same, "n": pairs})
    table = table.loc[table["n"] > 0].reset_index()
    if table.empty:
        return ()
    overall = Share.of_items(None, *_per_item(table), n_boot, seed)
    per_rater = table.groupby("rater", sort=True)[["k", "n"]].sum()
    rows = [Share.of(rater, int(row["k"]), int(row["n"])) for rater, row in per_rater.iterrows()]
    return (overall, *rows)


def _repeated(v: pd.DataFrame, rater: str, item: str) -> np.ndarray:
    """Which rows share their (rater, item) with another row (a missing rater or item: never)."""
    r, values = factorize(v, rater)
    i = factorize(v, item)[0]
    known = (r >= 0) & (i >= 0)
    key = np.where(known, i.astype(np.int64) * max(len(values), 1) + r, -1 - np.arange(len(r)))
    return pd.Series(key).duplicated(keep=False).to_numpy() & known


@dataclass(frozen=True)
class Timing:
    """Time per judgment for one rater (or None: everyone).

    Attributes:
        median_ms: median active time (idle gaps removed; submit time where active time is missing).
        fast: judgments under the threshold; n: judgments with a time; share, ci_low, ci_high:
            fast / n with a Wilson interval (all raters: items resampled when they share items).
        unit: what the interval resamples (see `Share`).
    """

    rater: Any
    n: int
    median_ms: float
    fast: int
    share: float
    ci_low: float
    ci_high: float
    unit: str = "votes"

    def to_json(self) -> dict[str, Any]:
        return {
            "rater": self.rater, "n": self.n, "median_ms": json_number(self.median_ms),
            "fast": {"k": self.fast, "share": json_number(self.share),
                     "ci": [json_number(self.ci_low), json_number(self.ci_high)], "unit": self.unit},
        }


def timing(votes: pd.DataFrame, fast_ms: int = FAST_MS, n_boot: int = 0, seed: int | None = 0
           ) -> tuple[Timing, ...]:
    """Median time per judgment and the share of judgments faster than ``fast_ms``, overall then per rater.

    Only the session's own judgments have times (imported labels do not); a judgment's time is its
    ``active_ms`` (time from shown to submit with idle gaps removed), or ``submit_ms`` when active
    time is missing.  Judgments with neither are left out.
    """
    if "active_ms" not in votes.columns:
        return ()
    active = pd.to_numeric(votes["active_ms"], errors="coerce")
    submit = pd.to_numeric(votes.get("submit_ms"), errors="coerce") if "submit_ms" in votes.columns else active
    ms = active.fillna(submit)
    keep = votes["label"].notna() & ms.notna()
    item = votes["item"] if "item" in votes.columns else pd.Series(np.arange(len(votes)), index=votes.index)
    v = pd.DataFrame({"rater": votes.loc[keep, "rater"], "item": item[keep], "ms": ms[keep].astype(np.float64)})
    if code_columns(votes, "rater"):  # the rater's codes, to group by (annotate.frame_codes)
        v = pd.concat([v, votes.loc[keep, code_columns(votes, "rater")]], axis=1)
    if v.empty:
        return ()

    codes = pd.factorize(v["item"])[0]  # the items as integers, in order of first appearance
    v = v.assign(item=np.where(codes >= 0, codes, np.nan) if (codes < 0).any() else codes)

    def row(rater: Any, part: pd.DataFrame) -> Timing:
        times = part["ms"]
        fast = int((times < fast_ms).sum())
        if part["item"].duplicated().any():
            hits = (times < fast_ms).to_numpy(np.float64)
            k_i, n_i = _sums_by(pd.factorize(part["item"])[0], hits, np.ones_like(hits))
            c = share_of_items(k_i, n_i, n_boot=n_boot, seed=seed)
            lo, hi, unit = c.ci_low, c.ci_high, c.unit
        else:
            (lo, hi), unit = wilson_interval(fast, len(times)), "votes"
        return Timing(rater, len(times), float(times.median()), fast, fast / len(times), lo, hi, unit)

    per_rater = [row(rater, group) for rater, group in groups(v, "rater")]
    return (row(None, v), *per_rater)
