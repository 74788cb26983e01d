"""Error spans: how many errors annotators marked per model, category and severity, and how far two
annotators agree on where the errors are.

Frames (built by `annotate.store.frames.span_frames`):

- ``responses``: one row per *judged response*, i.e. per (judgment, slot) of a judgment that counts:
  columns ``judgment_id``, ``item``, ``rater``, ``slot``, ``model`` (None when unknown). A pairwise
  judgment judges two responses (slots A and B), a single or rubric judgment one.
- ``spans``: one row per marked span: ``judgment_id``, ``slot``, ``start``, ``end`` (original text
  offsets, end exclusive), ``category``, ``severity``. Spans of judgments not in ``responses`` are
  ignored.

Figures (every interval a 95 % percentile bootstrap over items, each item drawn with all its
judgments: `annotate.analysis.bootstrap`; ratios of sums, so a resample is a weighted sum of per-item
features):

- *flagged*: the share of judged responses with at least one error marked;
- *errors per response*: errors marked / judged responses, pooled and per category and severity;
- *span overlap F1* per category (and for any category): for two annotators who judged the same
  response, A and B the sets of characters each marked with that category; pooled over every such
  pair of every response, F1 = 2 Σ|A ∩ B| / Σ(|A| + |B|) (the Dice coefficient of character sets,
  the F1 of one annotator's characters against the other's, which is symmetric). Pairs where neither
  marked the category add nothing. n_pairable = pairs where at least one did.
- *flagged agreement*: whether two annotators of one response agree that it has an error at all:
  the share of agreeing annotator pairs (pooled over responses: Σ agreeing pairs / Σ pairs) and
  Krippendorff's alpha on the yes/no value with responses as units (nominal; 1 - (n - 1) Σ_u
  2 k_u (m_u - k_u) / (m_u - 1) / (2 N_0 N_1), Krippendorff 2011), its sums taken per item so the
  bootstrap resamples items.

References: character-level span F1 as in named-entity and error-span evaluations (e.g. the
"partial match" scores of SemEval 2013 task 9; the WMT MQM span agreement); Krippendorff (2011),
"Computing Krippendorff's Alpha-Reliability".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.bootstrap import estimates_from_features, safe_ratio
from annotate.analysis.estimate import Estimate

__all__ = [
    "ANY",
    "CategoryRate",
    "ErrorRates",
    "ModelErrors",
    "OverlapF1",
    "SpanAgreement",
    "error_rates",
    "overlap",
    "span_agreement",
]

ANY = "(any)"
"""The category row that pools every category (the characters marked with any of them)."""


@dataclass(frozen=True)
class ModelErrors:
    """One model's (or, model None, every model's) judged responses and the errors marked in them.

    flagged: share of its judged responses with at least one error; per_response: errors per judged
    response. n_units = items with a response of the model, n_raters = annotators, n_pairable =
    judged responses.
    """

    model: str | None
    n_responses: int
    n_errors: int
    flagged: Estimate
    per_response: Estimate

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "n_responses": self.n_responses, "n_errors": self.n_errors,
                "flagged": self.flagged.to_json(), "errors_per_response": self.per_response.to_json()}


@dataclass(frozen=True)
class CategoryRate:
    """Errors of one category and severity per judged response, for one model (None: every model)."""

    model: str | None
    category: str
    severity: str
    n_errors: int
    rate: Estimate

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "category": self.category, "severity": self.severity,
                "n_errors": self.n_errors, "rate": self.rate.to_json()}


@dataclass(frozen=True)
class ErrorRates:
    per_model: tuple[ModelErrors, ...]
    """Every model first (model None), then each model, most errors per response first."""
    per_category: tuple[CategoryRate, ...]
    """Per (model, category, severity) with at least one error, every model (None) first."""

    def to_json(self) -> dict[str, Any]:
        return {"per_model": [m.to_json() for m in self.per_model],
                "per_category": [c.to_json() for c in self.per_category]}


@dataclass(frozen=True)
class OverlapF1:
    """Character-level overlap F1 of one category between annotators of the same responses.

    f1.n_units = items with a pair, f1.n_pairable = pairs where either annotator marked the category;
    chars_a_b = Σ |A ∩ B|, chars = Σ (|A| + |B|).
    """

    category: str
    f1: Estimate
    n_pairs: int
    """(response, annotator pair) units compared: every pair of annotators of every response."""
    chars_both: int
    chars: int

    def to_json(self) -> dict[str, Any]:
        return {"category": self.category, "f1": self.f1.to_json(), "n_pairs": self.n_pairs,
                "chars_both": self.chars_both, "chars": self.chars}


@dataclass(frozen=True)
class SpanAgreement:
    """How far annotators of the same responses agree on errors (module docstring)."""

    flagged_percent: Estimate
    """Share of annotator pairs of a response that agree on whether it has an error (n_pairable = pairs)."""
    flagged_alpha: Estimate
    """Krippendorff's alpha (nominal) on has-an-error, responses as units (n_pairable = values)."""
    overlap: tuple[OverlapF1, ...]
    """ANY first, then each category of the taxonomy."""
    n_responses: int
    """Responses judged by two or more annotators."""
    n_items: int

    def to_json(self) -> dict[str, Any]:
        return {"flagged": {"percent": self.flagged_percent.to_json(), "alpha": self.flagged_alpha.to_json()},
                "overlap": [o.to_json() for o in self.overlap], "n_responses": self.n_responses,
                "n_items": self.n_items}


