"""What the anchoring analysis returns: per-condition rates, effects against `none`, switches,
per-annotator susceptibility, label shifts and the LLM's accuracy, each with its JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from annotate.analysis.estimate import Estimate, json_number

REDRAWN = "redrawn design"
"""The randomization test re-drew the conditions with the experiment's own design rules."""
PERMUTATION = "permutation"
"""The randomization test permuted the observed conditions (within annotators, or across them)."""


@dataclass(frozen=True)
class ConditionSummary:
    """Rates for one display mode, over judgments that had a suggestion."""

    condition: str
    n: int
    """Judgments with a suggestion."""
    n_annotators: int
    n_items: int
    agree: Estimate
    over_reliance: Estimate
    """P(agree | suggestion wrong)."""
    under_reliance: Estimate
    """P(not agree | suggestion right)."""
    accuracy: Estimate
    """P(final = gold), over judgments of items with gold."""
    n_wrong: int
    n_right: int
    n_planted: int
    median_time_ms: float
    fast_accepts: int
    """Judgments agreeing with the suggestion in under the threshold."""
    fast_accept_rate: float
    """fast_accepts / n."""
    reveal_rate: float | None = None
    """Share of judgments whose suggestion was on screen (on_request: revealed); None if unknown."""

    def to_json(self) -> dict[str, Any]:
        return {
            "condition": self.condition, "n": self.n, "n_annotators": self.n_annotators, "n_items": self.n_items,
            "agree": self.agree.to_json(), "over_reliance": self.over_reliance.to_json(),
            "under_reliance": self.under_reliance.to_json(), "accuracy": self.accuracy.to_json(),
            "n_wrong": self.n_wrong, "n_right": self.n_right, "n_planted": self.n_planted,
            "median_time_ms": json_number(self.median_time_ms), "fast_accepts": self.fast_accepts,
            "fast_accept_rate": json_number(self.fast_accept_rate), "reveal_rate": json_number(self.reveal_rate),
        }


@dataclass(frozen=True)
class Effect:
    """The anchoring effect of one display mode against `none`."""

    mode: str
    delta: Estimate
    """Δ_D = P(agree | D, wrong) − P(agree | none, wrong), with its two-way cluster bootstrap interval."""
    p_value: float
    """Randomization test of Δ_D = 0 (two-sided); NaN when it cannot be run."""
    n_permutations: int
    delta_accuracy: Estimate
    """P(final = gold | D) − P(final = gold | none)."""
    design: str
    """`within` or `between`: how the design assigned the conditions."""
    randomization: str = PERMUTATION
    """How the test re-assigned the conditions: `redrawn design` (the experiment's own design rules
    re-run with other seeds) or `permutation` (the fallback when the design inputs are not at hand)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode, "delta": self.delta.to_json(), "p_value": json_number(self.p_value),
            "n_permutations": self.n_permutations, "delta_accuracy": self.delta_accuracy.to_json(),
            "design": self.design, "randomization": self.randomization,
        }


@dataclass(frozen=True)
class SwitchStats:
    """Two-stage (`after`) judgments: how the answer changed once the suggestion appeared."""

    n: int
    """`after` judgments with both an initial and a final label."""
    switches: int
    switch_rate: float
    initial_disagreed: int
    """Judgments whose initial label differed from the suggestion."""
    to_suggestion: int
    """Of those, how many switched to the suggestion."""
    to_suggestion_rate: float
    n_gold: int
    """Switches on items with gold."""
    harmful: int
    """Right (= gold) at first, wrong at the end."""
    beneficial: int
    """Wrong at first, right at the end."""

    def to_json(self) -> dict[str, Any]:
        return {k: json_number(v) if isinstance(v, float) else v for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class AnnotatorSusceptibility:
    """One annotator's following of wrong suggestions, against a baseline."""

    annotator: str
    n_wrong_shown: int
    agree_wrong_shown: float
    """P(agree | wrong) under the display modes that show the suggestion (NaN if none)."""
    n_wrong_none: int
    agree_wrong_none: float
    """The baseline: this annotator's own `none` rate, or everyone's when they have none."""
    baseline: str
    """`own` or `pooled`."""
    susceptibility: float
    """agree_wrong_shown − agree_wrong_none."""

    def to_json(self) -> dict[str, Any]:
        return {k: json_number(v) if isinstance(v, float) else v for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class LabelShift:
    """The distribution of final labels under one condition, and how far it is from `none`."""

    condition: str
    n: int
    shares: tuple[tuple[str, float], ...]
    """(label, share) in label order."""
    tvd: float
    """Total variation distance to the `none` distribution, ½ Σ |p − q| (NaN for `none`)."""
    mean_shift: float | None = None
    """Grades only: mean grade minus the mean under `none`."""

    def to_json(self) -> dict[str, Any]:
        return {
            "condition": self.condition, "n": self.n, "shares": {k: json_number(v) for k, v in self.shares},
            "tvd": json_number(self.tvd), "mean_shift": json_number(self.mean_shift),
        }


@dataclass(frozen=True)
class LlmAccuracy:
    """How often the LLM's (real, not planted) suggestion matches a reference."""

    reference: str
    """`gold`, or `labels under <condition>`."""
    accuracy: Estimate

    def to_json(self) -> dict[str, Any]:
        return {"reference": self.reference, "accuracy": self.accuracy.to_json()}


@dataclass(frozen=True)
class AnchoringResult:
    """Everything the report's "Suggestions" section shows."""

    conditions: tuple[ConditionSummary, ...]
    effects: tuple[Effect, ...]
    switches: SwitchStats | None
    annotators: tuple[AnnotatorSusceptibility, ...]
    label_shift: tuple[LabelShift, ...]
    llm_accuracy: tuple[LlmAccuracy, ...]
    design: str
    fast_ms: int
    n_boot: int
    n_perm: int
    seed: int
    notes: tuple[str, ...] = field(default_factory=tuple)
    randomization: str = PERMUTATION
    """`redrawn design` or `permutation`: how the effects' randomization test re-assigned conditions."""

    def to_json(self) -> dict[str, Any]:
        return {
            "design": self.design, "fast_ms": self.fast_ms, "n_boot": self.n_boot, "n_perm": self.n_perm,
            "seed": self.seed, "randomization": self.randomization,
            "conditions": [c.to_json() for c in self.conditions],
            "effects": [e.to_json() for e in self.effects],
            "switches": None if self.switches is None else self.switches.to_json(),
            "annotators": [a.to_json() for a in self.annotators],
            "label_shift": [s.to_json() for s in self.label_shift],
            "llm_accuracy": [a.to_json() for a in self.llm_accuracy], "notes": list(self.notes),
        }
