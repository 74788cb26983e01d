"""The randomization test that re-draws the experiment's design (DESIGN.md section 6): the batched
re-draw equals the design's own pure core run with each derived seed, the design and its hash are
unchanged by the refactoring, the analysis uses the re-draws when it can and says which test it ran,
and the test keeps its size under the null."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime

import numpy as np
import pytest
from test_experiment import experiment_spec, queue, real, seed_session

from annotate.analysis.anchoring import PERMUTATION, REDRAWN, analyse_anchoring, anchoring_effect
from annotate.analysis.simulate import SimConfig, simulate
from annotate.experiment import (
    apply_experiment,
    assign_conditions,
    design_experiment,
    redraw_conditions,
    redraw_seed,
    stored_redraws,
)
from annotate.model import Assignment, Judgment, Timings
from annotate.report.suggestions import suggestions_section
from annotate.spec import ExperimentSpec, SessionSpec
from annotate.store import Store

# Hashes of designs made before the condition core was factored out (assign_conditions): they must not move.
PINNED = [
    ((5, 10, ("none", "upfront"), "between", 0.0, 3),
     "8cede7115c29f45a8885cfd40a9861ef548952ab75bbafa55b824cf368a54d7b"),
    ((6, 30, ("none", "upfront", "after"), "within", 0.2, 1),
     "c093afdbd8471cb21a20dd34750357a60c5da24af40436aef37a818176754543"),
    ((7, 13, ("none", "upfront", "after", "on_request"), "within", 0.3, 11),
     "bc2df75739e553ab40d433e2fa1e7373d94aa75dc75de253d559fa8e272816b1"),
    ((12, 60, ("none", "upfront"), "within", 0.2, 0),
     "9de9f31934fc288d26b09953e00a2f6c811603a91c13e26de75be94e55e343b4"),
]


def with_extras(assignments: list[Assignment], position: int) -> list[Assignment]:
    """A repeat (follows its first showing) and an attention check (always none)."""
    nid = max(a.id for a in assignments) + 1
    return [*assignments, Assignment(id=nid, annotator="ann0", item_id="i01", position=position, purpose="repeat"),
            Assignment(id=nid + 1, annotator="ann1", item_id="i02", position=position, purpose="attention")]


@pytest.mark.parametrize(("case", "expected"), PINNED)
def test_design_hash_is_unchanged(case: tuple, expected: str) -> None:
    annotators, items, modes, assign, rate, seed = case
    assignments = with_extras(queue(annotators, items, seed), items)
    gold = {f"i{i:02d}": ("A" if i % 3 else "B") for i in range(0, items, 2)}
    design = design_experiment(assignments, gold, real(items),
                               ExperimentSpec(modes=modes, assign=assign, planted_rate=rate), seed=seed)
    assert design.hash == expected
    conditions = assign_conditions(assignments, modes, assign, seed)
    assert conditions == {aid: c for aid, (c, _) in design.conditions.items()}


def partial_overlap() -> list[Assignment]:
    rng = random.Random(3)
    out, nid = [], 1
    for a in range(9):
        for position, i in enumerate(rng.sample(range(40), 17)):  # 17: a partial last block
            out.append(Assignment(nid, f"ann{a}", f"i{i:02d}", position))
            nid += 1
    return out


@pytest.mark.parametrize("assign", ["within", "between"])
@pytest.mark.parametrize("modes", [("none", "upfront"), ("none", "upfront", "after"),
                                   ("none", "upfront", "after", "on_request"), ("none",)])
def test_each_redraw_is_the_design_core_with_a_derived_seed(assign: str, modes: tuple) -> None:
    for assignments in (with_extras(queue(7, 13, 2), 13), partial_overlap()):
        draws = redraw_conditions(assignments, modes, assign, 5, 12)
        assert draws.codes.shape == (12, len(assignments))
        assert len(set(draws.seeds)) == 12 and draws.seeds[3] == redraw_seed(5, 3)
        for r in range(12):
            expected = assign_conditions(assignments, modes, assign, redraw_seed(5, r))
            got = {int(i): draws.labels[c] for i, c in zip(draws.ids, draws.codes[r], strict=True)}
            assert got == expected, r


@pytest.mark.parametrize("modes", [("none", "upfront"), ("none", "upfront", "after")])
@pytest.mark.parametrize("share", [0.03, 0.4])
def test_redraws_around_shown_assignments_follow_the_design_rule(modes: tuple, share: float) -> None:
    """Shown (fixed) assignments keep their condition, which may even repeat a mode inside a block
    or fill a block: every re-draw is still exactly the design's core with its seed."""
    rng = random.Random(11)
    assignments = with_extras(partial_overlap(), 30)
    fixed = [a.id for a in assignments if rng.random() < share]
    assignments = [replace(a, condition=rng.choice(modes)) if a.id in fixed else a for a in assignments]
    for assign in ("within", "between"):
        draws = redraw_conditions(assignments, modes, assign, 9, 8, fixed)
        for r in range(8):
            expected = assign_conditions(assignments, modes, assign, redraw_seed(9, r), fixed)
            assert {int(i): draws.labels[c] for i, c in zip(draws.ids, draws.codes[r], strict=True)} == expected


