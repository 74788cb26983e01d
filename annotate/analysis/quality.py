"""Annotator quality: gold accuracy, attention checks, consistency on repeated items, time per item.

Pure functions over the votes frame (`annotate.store.frames.votes_frame`): one row per vote with
columns item, rater, label, gold, purpose, source, active_ms, submit_ms.  Rows with a missing label
(skips) are ignored everywhere.  Shares come with a Wilson (1927) 95 % score interval and their n.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.bias import wilson_interval
from annotate.analysis.estimate import json_number

__all__ = ["FAST_MS", "Share", "Timing", "attention_pass_rate", "gold_accuracy", "repeat_consistency", "timing"]

FAST_MS = 3000
"""Judgments faster than this (milliseconds) are counted as suspiciously fast."""


@dataclass(frozen=True)
class Share:
    """k of n with a Wilson 95 % interval, for one rater (or None: all raters together)."""

    rater: Any
    k: int
    n: int
    share: float
    ci_low: float
    ci_high: float

    @classmethod
    def of(cls, rater: Any, k: int, n: int) -> Share:
        lo, hi = wilson_interval(k, n)
        return cls(rater, int(k), int(n), k / n if n else float("nan"), lo, hi)

    def to_json(self) -> dict[str, Any]:
        return {
            "rater": self.rater, "share": json_number(self.share),
            "ci": [json_number(self.ci_low), json_number(self.ci_high)], "k": self.k, "n": self.n,
        }


def _shares(df: pd.DataFrame, hit: pd.Series) -> tuple[Share, ...]:
    """Overall (rater None) first, then one Share per rater sorted by rater."""
    if df.empty:
        return ()
    grouped = hit.groupby(df["rater"]).agg(["sum", "size"])
    per_rater = [Share.of(rater, int(row["sum"]), int(row["size"])) for rater, row in grouped.iterrows()]
    return (Share.of(None, int(hit.sum()), len(hit)), *per_rater)


def gold_accuracy(votes: pd.DataFrame) -> tuple[Share, ...]:
    """Share of votes on items with a gold label that equal it, overall then per rater.

    Every vote with a label on an item whose ``gold`` is set counts (gold-purpose assignments and
    ordinary items that happen to have gold alike), except attention checks (`attention_pass_rate`).
    Labels are compared as text in slot space (pairwise) or as the grade's text.
    Returns () when no vote is on a gold item.
    """
    v = votes.loc[votes["label"].notna() & votes["gold"].notna()]
    if "purpose" in v.columns:
        v = v.loc[v["purpose"].fillna("main") != "attention"]
    return _shares(v, v["label"].astype(str) == v["gold"].astype(str))


def attention_pass_rate(votes: pd.DataFrame) -> tuple[Share, ...]:
    """Share of attention-check judgments (purpose ``attention``) answered with the item's gold label,
    overall then per rater; () when there are none (or they have no gold)."""
    if "purpose" not in votes.columns:
        return ()
    v = votes.loc[votes["label"].notna() & votes["gold"].notna() & (votes["purpose"] == "attention")]
    return _shares(v, v["label"].astype(str) == v["gold"].astype(str))


def repeat_consistency(votes: pd.DataFrame) -> tuple[Share, ...]:
    """Intra-rater consistency: how often a rater gave the same label when shown an item again.

    For each rater and item with m >= 2 labelled votes (a repeat is usually shown with the sides
    swapped; labels are in slot space, so the same label is the same verdict), every one of the
    m (m - 1) / 2 pairs of votes counts; k = pairs with equal labels, n = pairs.  Overall first, then
    per rater with at least one pair.  The Wilson interval treats pairs as independent, which is
    exact when m = 2 (the usual one repeat).
    """
    v = votes.loc[votes["label"].notna(), ["rater", "item", "label"]]
    if v.empty:
        return ()
    per_label = v.groupby(["rater", "item", "label"]).size()
    same = (per_label * (per_label - 1) / 2).groupby(level=["rater", "item"]).sum()
    m = v.groupby(["rater", "item"]).size()
    pairs = m * (m - 1) / 2
    table = pd.DataFrame({"k": same, "n": pairs})
    table = table.loc[table["n"] > 0]
    if table.empty:
        return ()
    per_rater = table.groupby(level="rater").sum()
    rows = [Share.of(rater, int(row["k"]), int(row["n"])) for rater, row in per_rater.iterrows()]
    return (Share.of(None, int(table["k"].sum()), int(table["n"].sum())), *rows)


@dataclass(frozen=True)
class Timing:
    """Time per judgment for one rater (or None: everyone).

    Attributes:
        median_ms: median active time (idle gaps removed; submit time where active time is missing).
        fast: judgments under the threshold; n: judgments with a time; share, ci_low, ci_high:
            fast / n with a Wilson interval.
    """

    rater: Any
    n: int
    median_ms: float
    fast: int
    share: float
    ci_low: float
    ci_high: float

    def to_json(self) -> dict[str, Any]:
        return {
            "rater": self.rater, "n": self.n, "median_ms": json_number(self.median_ms),
            "fast": {"k": self.fast, "share": json_number(self.share),
                     "ci": [json_number(self.ci_low), json_number(self.ci_high)]},
        }


def timing(votes: pd.DataFrame, fast_ms: int = FAST_MS) -> tuple[Timing, ...]:
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
    v = pd.DataFrame({"rater": votes.loc[keep, "rater"], "ms": ms[keep].astype(np.float64)})
    if v.empty:
        return ()

    def row(rater: Any, times: pd.Series) -> Timing:
        fast = int((times < fast_ms).sum())
        lo, hi = wilson_interval(fast, len(times))
        return Timing(rater, len(times), float(times.median()), fast, fast / len(times), lo, hi)

    per_rater = [row(rater, group["ms"]) for rater, group in v.groupby("rater", sort=True)]
    return (row(None, v["ms"]), *per_rater)
