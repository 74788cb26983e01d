"""The anchoring analysis against synthetic annotators of known propensity to follow suggestions.

Recovery: with a true effect, the estimate is unbiased and the 95 % two-way cluster bootstrap
interval covers the truth (it is conservative: Owen's pigeonhole bootstrap overstates the
variance). Calibration: with no effect (propensity 0), the randomization test rejects at
alpha = 0.05 about 5 % of the time over 200 simulated sessions.
"""

from __future__ import annotations

import json

import numpy as np

from annotate.analysis.anchoring import analyse_anchoring, anchoring_effect
from annotate.analysis.simulate import SimConfig, simulate, true_delta


def test_truth_is_propensity_times_accuracy() -> None:
    config = SimConfig(propensity=0.4, accuracy=0.8, accuracy_spread=0.0, difficulty_spread=0.0)
    assert abs(true_delta(config) - 0.32) < 1e-9
    assert abs(true_delta(config, "on_request") - 0.16) < 1e-9
    assert true_delta(SimConfig(propensity=0.0)) == 0.0


def test_the_interval_covers_the_true_effect_within_annotators() -> None:
    covered, estimates, excludes_zero = 0, [], 0
    runs = 40
    for seed in range(runs):
        sim = simulate(SimConfig(seed=seed, propensity=0.3, propensity_spread=0.1))
        effect = anchoring_effect(sim.frame, "upfront", n_boot=200, n_perm=0, seed=seed)
        truth = sim.truth["upfront"]
        covered += effect.delta.ci_low <= truth <= effect.delta.ci_high
        excludes_zero += effect.delta.ci_low > 0
        estimates.append(effect.delta.estimate)
        assert effect.design == "within"
    assert covered / runs >= 0.9
    assert abs(np.mean(estimates) - truth) < 0.03  # unbiased
    assert excludes_zero / runs >= 0.7  # and it usually finds it (32 of 40 at these seeds)


def test_the_interval_covers_the_true_effect_between_annotators() -> None:
    covered = 0
    runs = 30
    for seed in range(runs):
        sim = simulate(SimConfig(seed=100 + seed, assign="between", propensity=0.4, propensity_spread=0.15))
        effect = anchoring_effect(sim.frame, "upfront", n_boot=200, n_perm=0, seed=seed)
        assert effect.design == "between"
        covered += effect.delta.ci_low <= sim.truth["upfront"] <= effect.delta.ci_high
    assert covered / runs >= 0.85


def test_null_simulations_reject_about_five_percent() -> None:
    runs = 200
    rejected = 0
    for seed in range(runs):
        sim = simulate(SimConfig(seed=10_000 + seed, n_annotators=8, n_items=40, propensity=0.0))
        effect = anchoring_effect(sim.frame, "upfront", n_boot=0, n_perm=199, seed=seed)
        rejected += effect.p_value <= 0.05
    rate = rejected / runs
    assert 0.01 <= rate <= 0.10, rate


def test_every_mode_and_the_after_switches() -> None:
    config = SimConfig(seed=3, n_annotators=16, n_items=80, modes=("none", "upfront", "after", "on_request"),
                       propensity=0.5, propensity_spread=0.1)
    sim = simulate(config)
    result = analyse_anchoring(sim.frame, n_boot=300, n_perm=300, seed=1)
    effects = {e.mode: e for e in result.effects}
    assert set(effects) == {"upfront", "after", "on_request"}
    for mode, effect in effects.items():
        assert effect.delta.ci_low <= sim.truth[mode] <= effect.delta.ci_high, mode
        assert effect.p_value < 0.05
    by = {c.condition: c for c in result.conditions}
    assert by["upfront"].over_reliance.estimate > by["none"].over_reliance.estimate
    assert by["upfront"].under_reliance.estimate < by["none"].under_reliance.estimate
    assert by["upfront"].fast_accepts > by["none"].fast_accepts
    assert by["on_request"].reveal_rate is not None and 0.35 < by["on_request"].reveal_rate < 0.65
    switches = result.switches
    assert switches is not None and switches.n == by["after"].n
    # annotators whose first answer differed from the suggestion took it about half the time
    assert 0.35 < switches.to_suggestion_rate < 0.65
    assert switches.switches == switches.to_suggestion  # two labels: every switch is to the suggestion
    assert switches.harmful + switches.beneficial == switches.n_gold
    llm = {a.reference: a.accuracy.estimate for a in result.llm_accuracy}
    assert llm["labels under upfront"] > llm["labels under none"]  # seeing it flatters the LLM
    assert len(result.annotators) == 16
    json.dumps(result.to_json(), allow_nan=False)