# -- errors per model, category and severity ----------------------------------------------------


def _counted(responses: pd.DataFrame, spans: pd.DataFrame) -> pd.DataFrame:
    """The spans of judged responses, each with its item and model."""
    keys = responses[["judgment_id", "slot", "item", "model"]]
    return spans.merge(keys, on=["judgment_id", "slot"], how="inner")


def error_rates(
    responses: pd.DataFrame, spans: pd.DataFrame, categories: Sequence[str], severities: Sequence[str], *,
    n_boot: int = 1000, seed: int | None = 0,
) -> ErrorRates:
    """Errors marked per judged response, per model and per (model, category, severity) (module docstring).

    Categories and severities found in the spans but not given are added after the given ones.

    >>> r = pd.DataFrame({"judgment_id": [1, 1], "item": ["x", "x"], "rater": ["a", "a"],
    ...                   "slot": ["A", "B"], "model": ["m", "n"]})
    >>> s = pd.DataFrame({"judgment_id": [1, 1], "slot": ["A", "A"], "start": [0, 5], "end": [3, 9],
    ...                   "category": ["factual", "factual"], "severity": ["major", "minor"]})
    >>> rates = error_rates(r, s, ["factual"], ["minor", "major"], n_boot=0)
    >>> [(m.model, m.n_errors, m.flagged.estimate) for m in rates.per_model]
    [(None, 2, 0.5), ('m', 2, 1.0), ('n', 0, 0.0)]
    """
    marked = _counted(responses, spans)
    categories = [*categories, *sorted(set(marked["category"]) - set(categories))]
    severities = [*severities, *sorted(set(marked["severity"]) - set(severities))]
    kinds = [(c, s) for c in categories for s in severities]
    per_response = marked.groupby(["judgment_id", "slot"]).size()
    frame = responses.assign(
        errors=[int(per_response.get((j, s), 0)) for j, s in zip(responses["judgment_id"], responses["slot"],
                                                                 strict=True)])
    by_kind = marked.groupby(["judgment_id", "slot", "category", "severity"]).size()
    for c, s in kinds:
        frame[(c, s)] = [int(by_kind.get((j, sl, c, s), 0)) for j, sl in zip(frame["judgment_id"], frame["slot"],
                                                                             strict=True)]
    models: list[str | None] = [None, *sorted({str(m) for m in frame["model"].dropna()})]
    rows, rates = [], []
    for model in models:
        mine = frame if model is None else frame.loc[frame["model"].astype(str) == model]
        if mine.empty:
            continue
        items, codes = np.unique(mine["item"].astype(str).to_numpy(), return_inverse=True)
        columns = [np.ones(len(mine)), (mine["errors"] > 0).to_numpy(float), mine["errors"].to_numpy(float)]
        columns += [mine[k].to_numpy(float) for k in kinds]
        features = np.zeros((len(items), len(columns)))
        np.add.at(features, codes, np.column_stack(columns))
        statistics = {"flagged": lambda f: safe_ratio(f[:, 1], f[:, 0]),
                      "per_response": lambda f: safe_ratio(f[:, 2], f[:, 0])}
        for index, kind in enumerate(kinds):
            statistics[kind] = lambda f, k=3 + index: safe_ratio(f[:, k], f[:, 0])
        est = estimates_from_features(features, statistics, n_boot=n_boot, seed=seed, n_units=len(items),
                                      n_raters=int(mine["rater"].nunique()), n_pairable=len(mine))
        rows.append(ModelErrors(model, len(mine), int(mine["errors"].sum()), est["flagged"], est["per_response"]))
        rates += [CategoryRate(model, c, s, int(mine[(c, s)].sum()), est[(c, s)]) for c, s in kinds
                  if mine[(c, s)].sum() > 0]
    first, rest = rows[:1], sorted(rows[1:], key=lambda m: (-(m.per_response.estimate), str(m.model)))
    return ErrorRates(tuple(first + rest), tuple(rates))


# -- agreement between annotators ---------------------------------------------------------------


