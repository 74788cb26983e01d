"""Synthetic suggestion experiments with a known anchoring effect, to check the analysis.

`simulate` draws a session in the shape `annotate.analysis.anchoring` reads: items with gold
labels (pairwise, `A` or `B`), an LLM suggestion per item (right with probability
`llm_accuracy`), a design made by the real `annotate.experiment.design_experiment` (so planted
items and conditions are drawn exactly as in a session), and annotators who

- answer on their own correctly with probability acc(annotator, item) = clip(acc_a − d_i), where
  acc_a ~ Normal(accuracy, accuracy_spread) and the item difficulty d_i ~ Normal(0, difficulty_spread);
- when the suggestion is shown (`upfront`; `after`, following their initial answer; `on_request`,
  when they reveal it, which they do with probability `reveal_rate`) take it with probability p_a,
  their propensity, p_a ~ Beta with mean `propensity` and sd `propensity_spread`; otherwise keep
  their own answer. Following is faster (time × 0.5).

With two labels, an own answer on an item whose suggestion is wrong agrees with it exactly when it
is wrong, so P(agree | none, wrong) = E[1 − acc] and P(agree | D, wrong) = E[p_D + (1 − p_D)(1 − acc)],
where p_D = p_a (× reveal_rate for `on_request`). Annotator and item draws are independent, so the
true effect is Δ_D = E[p_D] · E[acc], computed by `true_delta` over the population distributions.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from annotate.experiment import design_experiment
from annotate.model import Assignment, Suggestion
from annotate.spec import ExperimentSpec

__all__ = ["SimConfig", "Simulated", "simulate", "true_delta"]

SHOWN = ("upfront", "after", "on_request")
_ACC_CLIP = (0.02, 0.98)


@dataclass(frozen=True)
class SimConfig:
    """One synthetic experiment. Probabilities in [0, 1]; times in milliseconds."""

    n_annotators: int = 12
    n_items: int = 60
    overlap: int | None = None
    """Annotators per item (None: all)."""
    modes: tuple[str, ...] = ("none", "upfront")
    assign: str = "within"
    propensity: float = 0.3
    """Mean probability of taking a shown suggestion."""
    propensity_spread: float = 0.0
    """Standard deviation of annotators' propensities (Beta distributed; 0: all equal)."""
    accuracy: float = 0.75
    accuracy_spread: float = 0.08
    difficulty_spread: float = 0.1
    llm_accuracy: float = 0.7
    planted_rate: float = 0.2
    reveal_rate: float = 0.5
    median_time_ms: float = 9000.0
    seed: int = 0


@dataclass(frozen=True)
class Simulated:
    """A simulated session: the anchoring frame and the true Δ per shown mode.

    The frame has `assignment_id`, so passing `redrawn=redraw_conditions(sim.assignments, config.modes,
    config.assign, config.seed, R)` to the analysis runs the re-drawn-design test; without it the
    analysis falls back to permuting conditions."""

    frame: pd.DataFrame
    truth: dict[str, float]
    assignments: tuple[Assignment, ...] = ()


def _propensities(config: SimConfig, rng: np.random.Generator, n: int) -> np.ndarray:
    mean, sd = config.propensity, config.propensity_spread
    if sd <= 0 or mean <= 0 or mean >= 1:
        return np.full(n, mean)
    var = min(sd**2, mean * (1 - mean) * 0.99)
    common = mean * (1 - mean) / var - 1
    return rng.beta(mean * common, (1 - mean) * common, size=n)


def _accuracy(config: SimConfig, rng: np.random.Generator, n_a: int, n_i: int) -> np.ndarray:
    """(n_a, n_i) probabilities of an own answer being right."""
    acc_a = rng.normal(config.accuracy, config.accuracy_spread, size=n_a)
    d_i = rng.normal(0.0, config.difficulty_spread, size=n_i)
    return np.clip(acc_a[:, None] - d_i[None, :], *_ACC_CLIP)