def test_analysis_uses_redraws_and_falls_back_to_permutation() -> None:
    config = SimConfig(seed=4, propensity=0.4)
    sim = simulate(config)
    draws = redraw_conditions(sim.assignments, config.modes, config.assign, config.seed, 199)
    redrawn = anchoring_effect(sim.frame, "upfront", n_boot=0, redrawn=draws)
    assert redrawn.randomization == REDRAWN and redrawn.n_permutations == 199
    assert redrawn.p_value == pytest.approx(1 / 200)  # a strong effect: no re-draw comes close
    permuted = anchoring_effect(sim.frame, "upfront", n_boot=0, n_perm=199)
    assert permuted.randomization == PERMUTATION
    assert permuted.delta.estimate == redrawn.delta.estimate
    # no assignment ids: the fallback, with a note saying why
    result = analyse_anchoring(sim.frame.drop(columns=["assignment_id"]), n_boot=0, n_perm=50, redrawn=draws)
    assert result.randomization == PERMUTATION and result.n_perm == 50
    assert any("permutes conditions instead" in note for note in result.notes)
    full = analyse_anchoring(sim.frame, n_boot=0, n_perm=50, redrawn=draws)
    assert full.randomization == REDRAWN and full.n_perm == 199
    assert full.to_json()["effects"][0]["randomization"] == REDRAWN


def test_the_redrawn_statistic_matches_a_direct_computation() -> None:
    config = SimConfig(seed=8, n_annotators=6, n_items=20, propensity=0.1)
    sim = simulate(config)
    draws = redraw_conditions(sim.assignments, config.modes, config.assign, config.seed, 40)
    effect = anchoring_effect(sim.frame, "upfront", n_boot=0, redrawn=draws)
    frame = sim.frame[sim.frame["suggestion_correct"].astype(bool)]
    wrong = sim.frame[~sim.frame["suggestion_correct"].astype(bool)]
    assert len(frame) + len(wrong) == len(sim.frame)
    agree = (wrong["final_label"] == wrong["suggestion"]).to_numpy(dtype=float)
    column = {int(i): j for j, i in enumerate(draws.ids)}
    cols = [column[int(i)] for i in wrong["assignment_id"]]
    observed = agree[(wrong["condition"] == "upfront").to_numpy()].mean() - agree[
        (wrong["condition"] == "none").to_numpy()].mean()
    assert effect.delta.estimate == pytest.approx(observed)
    exceed = 0
    for r in range(40):
        labels = np.array(draws.labels)[draws.codes[r, cols]]
        star = agree[labels == "upfront"].mean() - agree[labels == "none"].mean()
        exceed += abs(star) >= abs(observed) - 1e-12
    assert effect.p_value == pytest.approx((1 + exceed) / 41)


@pytest.mark.parametrize(("assign", "runs", "n_draws"), [("between", 200, 199), ("within", 100, 99)])
def test_null_simulations_reject_about_five_percent_with_redrawn_designs(assign: str, runs: int,
                                                                         n_draws: int) -> None:
    rejected = 0
    for seed in range(runs):
        config = SimConfig(seed=10_000 + seed, n_annotators=8, n_items=40, propensity=0.0, assign=assign)
        sim = simulate(config)
        draws = redraw_conditions(sim.assignments, config.modes, config.assign, config.seed, n_draws)
        effect = anchoring_effect(sim.frame, "upfront", n_boot=0, seed=seed, redrawn=draws)
        assert effect.randomization == REDRAWN
        rejected += effect.p_value <= 0.05
    assert 0.01 <= rejected / runs <= 0.10, rejected / runs


def test_the_report_redraws_the_stored_design(store: Store, pairwise_spec: SessionSpec) -> None:
    spec = experiment_spec(pairwise_spec, modes=("none", "upfront"), assign="within", planted_rate=0.2)
    seed_session(store, spec, n_items=20, annotators=4)
    apply_experiment(store, spec)
    draws, why = stored_redraws(store, 30)
    assert draws is not None and why == "" and draws.codes.shape[0] == 30
    suggestions = {s.id: s for s in store.suggestions()}
    now = datetime.now(UTC).isoformat()
    rng = random.Random(0)
    for a in store.assignments():
        s = suggestions.get(a.suggestion_id)
        label = s.label if s is not None and a.condition == "upfront" else rng.choice("AB")
        store.submit(Judgment(a.id, label, Timings(now, 10, 4000, 4000)))
    section, payload = suggestions_section(spec, store, n_boot=20, seed=1, n_perm=30)
    assert payload["randomization"] == REDRAWN and payload["n_perm"] == 30
    # designed again after annotation: the shown assignments are kept (fixed) and still re-drawable
    again = apply_experiment(store, spec)
    assert again.design.fixed and stored_redraws(store, 5)[0] is not None
    assert all(e["randomization"] == REDRAWN for e in payload["effects"])
    effect_table = next(t for t in section.tables if t.key == "suggestions_effect")
    assert any("randomization: redrawn design" in note for note in effect_table.notes)
    # a design that no longer matches its assignments: the permutation fallback, and the report says so
    with store.transaction():
        first = store.assignments()[0]
        store.set_assignment_design([(first.id, "upfront" if first.condition == "none" else "none",
                                      first.suggestion_id)])
    assert stored_redraws(store, 30)[0] is None
    section, payload = suggestions_section(spec, store, n_boot=20, seed=1, n_perm=30)
    assert payload["randomization"] == PERMUTATION
    assert any("instead of re-drawing the design" in note for note in section.notes)
