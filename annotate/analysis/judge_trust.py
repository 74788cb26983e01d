"""LLM judges beside the humans: agreement with the human majority, and drift between judge versions.

A *judge* is one source of LLM labels: an LLM rater among the votes (cohort ``llm``) or the
suggestions of one model asked with one prompt (`Suggestion.source_model` and ``prompt_hash``).
A judge *version* splits a source further by what actually answered: the model the server reported
in its reply (``raw["replies"][i]["model"]``, which may differ from the one asked for) and the
request settings (``raw["request"]``: temperature, max_tokens, ...), so a silent model update or a
change of settings shows up as two versions (`suggestion_versions`).

* `agreement_with_majority`: the share of items with a human majority where the judge gave the
  majority's label; the unit is the item (each item counts once), the interval a 95 % percentile
  bootstrap over items, and items without a majority (top count shared) are counted apart.
* `judge_drift`: for every two versions, how often they gave the same label on the items both
  labelled (item bootstrap), and each version's agreement with the human majority.

The human majority is one verdict per item from the human votes (`human_majority`): the plurality
label (an item whose top count is shared has none), or for pairwise labels A / B / tie the sign of
the mean score (`annotate.analysis.majority`, rule ``mean``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from annotate.analysis.bootstrap import DEFAULT_N_BOOT, estimate_from_features, safe_ratio
from annotate.analysis.estimate import Estimate
from annotate.analysis.reasons import not_enough

__all__ = [
    "JudgeAgreement",
    "JudgeDrift",
    "VersionPair",
    "agreement_with_majority",
    "human_majority",
    "judge_drift",
    "suggestion_versions",
]


def human_majority(humans: pd.DataFrame, rule: str = "plurality") -> tuple[pd.Series, int]:
    """The majority label per unit (humans: columns unit, label) and how many units had none.

    rule ``plurality``: the most frequent label, none where the top count is shared; ``mean``
    (labels A, B, tie only): the sign of the mean score A = +1, B = -1, tie = 0 (`verdicts`).
    """
    v = humans.loc[humans["label"].notna()]
    if v.empty:
        return pd.Series(dtype=object), 0
    if rule != "plurality":
        from annotate.analysis.majority import verdicts

        classes = ["A", "B", "tie"]
        outside = set(v["label"]) - set(classes)
        if outside:
            raise ValueError(f"the {rule} rule takes the labels A, B and tie, not {sorted(map(str, outside))[:3]}")
        counts = v.groupby(["unit", "label"], sort=False).size().unstack("label", fill_value=0)
        counts = counts.reindex(columns=classes, fill_value=0)
        verdict = verdicts(counts.to_numpy(), rule)
        keep = verdict >= 0
        return (pd.Series(np.asarray(classes, dtype=object)[verdict[keep]], index=counts.index[keep], dtype=object),
                int((~keep).sum()))
    counts = v.groupby(["unit", "label"], sort=False).size().unstack("label", fill_value=0)
    values = counts.to_numpy()
    top = values.max(axis=1)
    unique = (values == top[:, None]).sum(axis=1) == 1
    labels = np.asarray(counts.columns, dtype=object)[values.argmax(axis=1)]
    return pd.Series(labels[unique], index=counts.index[unique], dtype=object), int((~unique).sum())


def _share(hit: np.ndarray, n_boot: int, seed: int | None) -> Estimate:
    """Share of units with a hit, one unit per row, with a percentile bootstrap over units."""
    features = np.column_stack([hit.astype(np.float64), np.ones(hit.size)])
    return estimate_from_features(features, lambda s: safe_ratio(s[:, 0], s[:, 1]), n_boot=n_boot, seed=seed,
                                  n_units=int(hit.size), n_raters=0, n_pairable=int(hit.size))


@dataclass(frozen=True)
class JudgeAgreement:
    """One judge against the human majority.

    Attributes:
        judge: its name; agreement: share of items where it gave the majority's label (an
            `Estimate`: n_units = items compared, interval over items).
        n_items_judged: items the judge labelled; n_no_majority: of those, items whose human top
            count was shared (not compared); n_no_humans: items no human labelled.
        reason: why there is no share (``not enough data ...``), else None.
    """

    judge: str
    agreement: Estimate
    n_items_judged: int
    n_no_majority: int
    n_no_humans: int
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"judge": self.judge, "agreement": self.agreement.to_json(), "n_items_judged": self.n_items_judged,
                "n_no_majority": self.n_no_majority, "n_no_humans": self.n_no_humans, "reason": self.reason,
                "unit": "items"}


def agreement_with_majority(
    judge: str, labels: pd.DataFrame, humans: pd.DataFrame, *, n_boot: int = DEFAULT_N_BOOT, seed: int | None = 0,
    rule: str = "plurality",
) -> JudgeAgreement:
    """The judge's labels (columns unit, label; one per unit, the first kept) against the majority of
    the human votes (columns unit, label) by ``rule`` (`human_majority`)."""
    mine = labels.loc[labels["label"].notna()].drop_duplicates("unit").set_index("unit")["label"]
    majority, _ = human_majority(humans, rule)
    voted = set(humans.loc[humans["label"].notna(), "unit"])
    compared = mine.index[mine.index.isin(majority.index)]
    no_humans = int((~mine.index.isin(list(voted))).sum())
    no_majority = len(mine) - len(compared) - no_humans
    hit = (mine.loc[compared].astype(str).to_numpy() == majority.loc[compared].astype(str).to_numpy())
    estimate = _share(hit, n_boot, seed)
    reason = None
    if not len(compared):
        why = "no item with a human majority"
        reason = not_enough(0, "items", why)
    return JudgeAgreement(judge, estimate, len(mine), no_majority, no_humans, reason)


@dataclass(frozen=True)
class VersionPair:
    """Two judge versions on the items both labelled."""

    first: str
    second: str
    agreement: Estimate
    n_differ: int
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"first": self.first, "second": self.second, "agreement": self.agreement.to_json(),
                "n_shared": self.agreement.n_units, "n_differ": self.n_differ, "reason": self.reason,
                "unit": "items"}


@dataclass(frozen=True)
class JudgeDrift:
    """Agreement between judge versions and of each with the human majority.

    Attributes:
        versions: one row per version (name, source model, prompt hash, reported models, settings,
            suggestions) as given to `judge_drift`.
        pairs: one `VersionPair` per two versions.
        with_humans: one `JudgeAgreement` per version.
    """

    versions: tuple[dict[str, Any], ...]
    pairs: tuple[VersionPair, ...]
    with_humans: tuple[JudgeAgreement, ...]

    def to_json(self) -> dict[str, Any]:
        return {"versions": list(self.versions), "pairs": [p.to_json() for p in self.pairs],
                "with_human_majority": [a.to_json() for a in self.with_humans]}


def judge_drift(
    labels: pd.DataFrame, humans: pd.DataFrame, versions: Iterable[dict[str, Any]] = (), *,
    n_boot: int = DEFAULT_N_BOOT, seed: int | None = 0, rule: str = "plurality",
) -> JudgeDrift:
    """Drift between the versions in ``labels`` (columns version, unit, label).

    versions: descriptions of the versions (dicts with at least ``version``), passed through to the
    result in that order; versions present in ``labels`` but not described are added by name.
    """
    described = [dict(v) for v in versions]
    names = [v["version"] for v in described]
    for name in labels["version"].drop_duplicates():
        if name not in names:
            names.append(name)
            described.append({"version": name})
    by_version = {name: labels.loc[labels["version"] == name].drop_duplicates("unit").set_index("unit")["label"]
                  for name in names}
    pairs = []
    for first, second in combinations(names, 2):
        a, b = by_version[first], by_version[second]
        shared = a.index[a.index.isin(b.index)]
        same = a.loc[shared].astype(str).to_numpy() == b.loc[shared].astype(str).to_numpy()
        reason = None if len(shared) else not_enough(0, "items", "no shared item")
        pairs.append(VersionPair(first, second, _share(same, n_boot, seed), int((~same).sum()), reason))
    with_humans = tuple(
        agreement_with_majority(name, by_version[name].rename_axis("unit").reset_index(), humans, n_boot=n_boot,
                                seed=seed, rule=rule)
        for name in names)
    return JudgeDrift(tuple(described), tuple(pairs), with_humans)


def _settings(request: Any) -> str:
    """The request settings but the model, as ``key=value`` pairs in key order ('' when none)."""
    if not isinstance(request, dict):
        return ""
    return ", ".join(f"{k}={json.dumps(v, sort_keys=True)}" for k, v in sorted(request.items()) if k != "model")


def _prompt_source(prompt: Any) -> str:
    """Where the prompt template came from, as `annotate suggest` stores it ('' when not stored)."""
    source = prompt.get("source") if isinstance(prompt, dict) else None
    return str(source) if source else ""


def suggestion_versions(suggestions: pd.DataFrame) -> tuple[pd.DataFrame, tuple[dict[str, Any], ...]]:
    """Judge versions of stored suggestions.

    suggestions: columns item, source_model, prompt_hash, label, raw (the JSON `annotate suggest`
    stores, or anything else: an imported suggestion's raw has no request).  Returns the labels with
    columns judge (source model and prompt), version (judge plus the reported model and settings
    when they vary within the judge), unit, label; and one description per version: version, judge,
    source_model, prompt_hash, prompt_source (where the template came from, ``raw["prompt"]["source"]``:
    a file or ``shipped:<kind>``; '' when not stored), reported_models, settings, n_suggestions.
    """
    rows = []
    for item, model, prompt, label, raw in suggestions[["item", "source_model", "prompt_hash", "label",
                                                        "raw"]].itertuples(index=False):
        try:
            data = json.loads(raw) if raw else {}
        except (TypeError, ValueError):
            data = {}
        data = data if isinstance(data, dict) else {}
        replies = data.get("replies") if isinstance(data.get("replies"), list) else []
        reported = sorted({str(r["model"]) for r in replies if isinstance(r, dict) and r.get("model")})
        judge = f"{model} (prompt {str(prompt)[:12]})" if prompt else str(model)
        rows.append({"judge": judge, "source_model": str(model), "prompt_hash": str(prompt or ""),
                     "prompt_source": _prompt_source(data.get("prompt")), "reported": ", ".join(reported),
                     "settings": _settings(data.get("request")), "unit": item, "label": label})
    frame = pd.DataFrame(rows, columns=["judge", "source_model", "prompt_hash", "prompt_source", "reported",
                                        "settings", "unit", "label"])
    if frame.empty:
        return frame.assign(version=pd.Series(dtype=object))[["judge", "version", "unit", "label"]], ()
    variants = frame.groupby("judge")[["reported", "settings"]].nunique()
    versions = []
    for judge, part in frame.groupby("judge", sort=True):
        split_reported = variants.loc[judge, "reported"] > 1
        split_settings = variants.loc[judge, "settings"] > 1
        for (reported, settings), sub in part.groupby(["reported", "settings"], sort=True):
            extra = [f"answered by {reported or 'an unreported model'}"] if split_reported else []
            extra += [settings or "no settings stored"] if split_settings else []
            name = judge + (f" [{'; '.join(extra)}]" if extra else "")
            frame.loc[sub.index, "version"] = name
            sources = sorted(set(sub["prompt_source"]) - {""})
            versions.append({"version": name, "judge": judge, "source_model": sub["source_model"].iloc[0],
                             "prompt_hash": sub["prompt_hash"].iloc[0], "prompt_source": ", ".join(sources),
                             "reported_models": reported,
                             "settings": settings, "n_suggestions": len(sub)})
    return frame[["judge", "version", "unit", "label"]], tuple(versions)