def true_delta(config: SimConfig, mode: str = "upfront", draws: int = 400_000) -> float:
    """Δ_mode of the population `config` describes (Monte Carlo over annotators and items)."""
    if mode not in SHOWN:
        raise ValueError(f"{mode!r} does not show the suggestion")
    return _true_delta(replace(config, seed=0), mode, draws)


@functools.lru_cache(maxsize=64)
def _true_delta(config: SimConfig, mode: str, draws: int) -> float:
    rng = np.random.default_rng(20240601)
    p = _propensities(config, rng, draws)
    acc = np.clip(
        rng.normal(config.accuracy, config.accuracy_spread, draws) - rng.normal(0.0, config.difficulty_spread, draws),
        *_ACC_CLIP,
    )
    scale = config.reveal_rate if mode == "on_request" else 1.0
    return float(np.mean(p) * scale * np.mean(acc))


def simulate(config: SimConfig) -> Simulated:
    """Draw one synthetic experiment (see the module docstring); reproducible from `config.seed`."""
    rng = np.random.default_rng(config.seed)
    n_a, n_i = config.n_annotators, config.n_items
    names = [f"ann{a:02d}" for a in range(n_a)]
    items = [f"item{i:03d}" for i in range(n_i)]
    gold = np.where(rng.random(n_i) < 0.5, "A", "B")
    llm_right = rng.random(n_i) < config.llm_accuracy
    llm = np.where(llm_right, gold, np.where(gold == "A", "B", "A"))
    overlap = config.overlap or n_a
    order_rng = random.Random(config.seed)
    assignments: list[Assignment] = []
    queues: dict[int, list[int]] = {a: [] for a in range(n_a)}
    for i in range(n_i):
        for j in range(overlap):
            queues[(i + j) % n_a].append(i)
    next_id = 1
    for a, queue in queues.items():
        order_rng.shuffle(queue)
        for position, i in enumerate(queue):
            assignments.append(Assignment(next_id, names[a], items[i], position))
            next_id += 1
    suggestions = [Suggestion(items[i], "sim-llm", str(llm[i]), id=i + 1) for i in range(n_i)]
    design = design_experiment(
        assignments, {items[i]: str(gold[i]) for i in range(n_i)}, suggestions,
        ExperimentSpec(modes=config.modes, assign=config.assign, planted_rate=config.planted_rate),
        seed=config.seed,
    )
    p = _propensities(config, rng, n_a)
    acc = _accuracy(config, rng, n_a, n_i)
    index_a = {name: a for a, name in enumerate(names)}
    index_i = {item: i for i, item in enumerate(items)}
    n = len(assignments)
    a_idx = np.array([index_a[x.annotator] for x in assignments])
    i_idx = np.array([index_i[x.item_id] for x in assignments])
    condition = np.array([design.conditions[x.id][0] for x in assignments])
    planted = np.array([x.item_id in design.planted for x in assignments])
    suggestion = np.where(planted, np.where(gold[i_idx] == "A", "B", "A"), llm[i_idx])
    own_right = rng.random(n) < acc[a_idx, i_idx]
    own = np.where(own_right, gold[i_idx], np.where(gold[i_idx] == "A", "B", "A"))
    revealed = np.where(condition == "on_request", rng.random(n) < config.reveal_rate, np.isin(condition, SHOWN))
    follows = revealed & (rng.random(n) < p[a_idx])
    final = np.where(follows, suggestion, own)
    initial = np.where(condition == "after", own, None)
    time_ms = np.exp(rng.normal(np.log(config.median_time_ms), 0.5, size=n)) * np.where(follows, 0.5, 1.0)
    frame = pd.DataFrame({
        "assignment_id": [x.id for x in assignments],
        "annotator": [names[a] for a in a_idx], "item": [items[i] for i in i_idx], "condition": condition,
        "suggestion": suggestion, "suggestion_correct": suggestion == gold[i_idx], "planted": planted,
        "initial_label": initial, "final_label": final, "gold": gold[i_idx], "time_ms": time_ms.round(),
        "shown": revealed,
    })
    truth = {mode: true_delta(config, mode) for mode in config.modes if mode in SHOWN}
    return Simulated(frame, truth, tuple(assignments))