def _union(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted disjoint intervals covering the same characters."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _size(intervals: list[tuple[int, int]]) -> int:
    return sum(end - start for start, end in intervals)


def overlap(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    """Characters in both unions of intervals `a` and `b` (each sorted and disjoint: `_union`).

    >>> overlap([(0, 5), (10, 12)], [(3, 11)])
    3
    """
    i = j = total = 0
    while i < len(a) and j < len(b):
        low, high = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0, high - low)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def span_agreement(
    responses: pd.DataFrame, spans: pd.DataFrame, categories: Sequence[str], *, n_boot: int = 1000,
    seed: int | None = 0,
) -> SpanAgreement:
    """Overlap F1 per category and agreement on has-an-error, between annotators of the same responses
    (module docstring). One judgment per (item, rater) is expected (the report's unique votes)."""
    marked = _counted(responses, spans)
    categories = [*categories, *sorted(set(marked["category"]) - set(categories))]
    names = [ANY, *categories]
    chars: dict[tuple[int, str, str], list[tuple[int, int]]] = defaultdict(list)
    for judgment, slot, start, end, category in marked[["judgment_id", "slot", "start", "end", "category"]].itertuples(
            index=False):
        chars[(judgment, slot, category)].append((int(start), int(end)))
        chars[(judgment, slot, ANY)].append((int(start), int(end)))
    unions = {key: _union(value) for key, value in chars.items()}
    by_response: dict[tuple[str, str], list[int]] = defaultdict(list)
    for judgment, item, slot in responses[["judgment_id", "item", "slot"]].itertuples(index=False):
        by_response[(str(item), str(slot))].append(int(judgment))
    items: dict[str, int] = {}
    rows: list[list[float]] = []
    raters = set()
    judgment_rater = dict(zip(responses["judgment_id"].astype(int), responses["rater"].astype(str), strict=False))
    n_responses = 0
    width = 2 * len(names) + len(names) + 6
    for (item, slot), judgments in by_response.items():
        if len(judgments) < 2:
            continue
        n_responses += 1
        raters.update(judgment_rater[j] for j in judgments)
        row = np.zeros(width)
        for a, b in combinations(judgments, 2):
            for k, name in enumerate(names):
                ua, ub = unions.get((a, slot, name), []), unions.get((b, slot, name), [])
                size = _size(ua) + _size(ub)
                row[2 * k] += overlap(ua, ub)
                row[2 * k + 1] += size
                row[2 * len(names) + k] += size > 0
        m = len(judgments)
        k_flagged = sum(1 for j in judgments if unions.get((j, slot, ANY)))
        base = 3 * len(names)
        row[base] += k_flagged * (k_flagged - 1) / 2 + (m - k_flagged) * (m - k_flagged - 1) / 2  # agreeing pairs
        row[base + 1] += m * (m - 1) / 2  # pairs
        row[base + 2] += 2 * k_flagged * (m - k_flagged) / (m - 1)  # observed disagreement (both orders)
        row[base + 3] += m - k_flagged  # values "no error"
        row[base + 4] += k_flagged  # values "has an error"
        row[base + 5] += m
        index = items.setdefault(item, len(items))
        if index == len(rows):
            rows.append(list(row))
        else:
            rows[index] = list(np.asarray(rows[index]) + row)
    features = np.asarray(rows, dtype=float).reshape(len(rows), width)
    base = 3 * len(names)

    def alpha(f: np.ndarray) -> np.ndarray:
        n0, n1, n = f[:, base + 3], f[:, base + 4], f[:, base + 5]
        return 1.0 - safe_ratio((n - 1.0) * f[:, base + 2], 2.0 * n0 * n1)

    statistics: dict[str, Any] = {"percent": lambda f: safe_ratio(f[:, base], f[:, base + 1]), "alpha": alpha}
    for k, name in enumerate(names):
        statistics[name] = lambda f, k=k: safe_ratio(2.0 * f[:, 2 * k], f[:, 2 * k + 1])
    counts = features.sum(axis=0) if len(rows) else np.zeros(width)
    pairs = int(counts[base + 1])
    common = {"n_boot": n_boot, "seed": seed, "n_units": len(rows), "n_raters": len(raters)}
    est = estimates_from_features(features, statistics, n_pairable=pairs, **common)
    values = estimates_from_features(features, {"alpha": alpha}, n_pairable=int(counts[base + 5]), **common)
    overlaps = []
    for k, name in enumerate(names):
        e = est[name]
        e = Estimate(e.estimate, e.ci_low, e.ci_high, e.n_units, e.n_raters, int(counts[2 * len(names) + k]))
        overlaps.append(OverlapF1(name, e, pairs, int(counts[2 * k]), int(counts[2 * k + 1])))
    return SpanAgreement(est["percent"], values["alpha"], tuple(overlaps), n_responses, len(rows))
