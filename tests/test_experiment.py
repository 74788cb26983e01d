"""Suggestion experiment design: conditions, balance, planted suggestions, hash, what stays fixed."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from conftest import make_item

from annotate.experiment import (
    EXPERIMENT_META_KEY,
    apply_experiment,
    design_experiment,
    planted_label,
    verify_experiment,
)
from annotate.model import Assignment, Judgment, Suggestion, Timings
from annotate.plan import Rates, apply_plan
from annotate.spec import ExperimentSpec, SessionSpec
from annotate.store import Store


def queue(annotators: int, items: int, seed: int = 0) -> list[Assignment]:
    """Every annotator sees every item, in a shuffled order."""
    rng = random.Random(seed)
    out = []
    next_id = 1
    for a in range(annotators):
        order = [f"i{i:02d}" for i in range(items)]
        rng.shuffle(order)
        for position, item in enumerate(order):
            out.append(Assignment(id=next_id, annotator=f"ann{a}", item_id=item, position=position))
            next_id += 1
    return out


def real(items: int) -> list[Suggestion]:
    return [Suggestion(f"i{i:02d}", "judge", "A", id=i + 1) for i in range(items)]


def test_between_gives_each_annotator_one_mode_balanced() -> None:
    assignments = queue(5, 10)
    design = design_experiment(
        assignments, {}, real(10), ExperimentSpec(modes=("none", "upfront"), assign="between"), seed=3,
    )
    per_annotator: dict[str, set[str]] = defaultdict(set)
    for a in assignments:
        per_annotator[a.annotator].add(design.conditions[a.id][0])
    assert all(len(modes) == 1 for modes in per_annotator.values())
    heads = Counter(next(iter(m)) for m in per_annotator.values())
    assert sorted(heads.values()) == [2, 3]
    # the suggestion is linked under `none` too (kept but hidden: the baseline)
    assert all(design.conditions[a.id][1] == f"id:{int(a.item_id[1:]) + 1}" for a in assignments)


@pytest.mark.parametrize(("annotators", "items", "modes"), [
    (6, 30, ("none", "upfront", "after")),
    (4, 25, ("none", "upfront")),
    (8, 40, ("none", "upfront", "after", "on_request")),
])
def test_within_is_balanced_per_annotator_per_block_and_per_item(annotators: int, items: int, modes: tuple) -> None:
    assignments = queue(annotators, items, seed=annotators)
    design = design_experiment(assignments, {}, real(items), ExperimentSpec(modes=modes, assign="within"), seed=1)
    m = len(modes)
    by_annotator: dict[str, list[Assignment]] = defaultdict(list)
    for a in assignments:
        by_annotator[a.annotator].append(a)
    for queue_ in by_annotator.values():
        queue_.sort(key=lambda a: a.position)
        got = [design.conditions[a.id][0] for a in queue_]
        counts = Counter(got)
        assert max(counts.values()) - min(counts[mo] for mo in modes) <= 1
        for start in range(0, len(got), m):
            block = got[start : start + m]
            assert len(set(block)) == len(block), block  # each block of M positions: distinct modes
    per_item: dict[str, Counter] = defaultdict(Counter)
    for a in assignments:
        per_item[a.item_id][design.conditions[a.id][0]] += 1
    spread = [max(c[mo] for mo in modes) - min(c[mo] for mo in modes) for c in per_item.values()]
    assert max(spread) <= 1, Counter(spread)


def test_planted_pairwise_swaps_and_never_plants_a_tie() -> None:
    gold = {f"i{i:02d}": ("A" if i % 3 == 0 else "B" if i % 3 == 1 else "tie") for i in range(30)}
    design = design_experiment(
        queue(3, 30), gold, real(30), ExperimentSpec(modes=("none", "upfront"), planted_rate=0.5), seed=9,
    )
    plantable = [i for i, g in gold.items() if g in ("A", "B")]
    assert len(design.planted) == round(0.5 * len(plantable)) == 10
    for item_id, s in design.planted.items():
        assert gold[item_id] in ("A", "B") and s.label == {"A": "B", "B": "A"}[gold[item_id]]
        assert s.planted and s.source_model == "judge" and s.id is None
    assert any("cannot be planted" in note for note in design.notes)
    linked = {design.conditions[a.id][1] for a in queue(3, 30) if a.item_id in design.planted}
    assert all(key.startswith("planted:") for key in linked)


def test_planted_grades_move_k_points_in_a_feasible_direction() -> None:
    rng = random.Random(0)
    assert {planted_label("1", "single", rng, 2, (1, 5)) for _ in range(20)} == {"3"}
    assert {planted_label("5", "single", rng, 2, (1, 5)) for _ in range(20)} == {"3"}
    assert {planted_label("3", "single", rng, 2, (1, 5)) for _ in range(50)} == {"1", "5"}
    assert planted_label("3", "single", rng, 3, (1, 5)) is None
    assert planted_label("tie", "pairwise", rng) is None and planted_label("both_bad", "pairwise", rng) is None
    assert planted_label(None, "pairwise", rng) is None


def test_the_design_is_seeded_and_hashed() -> None:
    spec = ExperimentSpec(modes=("none", "upfront", "after"), assign="within", planted_rate=0.2)
    gold = {f"i{i:02d}": "A" for i in range(20)}
    one = design_experiment(queue(3, 20), gold, real(20), spec, seed=5)
    two = design_experiment(queue(3, 20), gold, real(20), spec, seed=5)
    other = design_experiment(queue(3, 20), gold, real(20), spec, seed=6)
    assert one.hash == two.hash and one.conditions == two.conditions and len(one.hash) == 64
    assert other.hash != one.hash


def test_several_sources_need_a_choice() -> None:
    suggestions = [*real(4), Suggestion("i00", "other", "B", id=99)]
    with pytest.raises(ValueError, match="several sources"):
        design_experiment(queue(2, 4), {}, suggestions, ExperimentSpec(modes=("none", "upfront")), seed=0)
    design = design_experiment(
        queue(2, 4), {}, suggestions, ExperimentSpec(modes=("none", "upfront"), suggestion_source="other"), seed=0,
    )
    assert {k for _, k in design.conditions.values()} == {"id:99", None}
    with pytest.raises(ValueError, match="no suggestions from it"):
        design_experiment(queue(2, 4), {}, suggestions, ExperimentSpec(modes=("none",), suggestion_source="x"), seed=0)


def test_attention_none_and_repeats_follow_their_first_showing() -> None:
    assignments = [
        Assignment(1, "a", "i00", 0), Assignment(2, "a", "i01", 1), Assignment(3, "a", "att", 2, purpose="attention"),
        Assignment(4, "a", "i02", 3), Assignment(5, "a", "i03", 4), Assignment(6, "a", "i01", 5, purpose="repeat"),
        Assignment(7, "a", "i00", 6, purpose="repeat"),
    ]
    design = design_experiment(assignments, {}, real(4), ExperimentSpec(modes=("none", "upfront"), assign="within"), 0)
    assert design.conditions[3] == ("none", None)
    assert design.conditions[6][0] == design.conditions[2][0]
    assert design.conditions[7][0] == design.conditions[1][0]


# -- in a session ------------------------------------------------------------------------------


def experiment_spec(spec: SessionSpec, **kwargs: object) -> SessionSpec:
    return replace(spec, experiment=ExperimentSpec(**kwargs))  # type: ignore[arg-type]


def seed_session(store: Store, spec: SessionSpec, n_items: int = 20, annotators: int = 4) -> None:
    store.add_items([make_item(f"i{i:02d}", gold="A" if i % 2 else "B") for i in range(n_items)])
    store.add_suggestions([Suggestion(f"i{i:02d}", "judge", "A", prompt_hash="p") for i in range(n_items)])
    apply_plan(store, spec, [f"ann{a}" for a in range(annotators)], 2, Rates(), seed=1)


def submit(store: Store, assignment_id: int) -> None:
    now = datetime.now(UTC).isoformat()
    store.submit(Judgment(assignment_id, "A", Timings(now, 10, 100, 100)))


def test_apply_experiment_stores_conditions_planted_and_hash(store: Store, pairwise_spec: SessionSpec) -> None:
    spec = experiment_spec(pairwise_spec, modes=("none", "upfront"), assign="within", planted_rate=0.2)
    seed_session(store, spec)
    applied = apply_experiment(store, spec)
    assert applied.planted_added == 4
    assert applied.changed > 0
    assert store.get_meta(EXPERIMENT_META_KEY) == applied.design.hash
    assert verify_experiment(store) is True
    planted = {s.item_id: s for s in store.suggestions() if s.planted}
    assert len(planted) == 4
    for a in store.assignments():
        assert a.condition in ("none", "upfront")
        linked = store.suggestion(a.suggestion_id)
        assert linked.item_id == a.item_id
        assert linked.planted == (a.item_id in planted)
        if linked.planted:
            assert linked.label != store.item(a.item_id).gold
    # again: nothing changes, same hash, no new planted suggestions
    again = apply_experiment(store, spec)
    assert (again.changed, again.planted_added) == (0, 0)
    assert again.design.hash == applied.design.hash
    assert len([s for s in store.suggestions() if s.planted]) == 4


def test_shown_assignments_keep_their_condition(store: Store, pairwise_spec: SessionSpec) -> None:
    spec = experiment_spec(pairwise_spec, modes=("none", "upfront"), assign="between", planted_rate=0.5)
    seed_session(store, spec)
    apply_experiment(store, spec)
    before = {a.id: a for a in store.assignments()}
    shown = [a for a in before.values()][:5]
    for a in shown:
        submit(store, a.id)
    changed = experiment_spec(pairwise_spec, modes=("upfront", "after"), assign="within", planted_rate=0.0)
    apply_experiment(store, changed)
    after = {a.id: a for a in store.assignments()}
    for a in shown:
        assert (after[a.id].condition, after[a.id].suggestion_id) == (a.condition, a.suggestion_id)
    free = [a for a in after.values() if a.id not in {s.id for s in shown}]
    assert {a.condition for a in free} <= {"upfront", "after"}
    assert verify_experiment(store) is True
    # planted suggestions still linked from shown assignments survive; the rest are gone
    linked = {a.suggestion_id for a in after.values()}
    assert all(s.id in linked for s in store.suggestions() if s.planted)


def test_verify_detects_a_changed_condition(store: Store, pairwise_spec: SessionSpec) -> None:
    spec = experiment_spec(pairwise_spec, modes=("none", "upfront"))
    seed_session(store, spec, n_items=6, annotators=2)
    assert verify_experiment(store) is None
    apply_experiment(store, spec)
    a = store.assignments()[0]
    store.set_assignment_design([(a.id, "after", a.suggestion_id)])
    assert verify_experiment(store) is False


def test_apply_needs_a_plan(store: Store, pairwise_spec: SessionSpec) -> None:
    with pytest.raises(ValueError, match="annotate plan"):
        apply_experiment(store, experiment_spec(pairwise_spec, modes=("none", "upfront")))


def test_cli_experiment(store: Store, pairwise_spec: SessionSpec) -> None:
    from click.testing import CliRunner

    from annotate.cli import main

    text = pairwise_spec.path.read_text().replace(
        'modes = ["none"]\nplanted_rate = 0.0',
        'modes = ["none", "upfront"]\nassign = "between"\nplanted_rate = 0.2',
    )
    pairwise_spec.path.write_text(text)
    seed_session(store, pairwise_spec)
    dry = CliRunner().invoke(main, ["experiment", "t", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "dry run" in dry.output and store.get_meta(EXPERIMENT_META_KEY) is None
    result = CliRunner().invoke(main, ["experiment", "t"])
    assert result.exit_code == 0, result.output
    assert "modes none, upfront (between)" in result.output
    assert "assignments: none 20, upfront 20" in result.output
    assert "suggestions from judge; planted wrong on 4 of 20 gold items" in result.output
    assert store.get_meta(EXPERIMENT_META_KEY) is not None


def test_the_hash_stays_when_nothing_changes_after_annotation_starts(store: Store, pairwise_spec: SessionSpec) -> None:
    spec = experiment_spec(pairwise_spec, modes=("none", "upfront"), assign="within", planted_rate=0.2)
    seed_session(store, spec)
    first = apply_experiment(store, spec)
    for a in store.assignments()[:7]:
        submit(store, a.id)
    again = apply_experiment(store, spec)
    assert again.changed == 0 and again.design.hash == first.design.hash
    assert len(again.design.fixed) == 7
    assert verify_experiment(store) is True
